// zod issues in words an author can act on, shared by every loader (YAML files, check arguments).
import type { z } from 'zod';

export type Issue = z.core.$ZodIssue;

/**
 * An issue in words an author can act on. zod's own text for a record key ("Invalid key in record") and a
 * union ("Invalid input") says that, not what: take the key's own problem, and each union branch's.
 */
export function issueMessage(issue: Issue, at: unknown): string {
  if (issue.code === 'invalid_key' && issue.issues.length) return issueMessage(issue.issues[0]!, at);
  if (issue.code === 'invalid_union' && issue.message === 'Invalid input') {
    const branches = [
      ...new Set(
        issue.errors.map((e) => (e[0] ? `${prefix(e[0].path)}${issueMessage(e[0], undefined)}` : '')),
      ),
    ].filter(Boolean);
    const got = shown(at);
    if (branches.length) return `${branches.join('; or ')}${got}`;
    return `not an allowed value${got}`;
  }
  if (issue.message === 'Invalid input') return `not an allowed value${shown(at)}`;
  const missing = /^Invalid input: expected (\w+), received undefined$/.exec(issue.message);
  if (missing) return `missing: this field is required (${missing[1]})`;
  return issue.message;
}

const prefix = (path: PropertyKey[]) => (path.length ? `${dotted(path)}: ` : '');

function dotted(path: PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}

function shown(v: unknown): string {
  if (v === undefined) return '';
  const text = JSON.stringify(v) ?? String(v);
  return ` (got ${text.length > 60 ? `${text.slice(0, 57)}…` : text})`;
}

/** The value at `path` inside `raw`, for "(got …)". */
export function valueIn(raw: unknown, path: PropertyKey[]): unknown {
  let v = raw;
  for (const p of path) v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}
