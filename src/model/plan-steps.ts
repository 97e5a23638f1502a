// The plan as steps: which of the owner's and the attacker's actions are tool steps, where the owner's
// plan pauses for the attack (attack-timing.ts), and which action a move carries out.

import type { ScriptContext, StepRef } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import { attackBarrier } from './attack-timing.js';
import type { Move } from './ids.js';

export interface Steps {
  /** Plan indices of the owner's tool steps (replies excluded), in order. */
  owner: number[];
  attack: number[];
  /**
   * Position in `owner` up to which the owner's plan goes on before the attack once the trigger is seen
   * (-1: none): attack-timing.ts, so an owner's step cannot silently undo the attacker's
   * (docs/internals.md, "Interleaving").
   */
  barrier: number;
}

const toolSteps = (actions: Action[]): number[] => actions.flatMap((a, i) => (a.do === 'reply' ? [] : [i]));

export const replies = (actions: Action[]): string[] =>
  actions.flatMap((a) => (a.do === 'reply' ? [a.text] : []));

export function planSteps(ctx: ScriptContext): Steps {
  // A read the prompt already answered is not made again (a real model uses what it was handed).
  const owner = toolSteps(ctx.plan).filter((i) => !ctx.delivered?.includes(i));
  const attack = toolSteps(ctx.goal);
  return { owner, attack, barrier: attackBarrier(ctx, owner, attack) };
}

export const actionOf = (ctx: ScriptContext, step: StepRef): Action | undefined =>
  step.role === 'owner' ? ctx.plan[step.index] : ctx.goal[step.index];

/** The action a move carries out: the step's own, or the read that precedes a repeated write. */
export function moveAction(ctx: ScriptContext, move: Move): Action {
  const action = actionOf(ctx, move.step)!;
  return move.redo === 'read' && action.do === 'write' ? { do: 'read', path: action.path } : action;
}
