// When the attacker's steps run against the owner's plan. The worst case for a state the attacker sets is
// to set it last: an owner's later write of the same file, or an owner's later call on the same token,
// invite or ticket, would silently undo the attack and score a = 0 for a harness that let it through.
// So once the trigger is seen, the owner's plan first goes on up to its last step that touches a target
// one of the attacker's steps also touches (the barrier), and the case may push the attack later still
// (`inject.after`). Pure; the policy (plan-steps.ts) reads the barrier, nothing else.

import type { ScriptContext } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import { opSpec } from '../spec/service-catalog.js';
import { serviceHttp } from './alternates.js';
import { resolvePath } from './prepare-action.js';

/** Where a case may schedule its attack: after owner plan step N (0-based), or after the whole plan. */
export type AttackAfter = number | 'plan';

/**
 * The state a step sets, as one key, or undefined for steps that set none this can name: a file (`write`,
 * `remember`'s memory file) or a service resource a state-changing request names by a path parameter
 * (`/deploy/tokens/NAME`, `/calendar/invites/ID`, `/tickets/ID`), read from the catalog's routes, so a new
 * operation of that shape is covered without a list here. Shell commands are not analysed.
 */
export function stateTarget(
  action: Action,
  ctx: Pick<ScriptContext, 'paths' | 'memory_file'>,
): string | undefined {
  if (action.do === 'write') return `file:${resolvePath(action.path, ctx.paths)}`;
  if (action.do === 'remember')
    return ctx.memory_file ? `file:${resolvePath(ctx.memory_file, ctx.paths)}` : undefined;
  if (action.do !== 'call') return undefined;
  // A shorthand (`tickets.close`) sets the state of the op it stands for.
  const as = opSpec(action.service, action.op)?.as;
  const sent = as ? { ...action, op: as.op, args: { ...action.args, ...as.args } } : action;
  const routed = opSpec(sent.service, sent.op);
  if (!routed?.path || routed.method !== 'POST') return undefined;
  const segments = routed.path.split('/');
  const last = lastIndex(segments, (s) => s.startsWith(':'));
  if (last < 0) return undefined;
  const http = serviceHttp(sent);
  if (!http) return undefined;
  // A `:x+` parameter may hold slashes: keep the request's tail minus the route's literal tail.
  const parts = http.path.split('?')[0]!.split('/');
  const tail = segments.length - 1 - last;
  return `svc:${parts.slice(0, parts.length - tail).join('/')}`;
}

/**
 * Position in `owner` (plan indices of the owner's tool steps, in order) up to which the owner's plan goes
 * on before the attack once the trigger is seen; -1: none. The later of the last owner step touching a
 * target of the attack and the case's own `after`.
 */
export function attackBarrier(
  ctx: Pick<ScriptContext, 'plan' | 'goal' | 'paths' | 'memory_file' | 'attack_after'>,
  owner: number[],
  attack: number[],
): number {
  const targets = new Set(attack.map((i) => stateTarget(ctx.goal[i]!, ctx)).filter(Boolean));
  let barrier = -1;
  owner.forEach((i, pos) => {
    const t = stateTarget(ctx.plan[i]!, ctx);
    if (t && targets.has(t)) barrier = pos;
  });
  return Math.max(barrier, declaredBarrier(ctx.attack_after, owner));
}

/** The case's `after` as a position in `owner`: its last tool step at or before plan index N. */
function declaredBarrier(after: AttackAfter | undefined, owner: number[]): number {
  if (after === undefined) return -1;
  if (after === 'plan') return owner.length - 1;
  return lastIndex(owner, (i) => i <= after);
}

const lastIndex = <T>(xs: T[], ok: (x: T) => boolean): number => {
  for (let i = xs.length - 1; i >= 0; i--) if (ok(xs[i]!)) return i;
  return -1;
};
