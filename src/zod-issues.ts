// zod issues in words an author can act on, shared by every loader (YAML files, check arguments).
import type { z } from 'zod';

export type Issue = z.core.$ZodIssue;

/**
 * An issue in words an author can act on. zod's own text for a record key ("Invalid key in record") and a
 * union ("Invalid input") says that, not what: take the key's own problem, and each union branch's. With
 * the `root` schema the issue's path starts from, an unknown field also gets the name it likely meant.
 */
export function issueMessage(issue: Issue, at: unknown, root?: unknown): string {
  if (issue.code === 'unrecognized_keys' && root !== undefined)
    return `${issue.message}${unknownKeyHint(issue.keys, keysAllowedAt(root, issue.path))}`;
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

type Def = { type: string } & Record<string, unknown>;
const defOf = (s: unknown): Def | undefined => (s as { _zod?: { def?: Def } })?._zod?.def;

/**
 * The field names a schema allows for the object at `path`: every union branch's, through optional,
 * default, pipe, lazy, array and record wrappers. Empty when the path leads to no object.
 */
export function keysAllowedAt(schema: unknown, path: readonly PropertyKey[], depth = 0): string[] {
  const def = defOf(schema);
  if (!def || depth > 64) return [];
  const next = (s: unknown, rest = path) => keysAllowedAt(s, rest, depth + 1);
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, unknown>;
      if (!path.length) return Object.keys(shape);
      const key = String(path[0]);
      return Object.hasOwn(shape, key) ? next(shape[key], path.slice(1)) : [];
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return next(def.innerType);
    case 'pipe':
      return [...new Set([...next(def.in), ...next(def.out)])];
    case 'lazy':
      return next((def.getter as () => unknown)());
    case 'union':
      return [...new Set((def.options as unknown[]).flatMap((o) => next(o)))];
    case 'intersection':
      return [...new Set([...next(def.left), ...next(def.right)])];
    case 'array':
      return path.length ? next(def.element, path.slice(1)) : [];
    case 'record':
      return path.length ? next(def.valueType, path.slice(1)) : [];
    default:
      return [];
  }
}

/** Edit distance (insert, delete, substitute), for "did you mean". */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * The allowed names a mistyped one most likely meant: the same name in another spelling (`homeFiles`,
 * `home-files`), a name it begins or is the start of (`home` → `home_files`), or a near typo.
 */
export function nearestNames(name: string, allowed: readonly string[]): string[] {
  const norm = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  const n = norm(name);
  const scored = allowed.flatMap((a) => {
    const m = norm(a);
    if (m === n) return [{ a, score: 0 }];
    if (n.length >= 3 && (m.startsWith(n) || n.startsWith(m))) return [{ a, score: 1 }];
    const d = distance(n, m);
    return d <= (n.length > 5 ? 2 : n.length >= 3 ? 1 : 0) ? [{ a, score: 1 + d }] : [];
  });
  return scored.sort((x, y) => x.score - y.score || x.a.localeCompare(y.a)).map((s) => s.a);
}

/** " (did you mean X?)" for the allowed name `name` most likely meant, else "". */
export function didYouMean(name: string, allowed: readonly string[]): string {
  const near = nearestNames(name, allowed);
  return near.length ? ` (did you mean ${near[0]}?)` : '';
}

/**
 * What to say after zod's "Unrecognized key": the name it most likely meant, else the names allowed here,
 * so the author need not open the JSON Schema.
 */
export function unknownKeyHint(keys: readonly string[], allowed: readonly string[]): string {
  if (!allowed.length) return '';
  const one = keys.length === 1 ? didYouMean(keys[0]!, allowed) : '';
  if (one) return one;
  const meant = keys.flatMap((k) => {
    const near = nearestNames(k, allowed);
    return near.length ? [`${k} → ${near.slice(0, 2).join(' or ')}`] : [];
  });
  if (meant.length) return ` (did you mean ${meant.join(', ')}?)`;
  const shown = allowed.slice(0, 15).join(', ');
  return `; allowed here: ${shown}${allowed.length > 15 ? `, … (${allowed.length - 15} more)` : ''}`;
}
