// Running output rules over a trial's stdout and stderr. Lines (plain and JSON) come first, stream by
// stream, then each stream's document (a summary a harness prints at the end). On each item (a line, a
// document, or one element of an `each` array) the first rule that matches wins, unless it says
// `continue`. Events remember the id their rule gave, so a later rule can skip a call already reported
// (`unless_seen`) or name the tool of the call a result answers (`tool: {from_id: true}`).
import type { HarnessEvent } from '../../evidence/types.js';
import type { Conditions, OutputRule, Test } from './rules.js';
import { at, render, type Scope, textOf } from './template.js';
import { cap, jsonLines, lastDocument } from './util.js';

interface Recorded {
  event: HarnessEvent;
  id?: string;
}

type Stream = 'stdout' | 'stderr';

class Matcher {
  private readonly cache = new Map<string, RegExp>();
  regex(source: string, caseSensitive: boolean): RegExp {
    const key = `${caseSensitive ? 's' : 'i'}${source}`;
    let re = this.cache.get(key);
    if (!re) {
      re = new RegExp(source, caseSensitive ? '' : 'i');
      this.cache.set(key, re);
    }
    return re;
  }
}

function holds(test: Test | string | number | boolean | null, value: unknown, re: (s: string) => RegExp) {
  if (test === null || typeof test !== 'object') return value === test;
  if ('not' in test && value === test.not) return false;
  if (test.in !== undefined && !test.in.includes(value as never)) return false;
  if (test.exists !== undefined && (value !== undefined && value !== null) !== test.exists) return false;
  if (test.match !== undefined && (value === undefined || !re(test.match).test(textOf(value)))) return false;
  return true;
}

function where(rule: OutputRule, scope: Scope, re: (s: string) => RegExp): boolean {
  const all = (c: Conditions) => Object.entries(c).every(([path, t]) => holds(t, at(scope, path), re));
  return Array.isArray(rule.where) ? rule.where.some(all) : all(rule.where);
}

const idText = (v: unknown): string | undefined =>
  v === undefined || v === null || v === '' ? undefined : textOf(v);

/** The call id a rule reads: the value at `id`, cut down by `id_match` when it matches. */
function ruleId(rule: OutputRule, scope: Scope, re: (s: string) => RegExp): string | undefined {
  if (rule.id === undefined) return undefined;
  const raw = idText(at(scope, rule.id));
  if (raw === undefined || rule.id_match === undefined) return raw;
  const hit = re(rule.id_match).exec(raw);
  return hit ? hit.groups?.id || hit[0] || raw : raw;
}

/** The event a rule makes of one item, `null` when it matched but records nothing, else undefined. */
function evaluate(
  rule: OutputRule,
  scope: Scope,
  line: string | undefined,
  seen: Recorded[],
  m: Matcher,
): Recorded | null | undefined {
  const re = (s: string) => m.regex(s, rule.case_sensitive);
  if (line !== undefined) {
    // A lines rule: the regex first, then paths read its named groups.
    const hit = re(rule.match!).exec(line);
    if (!hit) return undefined;
    const groups = { ...hit.groups };
    const lineScope = { root: line, item: groups };
    if (!where(rule, lineScope, re)) return undefined;
    return finish(rule, lineScope, line, groups.tool, seen, re);
  }
  if (!where(rule, scope, re)) return undefined;
  let text: string | undefined;
  if (rule.field !== undefined) {
    const v = at(scope, rule.field);
    if (v === undefined) return undefined;
    text = textOf(v);
  }
  // The item's JSON only when something reads it (a large line is not stringified for nothing).
  if (text === undefined && (rule.match !== undefined || rule.text === undefined))
    text = JSON.stringify(scope.item) ?? '';
  let groupTool: string | undefined;
  if (rule.match !== undefined && text !== undefined) {
    const hit = re(rule.match).exec(text);
    if (!hit) return undefined;
    groupTool = hit.groups?.tool;
  }
  return finish(rule, scope, text ?? '', groupTool, seen, re);
}

