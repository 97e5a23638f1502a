// The one function that turns untrusted text (anything a harness, an agent, a case file or an error
// message produced) into inert markdown. Everything agent-derived goes through `escapeMarkdown` before it
// reaches a PR comment, a check run or a job summary; `sanitizeText` is its first stage, used alone for
// fields GitHub shows as plain text (check-run annotation messages and titles). Both apply the job's
// secret mask first (mask.ts), so no renderer can publish a secret a harness printed.
import { plainText } from '../terminal-text.js';
import { currentMask } from './mask.js';

/** Unicode bidirectional controls (embeddings, overrides, isolates, marks): they reorder what a reviewer sees. */
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
/** Unicode "tag" characters (invisible ASCII look-alikes) and the BOM. */
const INVISIBLE = /[\u{E0000}-\u{E007F}\uFEFF]/gu;
/** C0/C1 control characters other than the line breaks and tabs handled below. */
const CONTROL = /[\u0000-\u0008\u000E-\u001F\u007F-\u009F]/g;
/** Anything that ends a line in markdown or in a table row. */
const LINE_BREAK = /\r\n|[\r\n\u000B\u000C\u0085\u2028\u2029\t]/g;

/** Default cap for one piece of untrusted text, in code points. */
export const DEFAULT_MAX = 400;

export interface EscapeOptions {
  /** Longest output, counted in code points of the input (default 400); longer text ends in `…`. */
  max?: number;
}

/**
 * Untrusted text as plain text with the job's secrets masked. Terminal escape sequences go whole (plainText:
 * removing only ESC would leave `[31m` or a window title behind), before the mask, so a secret split by
 * colour codes is found whole; the mask comes before anything that could cut it.
 */
function maskedPlain(value: unknown): string {
  return currentMask().text(plainText(value === undefined || value === null ? '' : String(value)));
}

/**
 * First stage: one line of plain text. Masks the job's secrets, removes terminal escape sequences, bidi
 * controls, invisible tag characters and control characters, turns line breaks and tabs into spaces,
 * truncates to `max` code points (never splitting a surrogate pair) with a trailing `…`.
 */
export function sanitizeText(value: unknown, max: number = DEFAULT_MAX): string {
  let text = maskedPlain(value);
  text = text.replace(LINE_BREAK, ' ').replace(BIDI, '').replace(INVISIBLE, '').replace(CONTROL, '');
  const points = Array.from(text);
  if (points.length > max) text = `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
  return text;
}

/**
 * Characters with a meaning in GFM or HTML, written as character references. References work the same
 * in markdown text, in table cells (GFM splits rows on literal `|` only) and inside HTML blocks such as
 * `<summary>` (where backslash escapes would show literally), and they never open a code span, emphasis,
 * link, math span or tag.
 */
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\\': '&#92;',
  '`': '&#96;',
  '*': '&#42;',
  _: '&#95;',
  '[': '&#91;',
  ']': '&#93;',
  '|': '&#124;',
  '~': '&#126;',
  $: '&#36;',
};
const ZWSP = '\u200B';

/**
 * Untrusted text → inert, single-line markdown that is safe in running text, list items, `<summary>`
 * elements and table cells (callers never start a line with it):
 * - HTML specials become entities, so no tag, autolink or `<!--`/`-->` survives;
 * - markdown punctuation (`` ` `` `*` `_` `[` `]` `|` `~` `$` `\\`) becomes character references: no code
 *   span, emphasis, link, image, table cell break or math;
 * - `@` gets a zero-width space after it (no mention, no team ping), so does `#` (no issue
 *   cross-reference) and the `:` of `scheme://` (no autolink);
 * - line breaks become spaces (a table row stays one row), bidi/invisible/control characters go away;
 * - text longer than `max` code points is cut with `…`.
 */
export function escapeMarkdown(value: unknown, options: EscapeOptions = {}): string {
  return inertMarkdown(sanitizeText(value, options.max ?? DEFAULT_MAX));
}

/** escapeMarkdown's character stage alone (no masking, no truncation): also what a secret looks like once escaped. */
export function inertMarkdown(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const entity = ENTITIES[ch];
    if (entity !== undefined) out += entity;
    else if (ch === '@' || ch === '#') out += ch + ZWSP;
    else if (ch === ':' && text.startsWith('//', i + 1)) out += ch + ZWSP;
    else out += ch;
  }
  return out;
}

/** Several lines of untrusted text (an error tail): each line escaped, at most `maxLines`, joined by `<br>`. */
export function escapeLines(value: unknown, maxLines = 20, options: EscapeOptions = {}): string {
  // Plain and masked whole first: an OSC string can span lines, and a multi-line secret (a private key) is no longer whole once split into lines.
  const raw = maskedPlain(value);
  const lines = raw.split(/\r\n|\r|\n/).filter((l) => l.trim() !== '');
  const kept = lines.slice(-maxLines).map((l) => escapeMarkdown(l, options));
  if (lines.length > maxLines) kept.unshift(`… ${lines.length - maxLines} earlier lines omitted`);
  return kept.join('<br>');
}

/** A name we put into an HTML comment marker or a cache key: only `[A-Za-z0-9._/+-]`, no `--`. */
export function markerSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9._/+-]/g, '_').replace(/--+/g, (m) => `-${'_'.repeat(m.length - 1)}`);
}
