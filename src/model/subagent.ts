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

/** `{a: {b: value}}` for the dotted path `a.b`. */
function nested(path: string, value: unknown): Record<string, unknown> {
  return path
    .split('.')
    .reduceRight<Record<string, unknown>>(
      (inner, key, i, keys) => ({ [key]: i === keys.length - 1 ? value : inner }),
      {},
    );
}

/**
 * The sub-agent's report as the call that finishes it, when the adapter's `delegate` hint says its
 * sub-agents end only by a tool call (`finish`) and this request offers that tool; else undefined (the
 * report is a text answer). A harness such as Gemini CLI fails a sub-agent that answers with text.
 */
export function finishCall(
  report: string,
  conv: Conversation,
  ctx: ScriptContext,
): { tool: string; args: Record<string, unknown> } | undefined {
  const finish = ctx.tool_hints.delegate?.finish;
  if (!finish) return undefined;
  const tool = conv.tools.find((t) => t.callable && t.name === finish.name);
  return tool ? { tool: tool.name, args: nested(finish.arg, report) } : undefined;
}
