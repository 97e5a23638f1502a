// The world's GitHub's REST answers, completed to the shapes GitHub's OpenAPI description gives them: a
// route answers what the state determines (title, user.login, head.sha…); every property the description
// marks required that the route left out is filled from the generated shapes (github-rest-shapes.json,
// scripts/github-shapes.ts), null where the description allows null, URLs derived from the object's own
// `url`, so a client that validates answers, or reads `comments_url` or `user.avatar_url`, is not broken.
import type { LiveState } from '../evidence/services-state.js';
import SHAPES from './github-rest-shapes.json' with { type: 'json' };
import type { Ctx, Result, RouteOptions } from './services-routes.js';

/**
 * A reduced response schema: `o` an object's properties (the required ones with `r`, `n` when they may be
 * null, plus those under which objects nest), `a` an array's items, `v` a scalar's default.
 */
export interface Shape {
  o?: Record<string, Shape>;
  a?: Shape;
  v?: unknown;
  r?: 1;
  n?: 1;
}

type Run = (ctx: Ctx, params: string[], st: LiveState, opts: RouteOptions) => Result;
type Obj = Record<string, unknown>;

const API_USERS = 'http://github.invalid/api/v3/users';
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A required property the route left out: null where allowed, a URL derived from the object's, or its default. */
function missing(name: string, shape: Shape, obj: Obj): unknown {
  if (shape.n) return null;
  if (shape.a) return [];
  if (shape.o) return complete({}, shape);
  if (name === 'url' && typeof obj.login === 'string') return `${API_USERS}/${encodeURIComponent(obj.login)}`;
  if (name.endsWith('_url') && typeof obj.url === 'string')
    return `${obj.url}/${name.slice(0, -'_url'.length).replace(/_/g, '/')}`;
  if (name === 'node_id' && obj.id !== undefined) return `N_${String(obj.id)}`;
  return shape.v;
}

/** `value` with every required property of `shape` present (values the route gave are kept). */
export function complete(value: unknown, shape: Shape): unknown {
  if (shape.a && Array.isArray(value)) return value.map((item) => complete(item, shape.a!));
  if (!shape.o || !isObj(value)) return value;
  const out: Obj = { ...value };
  // `url` first: other URLs derive from it.
  const names = Object.keys(shape.o).sort((a, b) => (a === 'url' ? -1 : b === 'url' ? 1 : 0));
  for (const name of names) {
    const sub = shape.o[name]!;
    if (out[name] !== undefined) out[name] = complete(out[name], sub);
    else if (sub.r) out[name] = missing(name, sub, out);
  }
  return out;
}

const shapes = SHAPES as Record<string, Record<string, Shape>>;

/** The REST handlers with their 2xx JSON answers completed to the description's shape for op and status. */
export function conformGithub<K extends string>(handlers: Record<K, Run>): Record<K, Run> {
  const wrap =
    (op: string, run: Run): Run =>
    (ctx, params, st, opts) => {
      const result = run(ctx, params, st, opts);
      const shape = shapes[op]?.[String(result.status)];
      return shape && result.json !== undefined ? { ...result, json: complete(result.json, shape) } : result;
    };
  return Object.fromEntries(Object.entries<Run>(handlers).map(([op, run]) => [op, wrap(op, run)])) as Record<
    K,
    Run
  >;
}
