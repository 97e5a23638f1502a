// What replay compares and serves, independent of the trial it came from: trial values (folders, the
// endpoint URL, canary values) become placeholders, tool-call ids are left out, and each part of the
// request is digested. Two trials of the same case on the same harness build give the same shapes.
import { createHash } from 'node:crypto';
import type { NormalOutput, RequestShape } from '../../evidence/types.js';
import { mapStrings } from '../../json-strings.js';
import type { Conversation, Message } from '../conversation.js';

/** Trial value → placeholder, longest value first (a folder inside another is replaced first). */
export type Placeholders = [value: string, placeholder: string][];

export function placeholders(vars: {
  workspace: string;
  home: string;
  tmp: string;
  endpoint: string;
  canaries: Record<string, string>;
  /** Folder names the engine made at random (the work root's, the trial folder's): always trial values. */
  randomNames?: string[];
}): Placeholders {
  // The trial's folders hold random names (the work root, the trial folder). Harnesses also show them
  // re-encoded (Claude Code names its project folder after the path with every `/` and `.` as `-`), so
  // those names are placeholders too, in both forms. The engine names its own; a random suffix without
  // a digit (a third of mkdtemp's) would escape the guess.
  const folders = [
    ...new Set([
      ...(vars.randomNames ?? []).filter((n) => n.length > 0),
      ...[vars.workspace, vars.home, vars.tmp].flatMap(randomSegments),
    ]),
  ];
  const pairs: Placeholders = [
    [vars.workspace, '{{workspace}}'],
    [vars.home, '{{home}}'],
    [vars.tmp, '{{tmp}}'],
    [vars.endpoint, '{{svc}}'],
    ...Object.entries(vars.canaries).map(([n, v]): [string, string] => [v, `{{canary:${n}}}`]),
    ...folders.flatMap((seg, i): [string, string][] => [
      [seg, `{{folder:${i}}}`],
      [slug(seg), `{{folder-slug:${i}}}`],
    ]),
  ];
  const seen = new Set<string>();
  return pairs
    .filter(([v]) => v.length > 0 && !seen.has(v) && seen.add(v))
    .sort((a, b) => b[0].length - a[0].length);
}

const slug = (s: string) => s.replace(/[^A-Za-z0-9]/g, '-');

/** Path segments that differ between trials: the ones with a random suffix (`name-Ab3xYz`) or digits. */
function randomSegments(path: string): string[] {
  return path
    .split('/')
    .filter((seg) => seg.length >= 8 && /[-_.][A-Za-z0-9]{6,}$/.test(seg) && /\d/.test(seg));
}

/**
 * What differs between two runs of the same conversation without saying anything about it: timestamps
 * and dates (Codex sends today's date), durations (`Wall time: 0.0830 seconds`), UUIDs and output chunk
 * ids. Replay compares requests with these blanked; they are never served back.
 */
const VOLATILE: [RegExp, string][] = [
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, '{{date}}'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '{{uuid}}'],
  [/\b\d+(?:\.\d+)?\s?(?:ms|milliseconds?|s|secs?|seconds?)\b/gi, '{{duration}}'],
  [/\b((?:chunk|session|request|process|run) id:?\s*)[0-9a-f]{4,}\b/gi, '$1{{id}}'],
];

export const blankVolatile = (text: string): string =>
  VOLATILE.reduce((t, [re, to]) => t.replace(re, to), text);

export const normalizeText = (text: string, ph: Placeholders): string =>
  ph.reduce((t, [value, name]) => t.split(value).join(name), text);

export const renderText = (text: string, ph: Placeholders): string =>
  [...ph]
    .sort((a, b) => b[1].length - a[1].length)
    .reduce((t, [value, name]) => t.split(name).join(value), text);

export const normalizeOutput = (out: NormalOutput, ph: Placeholders): NormalOutput =>
  out.kind === 'text'
    ? { kind: 'text', text: normalizeText(out.text, ph) }
    : {
        kind: 'tool_calls',
        calls: out.calls.map((c) => ({ ...c, args: mapStrings(c.args, (s) => normalizeText(s, ph)) })),
      };

export const renderOutput = (out: NormalOutput, ph: Placeholders): NormalOutput =>
  out.kind === 'text'
    ? { kind: 'text', text: renderText(out.text, ph) }
    : {
        kind: 'tool_calls',
        calls: out.calls.map((c) => ({ ...c, args: mapStrings(c.args, (s) => renderText(s, ph)) })),
      };

const digest = (value: unknown): string =>
  createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

/** A message without its ids: role, text, calls (name + arguments), results (text + error flag). */
function messageKey(m: Message, ph: Placeholders): unknown {
  const n = (s: string) => blankVolatile(normalizeText(s, ph));
  return [
    m.role,
    n(m.text),
    m.toolCalls.map((c) => [c.name, mapStrings(c.args, n)]),
    m.toolResults.map((r) => [n(r.text), r.isError]),
  ];
}

export function requestShape(conv: Conversation, ph: Placeholders): RequestShape {
  return {
    tools: conv.tools.map((t) => t.name).sort(),
    system: digest(blankVolatile(normalizeText(conv.system, ph))),
    messages: conv.messages.map((m) => digest(messageKey(m, ph))),
  };
}

/** Why `now` is not the request that was recorded, in words; undefined when they match. */
export function shapeDifference(recorded: RequestShape, now: RequestShape): string | undefined {
  const added = now.tools.filter((t) => !recorded.tools.includes(t));
  const removed = recorded.tools.filter((t) => !now.tools.includes(t));
  if (added.length || removed.length)
    return `the tools offered differ (${[
      ...(added.length ? [`new: ${added.join(', ')}`] : []),
      ...(removed.length ? [`gone: ${removed.join(', ')}`] : []),
    ].join('; ')})`;
  if (recorded.system !== now.system) return 'the system prompt differs';
  const n = Math.max(recorded.messages.length, now.messages.length);
  for (let i = 0; i < n; i++) {
    if (recorded.messages[i] !== now.messages[i])
      return recorded.messages[i] === undefined || now.messages[i] === undefined
        ? `the conversation has ${now.messages.length} messages, the recording ${recorded.messages.length}`
        : `message ${i + 1} of the conversation differs`;
  }
  return undefined;
}
