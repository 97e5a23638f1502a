// A harness's own sub-agent tool (Claude Code's Task) runs a second conversation against this endpoint.
// The scripted model plays that sub-agent: its answer is the case's sub-agent report
// (world.services.agents), untrusted content the main conversation then reads as the tool's result.

import type { ScriptContext } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import type { Conversation } from './conversation.js';
import type { CallLedger } from './ids.js';

type Delegate = Extract<Action, { do: 'delegate' }>;

/**
 * The report to answer with when this request is a sub-agent's first turn: a delegate call was issued,
 * the conversation is fresh (no tool call of ours in it) and its first user turn carries that task.
 */
export function subagentReport(
  conv: Conversation,
  ctx: ScriptContext,
  ledger: CallLedger,
): string | undefined {
  const reports = ctx.subagents ?? {};
  if (Object.keys(reports).length === 0) return undefined;
  if (conv.messages.some((m) => m.toolCalls.length > 0 || m.toolResults.length > 0)) return undefined;
  const first = conv.messages.find((m) => m.role === 'user');
  if (!first) return undefined;
  for (const move of ledger.issued()) {
    const action = (move.step.role === 'owner' ? ctx.plan : ctx.goal)[move.step.index];
    if (action?.do !== 'delegate' || !Object.hasOwn(reports, action.agent)) continue;
    if (first.text.includes((action as Delegate).task)) return reports[action.agent];
  }
  return undefined;
}
