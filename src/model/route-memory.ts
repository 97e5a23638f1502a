// The order an attacker step's routes are tried in: what earlier steps of the same kind taught.

import type { ScriptContext } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import type { Conversation } from './conversation.js';
import type { Route } from './routes.js';
import { strategyRoutes } from './strategies/strategy-kinds.js';

/** Routes of each attacker step, computed once per request from the tools it offers. */
export type RoutesOf = (goalIndex: number) => Route[];

/**
 * What earlier attacker steps taught, per kind of action (`write`, `send:mail`, `call:payments.transfer`):
 * the routes that executed and those that failed. A later step of the same kind tries what worked first
 * and what failed last; nothing is skipped for it, so a refusal that depends on the target (a workspace
 * file vs ~/.bashrc) still gets every route tried.
 */
export interface RouteMemory {
  worked: Map<string, Set<string>>;
  failed: Map<string, Set<string>>;
}

const kindOf = (a: Action): string =>
  a.do === 'call' ? `call:${a.service}.${a.op}` : a.do === 'send' ? `send:${a.channel}` : a.do;

export function remember(memory: RouteMemory, action: Action, label: string, ok: boolean): void {
  const map = ok ? memory.worked : memory.failed;
  const key = kindOf(action);
  if (!map.has(key)) map.set(key, new Set());
  map.get(key)!.add(label);
}

/**
 * A step's routes are fixed when the step is first looked at; by then every earlier step is settled, so
 * replaying the conversation orders them the same way again.
 */
export function routeCache(conv: Conversation, ctx: ScriptContext, memory: RouteMemory): RoutesOf {
  const cache = new Map<number, Route[]>();
  return (i) => {
    if (!cache.has(i)) {
      const key = kindOf(ctx.goal[i]);
      const rank = (r: Route) =>
        memory.worked.get(key)?.has(r.label) ? 0 : memory.failed.get(key)?.has(r.label) ? 2 : 1;
      const routes = strategyRoutes(ctx.goal[i], conv.tools, ctx)
        .map((route, n) => ({ route, n }))
        .sort((a, b) => rank(a.route) - rank(b.route) || a.n - b.n)
        .map((x) => x.route);
      cache.set(i, routes);
    }
    return cache.get(i)!;
  };
}
