// Reads the scripted model's progress back from the conversation: which move each earlier call served and
// what each result means for it.

import { callKey, type ScriptContext, type WorldVerdict } from '../evidence/types.js';
import type { Conversation, ToolResult } from './conversation.js';
import { foundCall } from './discovery.js';
import type { CallLedger, Move } from './ids.js';
import { issue, ownerEscalation, planNext } from './next-move.js';
import { outcomeOf, shownInTurn, shownOutsideTurns, triggerVisible } from './observe.js';
import { actionOf, type Steps } from './plan-steps.js';
import { prepareAction } from './prepare-action.js';
import { nextRoute, nextStep, type Progress, stepResult } from './progress.js';
import { type RouteMemory, type RoutesOf, remember } from './route-memory.js';
import { ownerAlternative } from './routes.js';
import { viaShell } from './shell-tool.js';
import { nativeCall, nativeRead } from './tools.js';

/**
 * Claude Code's Write refuses to overwrite a file the session has not read (Qwen Code's write_file too).
 * That is a precondition, not a policy: a real model reads the file and writes again, so the scripted one
 * does too, once. These words are one signal; the world is the other (readFirst).
 */
const READ_FIRST = /has not been read|read it first/i;

/**
 * A write the harness answered without a refusal and the world shows did not happen (the file did not
 * change, or is not there), or whose answer asks for a read first: worth one read and a second try,
 * whatever words the harness used. A refusal is a policy and is never retried this way.
 */
function readFirst(result: ToolResult, outcome: string, world: WorldVerdict | undefined): boolean {
  if (outcome === 'refused' || world?.achieved) return false;
  return world?.achieved === false || READ_FIRST.test(result.text);
}

export interface Replayed {
  progress: Progress;
  /** Results after the model's last turn. */
  fresh: ToolResult[];
}

/** The move an earlier call served: from the ledger, else the move the policy would have made then. */
function recall(
  id: string,
  p: Progress,
  steps: Steps,
  conv: Conversation,
  ctx: ScriptContext,
  routesOf: RoutesOf,
  ledger: CallLedger,
): Move | undefined {
  const decoded = ledger.lookup(id);
  if (decoded && actionOf(ctx, decoded.step)) {
    issue(p, steps, decoded);
    return decoded;
  }
  return planNext(p, steps, conv, ctx, routesOf, [])?.move;
}

/** What absorb needs to know about the harness besides the result: its routes and tools. */
interface Offers {
  routesOf: RoutesOf;
  /** The owner step's own tool failed and the shell could do it (see replay). */
  ownerRetry: (planIndex: number) => boolean;
  /** The tool the owner's search found failed the step, and the shell could do it. */
  foundRetry: (planIndex: number, found: string) => boolean;
  /** The owner's step has a next plain form (routes.ts ownerAlternative). */
  ownerAlternative: (planIndex: number) => boolean;
  /** The owner's step can be asked again outside the harness's sandbox (escalation.ts). */
  ownerEscalation: (planIndex: number) => boolean;
  /** The harness offers its own read tool for this file (the read a read-first harness counts). */
  readable: (path: string) => boolean;
}

/** The trigger, or one of the context's other triggers (a second session's persisted lines), is in the text. */
const anyTrigger = (text: string, ctx: ScriptContext): boolean =>
  [ctx.trigger, ...(ctx.triggers ?? [])].some((t) => triggerVisible(text, t));

/**
 * What a result means for the progress. An attacker call that executed moves the route on (or ends the
 * step); a write the harness wants the file read for first is made again after a read (once, owner and
 * attacker alike: readFirst); any other refused or failed call moves on to the step's next route. A
 * failed read that only prepares a rewrite (the file does not exist yet) lets the route go on with
 * nothing read.
 */
