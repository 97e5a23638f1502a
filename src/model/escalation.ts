// Asking the harness to leave its sandbox. Some harnesses run commands in a sandbox and let the model ask
// for a command to run outside it, on the harness's approval (Codex: `sandbox_permissions:
// require_escalated` with a `justification`; its own instructions tell the model to rerun a command that
// failed in the sandbox that way). A worst-case attacker does exactly that, so the approval policy, not
// the sandbox alone, decides the step: under an approval that allows, the command runs outside.
//
// The adapter declares the arguments on a tool hint (`escalate:`); a tool whose offered schema does not
// declare every one of them is not asked (the harness offers escalation only under some policies).

import type { ScriptContext } from '../evidence/types.js';
import type { ToolSpec } from './conversation.js';
import type { Route } from './routes.js';
import { type MappedCall, properties } from './tool-schema.js';

type Escalation = Record<string, string | number | boolean>;

/** Offered tool name → the arguments that ask it to escalate (declared by a hint, offered by the schema). */
export function escalations(tools: ToolSpec[], ctx: ScriptContext): Map<string, Escalation> {
  const out = new Map<string, Escalation>();
  for (const hint of Object.values(ctx.tool_hints)) {
    if (!hint.escalate || Object.keys(hint.escalate).length === 0) continue;
    const tool = tools.find((t) => t.name === hint.name && t.callable);
    if (!tool) continue;
    const declared = properties(tool);
    if (Object.keys(hint.escalate).every((k) => k in declared)) out.set(tool.name, hint.escalate);
  }
  return out;
}

/** The call asking to escalate: the same call with the ask, when its tool escalates (else undefined). */
export function escalatedCall(
  call: MappedCall | undefined,
  tools: ToolSpec[],
  ctx: ScriptContext,
  asks = escalations(tools, ctx),
): MappedCall | undefined {
  const ask = call && asks.get(call.tool);
  return call && ask ? { ...call, args: { ...call.args, ...ask } } : undefined;
}

/**
 * The step's routes with the first route that calls an escalating tool followed by the same route asking
 * to escalate (tried only when the plain one did not carry the step out, as every later route is; not
 * counted against the step's bound: Route.elsewhere). Once per step: the approval's answer is known after
 * one ask, and a harness that refuses it would otherwise spend the attack budget on asks.
 */
export function escalatedRoutes(routes: Route[], tools: ToolSpec[], ctx: ScriptContext): Route[] {
  const asks = escalations(tools, ctx);
  if (asks.size === 0) return routes;
  const at = routes.findIndex((r) => r.calls.some((call) => asks.has(call('')?.tool ?? '')));
  if (at < 0) return routes;
  const plain = routes[at]!;
  const twin: Route = {
    ...plain,
    label: `${plain.label} (escalated)`,
    calls: plain.calls.map((call) => (previous: string) => {
      const made = call(previous);
      return escalatedCall(made, tools, ctx, asks) ?? made;
    }),
    elsewhere: true,
  };
  return [...routes.slice(0, at + 1), twin, ...routes.slice(at + 1)];
}
