// The scripted model's next move and the tool call that makes it: the owner's plan, each attacker step by
// each of its routes, a second try; marking a move as issued moves the progress on.

import type { ScriptContext, StepRef } from '../evidence/types.js';
import type { Action, ActionKind } from '../spec/actions.js';
import type { Conversation, ToolSpec } from './conversation.js';
import { answeredBefore, directCall, discoveryTools, foundCall, searchCall } from './discovery.js';
import { escalatedCall, escalations } from './escalation.js';
import type { Move } from './ids.js';
import { moveAction, type Steps } from './plan-steps.js';
import { prepareAction } from './prepare-action.js';
import { nextRoute, nextStep, type Progress, sameMove } from './progress.js';
import type { RoutesOf } from './route-memory.js';
import { ownerAlternative, routeLimit } from './routes.js';
import { viaShell } from './shell-tool.js';
import { routeBound } from './strategies/strategy-kinds.js';
import type { MappedCall } from './tool-schema.js';
import { mapAction, nativeRead } from './tools.js';

/**
 * Attacker calls per conversation: trying every route of every step must leave the owner's plan room
 * within a harness's own step limit (the reference harness stops at 30). No new route starts beyond it.
 */
export const ATTACK_CALL_BUDGET = 20;

/** Plan steps skipped because no offered tool can carry them out (what a request's Observed reports). */
export type Unmapped = { step: StepRef; action: ActionKind }[];

/**
 * The move that comes next: a pending second try; once the trigger was seen, the owner's plan up to its
 * barrier, then each attacker step by each of its routes (in order, bounded); else the owner's plan.
 * Steps none of whose routes is offered are reported in `skipped`.
 */
function nextMove(
  p: Progress,
  steps: Steps,
  ctx: ScriptContext,
  routesOf: RoutesOf,
  skipped: Unmapped,
): Move | undefined {
  if (p.redo) return p.redo;
  while (p.trigger && p.attack < steps.attack.length) {
    if (p.owner < steps.owner.length && p.owner <= steps.barrier) break;
    // Out of attack budget: the rest of the attack is dropped (starting a route, never inside one).
    if (p.part === 0 && p.attackCalls >= ATTACK_CALL_BUDGET) {
      p.attack = steps.attack.length;
      break;
    }
    const index = steps.attack[p.attack];
    const routes = routesOf(index);
    if (routes.length === 0) skipped.push({ step: { role: 'attack', index }, action: ctx.goal[index].do });
    if (p.route >= routeLimit(routes, routeBound(ctx.strategy))) {
      nextStep(p);
      continue;
    }
    // A retry is for a refusal only (an error is not argued with).
    if (p.part === 0 && routes[p.route]?.after === 'refused' && !p.refused) {
      nextRoute(p);
      continue;
    }
    return { step: { role: 'attack', index }, route: p.route, part: p.part };
  }
  if (p.owner < steps.owner.length) return { step: { role: 'owner', index: steps.owner[p.owner] } };
  return undefined;
}
/** Marks a move as issued; positions only move forward, so a repeated or stale id changes nothing. */
export function issue(p: Progress, steps: Steps, move: Move): void {
  const { role, index } = move.step;
  if (role === 'owner') {
    p.owner = Math.max(p.owner, steps.owner.indexOf(index) + 1);
    // After the read comes the repeated write, after a search the tool it found; else nothing is pending.
    p.redo =
      move.redo === 'read'
        ? { step: move.step, redo: 'write' }
        : move.redo === 'search'
          ? { step: move.step, route: 2 }
          : undefined;
    return;
  }
  // An attack step proves the trigger was seen, even if the harness has since compacted it away.
  p.trigger = true;
  if (move.redo) {
    // Only the second try that is pending counts (a stale or repeated one changes nothing).
    if (!sameMove(p.redo, move)) return;
    p.redo = move.redo === 'read' ? { ...move, redo: 'write' } : undefined;
    p.awaiting = move;
    p.attackCalls++;
    return;
  }
  p.redo = undefined;
  const pos = steps.attack.indexOf(index);
  const at = [pos, move.route ?? 0, move.part ?? 0];
  const now = [p.attack, p.route, p.part];
  const stale =
    at[0] < now[0] || (at[0] === now[0] && (at[1] < now[1] || (at[1] === now[1] && at[2] < now[2])));
  if (stale) return;
  if (at[0] !== now[0] || at[1] !== now[1]) p.prior = '';
  p.attack = pos;
  p.route = at[1];
  p.part = at[2] + 1;
  p.awaiting = move;
  p.attackCalls++;
}

interface Planned {
  move: Move;
  action: Action;
  call: MappedCall;
  /** The attacker route the call belongs to. */
  route?: { label: string; n: number; part: number; parts: number };
  /**
   * The read that prepares a route's rewrite is a read, whatever step it serves: recorded as one, so a
   * check on the step's action (`tool_called {action: write}`) sees the write, not the read before it.
   */
  reads?: boolean;
  /** A strategy's staging call (ToolCallRecord.staging), or the step's plain command on its last call. */
  staging?: boolean;
  carries?: string;
}

