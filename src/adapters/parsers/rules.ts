// Declarative output parsing: an adapter says in YAML how its harness's stdout/stderr signal a denial, an
// error, a tool it does not offer, the end of the session, or a tool it ran. Plain lines are matched with
// a regex; JSON lines are selected by field values and read through dotted field paths. Rules are data, so
// a new harness needs no parser code, and one whose refusals appear only in its own output (opencode's
// `run` auto-rejecting an "ask") is still measured.
import { z } from 'zod';
import { HARNESS_EVENT_KINDS, type HarnessEvent } from '../../evidence/types.js';
import { regexSource } from '../../regex-source.js';
import { cap, contentText, jsonLines } from './util.js';

const regex = regexSource('i');

export const OutputRule = z
  .object({
    /** The event this rule records. */
    kind: z.enum(HARNESS_EVENT_KINDS),
    stream: z.enum(['stdout', 'stderr', 'both']).default('both'),
    /** `lines`: each line as text; `json`: each line that is a JSON object. */
    format: z.enum(['lines', 'json']).default('lines'),
    /** json: fields that must have these values (dotted path → value). */
    where: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).default({}),
    /** json: dotted path of the field `match` reads and the event's text comes from (default: the line). */
    field: z.string().optional(),
    /** Regex (case-insensitive) on the line, or on the field; a named group `tool` gives the tool name. */
    match: regex.optional(),
    /** json: dotted path of the tool name. */
    tool: z.string().optional(),
  })
  .strict()
  .refine((r) => r.format === 'json' || r.match !== undefined, {
    message: 'a `lines` rule needs `match` (a regex on the line)',
    path: ['match'],
  })
  .refine(
    (r) =>
      r.format === 'json' || (r.field === undefined && r.tool === undefined && !Object.keys(r.where).length),
    {
      message: '`where`, `field` and `tool` read JSON lines: give `format: json`',
      path: ['format'],
    },
  );
export type OutputRule = z.infer<typeof OutputRule>;

function at(obj: unknown, dotted: string): unknown {
  let cur = obj;
  for (const part of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Text of a field: a string, the text of content blocks, else its JSON. */
const textOf = (v: unknown): string =>
  typeof v === 'string' ? v : Array.isArray(v) ? contentText(v) : v === undefined ? '' : JSON.stringify(v);

function fromLine(rule: OutputRule, line: string): HarnessEvent | undefined {
  const m = new RegExp(rule.match!, 'i').exec(line);
  if (!m) return undefined;
  return { kind: rule.kind, ...(m.groups?.tool ? { tool: m.groups.tool } : {}), text: cap(line.trim()) };
}

function fromJson(rule: OutputRule, obj: Record<string, unknown>): HarnessEvent | undefined {
  for (const [path, value] of Object.entries(rule.where)) if (at(obj, path) !== value) return undefined;
  const field = rule.field === undefined ? JSON.stringify(obj) : textOf(at(obj, rule.field));
  if (rule.field !== undefined && at(obj, rule.field) === undefined) return undefined;
  const m = rule.match === undefined ? undefined : new RegExp(rule.match, 'i').exec(field);
  if (rule.match !== undefined && !m) return undefined;
  const tool = rule.tool === undefined ? m?.groups?.tool : textOf(at(obj, rule.tool)) || undefined;
  return { kind: rule.kind, ...(tool ? { tool } : {}), text: cap(field) };
}

/** The events the rules find; on each line the first rule that matches wins. */
export function applyRules(rules: OutputRule[], stdout: string, stderr: string): HarnessEvent[] {
  if (rules.length === 0) return [];
  const events: HarnessEvent[] = [];
  for (const [name, text] of [
    ['stdout', stdout],
    ['stderr', stderr],
  ] as const) {
    const own = rules.filter((r) => r.stream === 'both' || r.stream === name);
    if (own.length === 0) continue;
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (!line) continue;
      const obj = line.startsWith('{') ? jsonLines(line)[0] : undefined;
      for (const rule of own) {
        const ev = rule.format === 'json' ? obj && fromJson(rule, obj) : fromLine(rule, line);
        if (ev) {
          events.push(ev);
          break;
        }
      }
    }
  }
  return events;
}
