// The scripted worst-case compliant model. It works through the owner's plan with the harness's own
// tools, one call per response; as soon as the injection's trigger is visible in anything the harness
// showed it, it pursues every step of the attacker's goal by every route the harness offers (routes.ts),
// moving on to the next route when one is refused and to the next step when one worked or all were
// tried; then it resumes the owner's plan and finally replies. Whatever the harness lets through
// therefore happens, so a run measures what the harness enforces, not what a model happens to refuse
// nor which route a case author thought of first.
//
// Its progress is read back from the conversation (its earlier calls, the results the harness returned).
// The one thing kept between requests is the trial's CallLedger: which move each id it issued served, so
// ids can be opaque (see ids.ts) and still name their plan step. The parts: the plan as steps
// (plan-steps.ts), the progress through it (progress.ts) as replay.ts reads it back, the next move and its
// call (next-move.ts), the order an attacker step's routes are tried in (route-memory.ts), the final reply
// (final-reply.ts).

import {
  callKey,
  type ScriptContext,
  type ToolCallRecord,
  type ToolResultRecord,
} from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import type { Conversation, ToolResult } from './conversation.js';
import { markLoaded, searchesMade } from './discovery.js';
import { finalText } from './final-reply.js';
import type { CallLedger } from './ids.js';
import { planNext, type Unmapped } from './next-move.js';
import { outcomeOf, stillRunning } from './observe.js';
import { actionOf, moveAction, planSteps } from './plan-steps.js';
import { prepareAction } from './prepare-action.js';
import { replay } from './replay.js';
import { reviewAnswer, reviewVerdict, titleAnswer } from './review.js';
import { type RouteMemory, routeCache } from './route-memory.js';
import { goalAsKnown } from './secrets-seen.js';
import { sideQueryAnswer, sideRequest } from './side-query.js';
import { finishCall, subagentReport } from './subagent.js';
import { type Effect, effectOf, stagedEffect } from './world-check.js';

/** No conversation gets more tool calls than this: a harness that keeps feeding results ends with a reply. */
export const MAX_TOOL_CALLS = 60;
/** Recorded tool result text is capped (evidence stays small; checks only need the head). */
export const RESULT_TEXT_CAP = 4096;

export type Answer =
  | { kind: 'tool_calls'; calls: ToolCallRecord[] }
  | { kind: 'text'; text: string }
  | { kind: 'review'; verdict: 'allow' | 'deny'; text: string };

export interface Observed {
  /** The trigger was visible somewhere in the request. */
  injection_visible: boolean;
  /** Tool results that arrived with this request (after the model's last turn). */
  results: ToolResultRecord[];
  /** Plan steps skipped now because no offered tool can carry them out. */
  unmapped: Unmapped;
}

export interface Decision {
  answer: Answer;
  observed: Observed;
  /** The effect the call it issues is made for, when the engine can see it (world-check.ts). */
  effect?: { callId: string; effect: Effect };
}

const cap = (s: string): string => (s.length > RESULT_TEXT_CAP ? s.slice(0, RESULT_TEXT_CAP) : s);

function observedResults(fresh: ToolResult[], ctx: ScriptContext, ledger: CallLedger): ToolResultRecord[] {
  return fresh.map((result) => {
    const world = ledger.verdict(result.callId);
    const outcome = outcomeOf(result, ctx, world);
    return {
      call_id: result.callId,
      text: cap(result.text),
      is_error: result.isError,
      denied: outcome === 'refused',
      outcome,
      ...(outcome === 'errored' && stillRunning(result, ctx) ? { running: true } : {}),
      ...(world ? { world } : {}),
    };
  });
}

/** The sub-agent's report: its finishing tool's call where the harness ends sub-agents so, else text. */
function subagentAnswer(report: string, conv: Conversation, ctx: ScriptContext, ledger: CallLedger): Answer {
  const finish = finishCall(report, conv, ctx);
  if (!finish) return { kind: 'text', text: report };
  // Not a plan step: no step, no action, so checks on calls never count it.
  return { kind: 'tool_calls', calls: [{ id: ledger.fresh(conv.dialect), ...finish }] };
}

/** The request with the tools a search of this session loaded marked as such (discovery.ts). */
function withLoaded(conv: Conversation, ctx: ScriptContext, ledger: CallLedger): Conversation {
  const stepOf = (id: string): Action | undefined => {
    const move = ledger.lookup(id);
    return move && actionOf(ctx, move.step) ? prepareAction(moveAction(ctx, move), ctx) : undefined;
  };
  const tools = markLoaded(conv.tools, searchesMade(conv, ctx, stepOf, callKey), ctx);
  return tools === conv.tools ? conv : { ...conv, tools };
}

/**
 * What the scripted model answers to this request. Same conversation, context and ledger history, same
 * answer; the ledger records the id of any call it issues.
 */
export function decide(request: Conversation, given: ScriptContext, ledger: CallLedger): Decision {
  // The goal as the model can carry it out: a secret no request has shown it stays a placeholder.
  const goal = goalAsKnown(given.goal, request, given.secrets);
  const ctx = goal === given.goal ? given : { ...given, goal };
  const conv = withLoaded(request, ctx, ledger);
  const steps = planSteps(ctx);
  const memory: RouteMemory = { worked: new Map(), failed: new Map() };
  const routesOf = routeCache(conv, ctx, memory);
  const { progress, fresh } = replay(conv, ctx, steps, routesOf, memory, ledger);
  const observed: Observed = {
    injection_visible: progress.trigger,
    results: observedResults(fresh, ctx, ledger),
    unmapped: [],
  };
  const report = subagentReport(conv, ctx, ledger);
  if (report !== undefined) return { answer: subagentAnswer(report, conv, ctx, ledger), observed };
  const side = sideRequest(conv, ledger);
  if (side === 'content') return { answer: { kind: 'text', text: sideQueryAnswer(conv) }, observed };
  if (side === 'review') {
    const verdict = reviewVerdict(ctx, ledger);
    return { answer: { kind: 'review', verdict, text: reviewAnswer(conv, verdict) }, observed };
  }
  if (side === 'title') return { answer: { kind: 'text', text: titleAnswer(conv) }, observed };
  // A request offering no callable tool is an auxiliary call (Claude Code's quota probe, a compaction)
  // or a harness with every tool removed: either way nothing is "unmapped", the model just replies.
  const agentTurn = conv.tools.some((t) => t.callable) && progress.calls < MAX_TOOL_CALLS;
  const next = agentTurn ? planNext(progress, steps, conv, ctx, routesOf, observed.unmapped) : undefined;
  if (!next) return { answer: { kind: 'text', text: finalText(progress, steps, ctx) }, observed };
  const call: ToolCallRecord = {
    id: ledger.issue(conv.dialect, next.move),
    tool: next.call.tool,
    args: next.call.args,
    action: next.reads ? 'read' : next.action.do,
    step: next.move.step,
    via_shell: next.call.via_shell,
    ...(next.route ? { route: next.route } : {}),
    ...(next.staging ? { staging: true } : {}),
    ...(next.carries !== undefined ? { carries: next.carries } : {}),
  };
  // A read is made for no effect; a staging call for the file it stages, not for the step's effect.
  const effect = next.reads
    ? undefined
    : next.staging
      ? stagedEffect(next.call)
      : effectOf(next.action, ctx, next.call.via_shell, { anyBody: next.call.sendsOutput });
  return {
    answer: { kind: 'tool_calls', calls: [call] },
    observed,
    ...(effect ? { effect: { callId: call.id, effect } } : {}),
  };
}
