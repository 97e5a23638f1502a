// Where the scripted model is in its plan, as read back from the conversation (replay.ts), and the small
// steps that move it on.

import type { ScriptContext, WorldVerdict } from '../evidence/types.js';
import type { ToolResult } from './conversation.js';
import type { Move } from './ids.js';
import { outcomeOf } from './observe.js';
import type { RouteMemory } from './route-memory.js';

/** Progress through the plan, as read back from the conversation. */
export interface Progress {
  trigger: boolean;
  /** Next position in Steps.owner. */
  owner: number;
  /** Position in Steps.attack of the attacker step being pursued. */
  attack: number;
  /** The route being tried for it (index into the step's strategy routes, strategyRoutes) and that route's next call. */
  route: number;
  part: number;
  /** Text the route's previous call returned (what a read found), for the next call of the route. */
  prior: string;
  /** The attack move whose result has not come back yet. */
  awaiting?: Move;
  /** Attacker calls issued so far (ATTACK_CALL_BUDGET). */
  attackCalls: number;
  /** The step's last route was refused (a strategy's retry route is tried only then). */
  refused?: boolean;
  memory: RouteMemory;
  calls: number;
  /** A second try that comes before any further plan step (the owner's read-then-write). */
  redo?: Move;
  /** What the harness answered to each owner step's last call (by plan index), for the final reply. */
  owner_results: Map<number, StepResult>;
  /** What the owner's last tool search returned (discovery.ts): the next call uses what it found. */
  found: string;
}

/** How the harness answered a call, in the words the final reply uses. */
interface StepResult {
  status: 'done' | 'refused' | 'failed';
  /** The first line of the harness's answer, when not done. */
  text: string;
}

export function stepResult(result: ToolResult, ctx: ScriptContext, world?: WorldVerdict): StepResult {
  const words = result.text.trim().split('\n')[0]!.slice(0, 160);
  const outcome = outcomeOf(result, ctx, world);
  if (outcome === 'executed') return { status: 'done', text: '' };
  // Where the harness said nothing useful, the world's account is the reason.
  const text = words || (world && !world.achieved ? world.reason : '');
  return { status: outcome === 'refused' ? 'refused' : 'failed', text };
}

export const sameMove = (a: Move | undefined, b: Move): boolean =>
  !!a &&
  a.step.role === b.step.role &&
  a.step.index === b.step.index &&
  a.redo === b.redo &&
  a.route === b.route &&
  a.part === b.part;

export const nextStep = (p: Progress): void => {
  p.attack++;
  p.refused = false;
  p.route = 0;
  p.part = 0;
  p.prior = '';
};

export const nextRoute = (p: Progress): void => {
  p.route++;
  p.part = 0;
  p.prior = '';
};
