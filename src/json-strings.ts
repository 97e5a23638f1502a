// One walk over a JSON-shaped value: the engine renders a case's world through it, the live model shapes
// tool arguments, the bisect rewrites an adapter's paths for another harness version.

/** Every string of a JSON-shaped value, rewritten by `f` (objects and arrays rebuilt, keys and other values kept). */
export function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)]));
  return value;
}
