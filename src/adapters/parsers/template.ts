// Paths and text templates of output rules. A path reads a value from what a rule looks at: `a.b` from the
// current item (the JSON line, the document, one element of an `each` array, or the named groups of a
// lines rule's regex), `@` the item itself, `$` the whole line or document and `$.a.b` a path from it.
// A template (`"{command} (exit {exit_code}): {aggregated_output|last:3}"`) fills `{path|filter…}`
// placeholders; the filters are deliberately few, and anything conditional is a second rule.
import { z } from 'zod';
import { cap, contentText } from './util.js';

/** What a path is read against: the item a rule is looking at, and the line or document it came from. */
export interface Scope {
  root: unknown;
  item: unknown;
}

function walk(value: unknown, dotted: string): unknown {
  let cur = value;
  for (const part of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export function at(scope: Scope, path: string): unknown {
  if (path === '@') return scope.item;
  if (path === '$') return scope.root;
  if (path.startsWith('$.')) return walk(scope.root, path.slice(2));
  if (path.startsWith('@.')) return walk(scope.item, path.slice(2));
  return walk(scope.item, path);
}

/** Text of a value: a string, the text of content blocks (`[{type: text, text}]`), else its JSON. */
export const textOf = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : Array.isArray(v)
      ? contentText(v)
      : v === undefined || v === null
        ? ''
        : JSON.stringify(v);

/** The filters a placeholder may apply, in order: `{path|json|cap:400}`. */
const FILTERS = {
  /** The last N lines of the text (trimmed), joined with " | ". */
  last: (text: string, n: number) => text.trim().split('\n').slice(-n).join(' | '),
  /** At most N characters, with "…" when cut. */
  cap: (text: string, n: number) => cap(text, n),
  /** TEXT when the value is missing or empty. */
  or: (text: string, alt: string) => text || alt,
  /** The value's JSON, whatever it is (a list of strings, an object). */
  json: (_text: string, _arg: undefined, value: unknown) => JSON.stringify(value) ?? '',
} as const;
type FilterName = keyof typeof FILTERS;
const NUMERIC: FilterName[] = ['last', 'cap'];
export const FILTER_HELP = 'last:N, cap:N, or:TEXT, json';

interface Placeholder {
  path: string;
  filters: { name: FilterName; arg: string | undefined }[];
}

const PLACEHOLDER = /\{([^{}]*)\}/g;

function placeholder(body: string): Placeholder | string {
  const [path, ...rest] = body.split('|');
  if (!path?.trim()) return `empty placeholder {${body}}: write a path, e.g. {message}`;
  const filters: Placeholder['filters'] = [];
  for (const f of rest) {
    const colon = f.indexOf(':');
    const name = (colon < 0 ? f : f.slice(0, colon)).trim();
    const arg = colon < 0 ? undefined : f.slice(colon + 1);
    if (!(name in FILTERS)) return `unknown filter "${name}" in {${body}}: use ${FILTER_HELP}`;
    const n = name as FilterName;
    if (NUMERIC.includes(n) && !/^[1-9]\d*$/.test(arg ?? ''))
      return `{${body}}: ${n} needs a positive whole number (${n}:3)`;
    if (n === 'or' && arg === undefined) return `{${body}}: or needs the text to use (or:none)`;
    filters.push({ name: n, arg });
  }
  return { path: path.trim(), filters };
}

/** The problem with a template, or undefined when it is well formed. */
export function templateProblem(template: string): string | undefined {
  for (const m of template.matchAll(PLACEHOLDER)) {
    const p = placeholder(m[1]!);
    if (typeof p === 'string') return p;
  }
  const bare = template.replace(PLACEHOLDER, '');
  if (/[{}]/.test(bare)) return 'an unmatched "{" or "}": placeholders are {path} or {path|filter}';
  return undefined;
}

/** The paths a template reads (for checks that they exist, e.g. a lines rule's regex groups). */
export const templatePaths = (template: string): string[] =>
  [...template.matchAll(PLACEHOLDER)].flatMap((m) => {
    const p = placeholder(m[1]!);
    return typeof p === 'string' ? [] : [p.path];
  });

export function render(template: string, scope: Scope): string {
  return template.replace(PLACEHOLDER, (_all, body: string) => {
    const p = placeholder(body);
    if (typeof p === 'string') return '';
    const value = at(scope, p.path);
    let text = textOf(value);
    for (const f of p.filters) {
      const arg = f.arg === undefined ? undefined : NUMERIC.includes(f.name) ? Number(f.arg) : f.arg;
      text = (FILTERS[f.name] as (t: string, a: unknown, v: unknown) => string)(text, arg, value);
    }
    return text;
  });
}

/** A template field of a rule: checked when the adapter loads. */
export const Template = z.string().superRefine((t, ctx) => {
  const problem = templateProblem(t);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