function finish(
  rule: OutputRule,
  scope: Scope,
  defaultText: string,
  groupTool: string | undefined,
  seen: Recorded[],
  re: (s: string) => RegExp,
): Recorded | null {
  const id = ruleId(rule, scope, re);
  let tool: string | undefined;
  if (rule.tool === undefined) tool = groupTool || undefined;
  else if (typeof rule.tool === 'string') tool = textOf(at(scope, rule.tool)) || undefined;
  else if ('text' in rule.tool) tool = render(rule.tool.text, scope) || undefined;
  else tool = id === undefined ? undefined : seen.find((r) => r.id === id && r.event.tool)?.event.tool;
  const same = (e: NonNullable<OutputRule['unless_seen']>) => (r: Recorded) =>
    e.kind.includes(r.event.kind) &&
    (e.same === 'id' ? id !== undefined && r.id === id : tool !== undefined && r.event.tool === tool);
  if (rule.unless_seen && seen.some(same(rule.unless_seen))) return null;
  const text = cap(rule.text === undefined ? defaultText : render(rule.text, scope));
  const made = {
    event: { kind: rule.kind, ...(tool ? { tool } : {}), text, ...(id !== undefined ? { call_id: id } : {}) },
    ...(id !== undefined ? { id } : {}),
  };
  let replaced = -1;
  if (rule.replaces)
    for (let i = seen.length - 1; i >= 0 && replaced < 0; i--)
      if (same(rule.replaces)(seen[i]!)) replaced = i;
  if (replaced < 0) return made;
  seen[replaced] = made;
  return null;
}

/** The items a rule looks at in one line or document: the thing itself, or each element of `each`. */
function items(rule: OutputRule, root: unknown): { unit: string; scope: Scope }[] {
  if (rule.each === undefined) return [{ unit: '', scope: { root, item: root } }];
  const list = at({ root, item: root }, rule.each);
  if (!Array.isArray(list)) return [];
  return list.map((item, i) => ({ unit: `${rule.each}\u0000${i}`, scope: { root, item } }));
}

/** Runs the rules on one line (or document): first match wins per item, `continue` lets others look. */
function onSource(
  rules: OutputRule[],
  text: string | undefined,
  json: Record<string, unknown> | undefined,
  seen: Recorded[],
  m: Matcher,
): void {
  const taken = new Set<string>();
  for (const rule of rules) {
    const asLine = rule.format === 'lines';
    if (asLine ? text === undefined : json === undefined) continue;
    const units = asLine ? [{ unit: '', scope: { root: text, item: text } }] : items(rule, json);
    for (const { unit, scope } of units) {
      if (taken.has(unit)) continue;
      const got = evaluate(rule, scope, asLine ? text : undefined, seen, m);
      if (got === undefined) continue;
      if (got) seen.push(got);
      if (!rule.continue) taken.add(unit);
    }
  }
}

/** The events the rules find in a trial's output, in the order described at the top of this file. */
export function applyRules(rules: OutputRule[], stdout: string, stderr: string): HarnessEvent[] {
  if (rules.length === 0) return [];
  const seen: Recorded[] = [];
  const m = new Matcher();
  const streams: [Stream, string][] = [
    ['stdout', stdout],
    ['stderr', stderr],
  ];
  const on = (name: Stream) => (r: OutputRule) => r.stream === 'both' || r.stream === name;
  for (const [name, text] of streams) {
    const own = rules.filter((r) => on(name)(r) && r.format !== 'document');
    if (own.length === 0) continue;
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (!line) continue;
      const json = line.startsWith('{') ? jsonLines(line)[0] : undefined;
      onSource(own, line, json, seen, m);
    }
  }
  for (const [name, text] of streams) {
    const own = rules.filter((r) => on(name)(r) && r.format === 'document');
    if (own.length === 0) continue;
    const doc = lastDocument(text);
    if (doc) onSource(own, undefined, doc, seen, m);
  }
  return seen.map((r) => r.event);
}