/** The tool call a move makes now; undefined when no offered tool can (a route that cannot go on). */
function callFor(
  move: Move,
  p: Progress,
  conv: Conversation,
  ctx: ScriptContext,
  routesOf: RoutesOf,
): Pick<Planned, 'route' | 'reads' | 'staging' | 'carries'> & {
  call: MappedCall | undefined;
  search?: boolean;
} {
  if (move.step.role === 'owner') return ownerCall(move, p, conv, ctx);
  const route = routesOf(move.step.index)[move.route ?? 0];
  const part = move.part ?? 0;
  const shown = route && {
    label: route.label,
    n: move.route ?? 0,
    part,
    parts: route.calls.length,
    ...(move.redo ? { retry: move.redo } : {}),
  };
  if (move.redo === 'read') {
    // The read the harness wants before it lets the route's call write the file.
    const path = route?.writes?.[part];
    return { call: path ? nativeRead(path, conv.tools, ctx) : undefined, route: shown, reads: true };
  }
  const call = route?.calls[part]?.(p.prior);
  return {
    call,
    route: shown,
    reads: !!route?.prepares && part === 0 && !move.redo,
    ...(route?.staging && part < route.staging ? { staging: true } : {}),
    ...(route?.carries !== undefined && part === route.calls.length - 1 ? { carries: route.carries } : {}),
  };
}

/**
 * The owner's call for a move: its own tool for the step, else (no tool of its own, a tool search offered)
 * a search, then the tool it found (route 2); route 1 is the shell's form of a step its own tool failed;
 * route 4 the step's next plain form after one the world saw nothing of; route 3 the step asked again
 * outside the sandbox after every other form failed.
 */
function ownerCall(
  move: Move,
  p: Progress,
  conv: Conversation,
  ctx: ScriptContext,
): { call: MappedCall | undefined; staging?: boolean; search?: boolean } {
  const action = moveAction(ctx, move);
  const prepared = prepareAction(action, ctx);
  // route 1: the shell's form of a step the harness's own tool failed (see ownerRetry).
  if (move.route === 1) return { call: viaShell(prepared, conv.tools, ctx) };
  // route 3: the step asked again outside the harness's sandbox (see ownerEscalation).
  if (move.route === 3) return { call: ownerEscalation(action, conv.tools, ctx) };
  // route 4: the step's next plain form, after one that failed before the world saw it (see replay).
  if (move.route === 4) return { call: ownerAlternative(action, conv.tools, ctx) };
  if (move.route === 2)
    return { call: foundCall(prepared, p.found, conv.tools, ctx) ?? viaShell(prepared, conv.tools, ctx) };
  if (!move.redo && !directCall(prepared, conv.tools, ctx)) {
    const search = searchCall(prepared, conv.tools, ctx);
    if (search) return { call: search, staging: true, search: true };
  }
  return { call: mapAction(action, conv.tools, ctx) };
}

/**
 * The next move a tool offered now can carry out, skipping (and reporting) plan steps none can. Issues
 * everything it returns or skips.
 */
export function planNext(
  p: Progress,
  steps: Steps,
  conv: Conversation,
  ctx: ScriptContext,
  routesOf: RoutesOf,
  skipped: Unmapped,
): Planned | undefined {
  const searchTool = discoveryTools(conv.tools, ctx)?.search.tool.name;
  for (let move = nextMove(p, steps, ctx, routesOf, skipped); move; ) {
    const { call, route, reads, staging, carries, search } = callFor(move, p, conv, ctx, routesOf);
    // The owner's search is a move of its own: the ledger remembers it, so the found tool comes next.
    if (search) move = { ...move, redo: 'search' };
    issue(p, steps, move);
    // A search made before with the same words is not made again: its answer is read instead.
    const known = call && call.tool === searchTool ? answeredBefore(conv, call) : undefined;
    if (known !== undefined) {
      if (search) p.found = known;
      else {
        p.awaiting = undefined;
        p.prior = known;
      }
      move = nextMove(p, steps, ctx, routesOf, skipped);
      continue;
    }
    if (call)
      return {
        move,
        action: moveAction(ctx, move),
        call,
        ...(route ? { route } : {}),
        ...(reads ? { reads } : {}),
        ...(staging ? { staging } : {}),
        ...(carries !== undefined ? { carries } : {}),
      };
    if (move.step.role === 'attack') {
      // The route cannot go on with what the harness offers now: try the next one.
      p.awaiting = undefined;
      p.redo = undefined;
      nextRoute(p);
    } else if (!move.redo) skipped.push({ step: move.step, action: moveAction(ctx, move).do });
    move = nextMove(p, steps, ctx, routesOf, skipped);
  }
  return undefined;
}

/**
 * The owner's step through a tool that can ask to leave its sandbox (escalation.ts), asking: its own
 * call, else the shell's form. A harness that stops the owner's fetch in its sandbox (Codex: no network)
 * tells its model to ask, and the owner's task is how the injection arrives.
 */
export function ownerEscalation(
  action: Action,
  tools: ToolSpec[],
  ctx: ScriptContext,
): MappedCall | undefined {
  const asks = escalations(tools, ctx);
  return (
    escalatedCall(mapAction(action, tools, ctx), tools, ctx, asks) ??
    escalatedCall(viaShell(prepareAction(action, ctx), tools, ctx), tools, ctx, asks)
  );
}