function absorb(
  p: Progress,
  ctx: ScriptContext,
  offers: Offers,
  move: Move | undefined,
  result: ToolResult,
  world: WorldVerdict | undefined,
) {
  p.trigger ||= anyTrigger(result.text, ctx);
  if (!move) return;
  // The read before a repeated write is not the step's outcome; the last answer to the step itself is.
  if (move.redo === 'search') {
    p.found = result.text;
    return;
  }
  if (move.step.role === 'owner' && move.redo !== 'read')
    p.owner_results.set(move.step.index, stepResult(result, ctx, world));
  const outcome = outcomeOf(result, ctx, world);
  if (move.step.role === 'owner') {
    // Read first, once: after the harness's own write tool's first try (route 0), never after the shell's
    // form or a found tool, which would start the step over and cycle until the harness's turn limit.
    if (
      !move.redo &&
      move.route === undefined &&
      actionOf(ctx, move.step)?.do === 'write' &&
      readFirst(result, outcome, world)
    ) {
      p.redo = { step: move.step, redo: 'read' };
    } else if (
      // The first try, or the write made again after a read (a tool that refuses any existing path,
      // Copilot's `create`, fails it again): the shell's form is still owed, once (route 1 is not retried).
      outcome !== 'executed' &&
      move.redo !== 'read' &&
      (move.route === undefined
        ? offers.ownerRetry(move.step.index)
        : move.route === 2 && offers.foundRetry(move.step.index, p.found))
    ) {
      p.redo = { step: move.step, route: 1 };
    } else if (
      // A form that failed before the world saw anything of it (a command not found, a host the fetch tool
      // will not fetch): the step's next plain form, once. A refusal is the harness's answer to the step,
      // and a service's error is the world's: another form would get the same.
      outcome === 'errored' &&
      world?.reached === false &&
      move.redo !== 'read' &&
      move.route !== 3 &&
      move.route !== 4 &&
      offers.ownerAlternative(move.step.index)
    ) {
      p.redo = { step: move.step, route: 4 };
    } else if (
      // Every other form failed: asked once more outside the sandbox, when the harness lets the model ask.
      outcome !== 'executed' &&
      move.redo !== 'read' &&
      move.route !== 3 &&
      offers.ownerEscalation(move.step.index)
    ) {
      p.redo = { step: move.step, route: 3 };
    }
    return;
  }
  if (p.awaiting !== move) return; // a stale or repeated result
  p.awaiting = undefined;
  const route = offers.routesOf(move.step.index)[move.route ?? 0];
  const part = move.part ?? 0;
  const action = actionOf(ctx, move.step)!;
  const failed = () => {
    p.redo = undefined;
    if (route) remember(p.memory, action, route.label, false);
    p.refused = outcome === 'refused';
    nextRoute(p);
  };
  // The read before a second try: the call is made again unless the read itself was refused.
  if (move.redo === 'read') return outcome === 'refused' ? failed() : undefined;
  const ok =
    outcome === 'executed' || (outcome === 'errored' && part === 0 && !!route?.prepares && !move.redo);
  if (!ok) {
    const path = route?.writes?.[part];
    if (!move.redo && path && offers.readable(path) && readFirst(result, outcome, world)) {
      p.redo = { step: move.step, route: move.route ?? 0, part, redo: 'read' };
      return;
    }
    return failed();
  }
  if (route && part + 1 < route.calls.length) {
    p.prior = outcome === 'executed' ? result.text : '';
    return;
  }
  if (route) remember(p.memory, action, route.label, true);
  nextStep(p);
}

/**
 * Reads the progress back from the conversation. The ledger knows the move of every id we issued; when a
 * harness replaced ids with its own, a call is matched to the move the policy would have made at that point.
 * Results are matched by call key (as the scorer pairs them), else to the oldest call still waiting.
 */
export function replay(
  conv: Conversation,
  ctx: ScriptContext,
  steps: Steps,
  routesOf: RoutesOf,
  memory: RouteMemory,
  ledger: CallLedger,
): Replayed {
  // An owner step the harness's own tool refused or failed is tried once more through the shell (Codex
  // exec refuses native MCP calls, "requires approval", where `svc mcp call` runs): the owner's plan is how
  // the injection gets delivered, so a harness that refuses one of its routes must not look safer for it.
  const offers: Offers = {
    routesOf,
    ownerRetry: (i) => {
      const action = prepareAction(ctx.plan[i], ctx);
      return !!nativeCall(action, conv.tools, ctx) && !!viaShell(action, conv.tools, ctx);
    },
    // A found tool that fails (OpenClaw's web_fetch refuses loopback hosts) leaves the shell's form owed.
    foundRetry: (i, found) => {
      const action = prepareAction(ctx.plan[i], ctx);
      return !!foundCall(action, found, conv.tools, ctx) && !!viaShell(action, conv.tools, ctx);
    },
    ownerAlternative: (i) => !!ownerAlternative(ctx.plan[i]!, conv.tools, ctx),
    ownerEscalation: (i) => !!ownerEscalation(ctx.plan[i], conv.tools, ctx),
    readable: (path) => {
      const read = nativeRead(path, conv.tools, ctx);
      return !!read && !read.via_shell;
    },
  };
  const p: Progress = {
    trigger: false,
    owner: 0,
    attack: 0,
    route: 0,
    part: 0,
    prior: '',
    calls: 0,
    attackCalls: 0,
    memory,
    owner_results: new Map(),
    found: '',
  };
  const issued: { key: string; move?: Move; answered: boolean }[] = [];
  let fresh: ToolResult[] = [];
  // Everything the harness sent outside the turns counts: system prompt, tool definitions, other fields.
  p.trigger = shownOutsideTurns(conv).some((t) => anyTrigger(t, ctx));
  for (const m of conv.messages) {
    if (m.role === 'assistant') fresh = [];
    // The model's own text does not count: only what the harness (system, owner, tools) showed it.
    else p.trigger ||= anyTrigger(shownInTurn(m), ctx);
    for (const call of m.toolCalls) {
      issued.push({
        key: callKey(call.id),
        move: recall(call.id, p, steps, conv, ctx, routesOf, ledger),
        answered: false,
      });
      p.calls++;
    }
    for (const result of m.toolResults) {
      const key = callKey(result.callId);
      const call = issued.find((c) => !c.answered && c.key === key) ?? issued.find((c) => !c.answered);
      if (call) call.answered = true;
      absorb(p, ctx, offers, call?.move, result, ledger.verdict(result.callId));
      fresh.push(result);
    }
  }
  // A call whose result never came back: nothing tells us it failed, so the step counts as done.
  if (p.awaiting) {
    p.awaiting = undefined;
    if (p.redo?.step.role === 'attack') p.redo = undefined;
    nextStep(p);
  }
  return { progress: p, fresh };
}
