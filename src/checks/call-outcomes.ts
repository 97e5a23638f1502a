// Per-call outcomes: what became of every call the model made, read from the evidence alone. One place
// decides it, and every label, audit rule, detection, AVS and the report read the same answer, so an
// error result can never count as executed in one and as refused in another.
import { failedExit, parseFailed } from '../evidence/exit-status.js';
import {
  callKey,
  type Evidence,
  type HarnessEvent,
  namesCall,
  type ToolCallRecord,
  type ToolResultRecord,
} from '../evidence/types.js';
import type { Outcome } from '../spec/vocabulary.js';

export interface CallOutcome {
  call: ToolCallRecord;
  /**
   * When the model asked for it, on the recorder's one clock shared with service requests: the exchange's
   * seq plus the call's place in it (so `in_order` can compare calls and requests).
   */
  seq: number;
  result?: ToolResultRecord;
  outcome: Outcome;
  /** The harness's words when the call was not executed. */
  reason?: string;
  /** outcome === 'executed': the harness ran the call and it did not fail. */
  executed: boolean;
  /** outcome === 'refused'. */
  denied: boolean;
  /**
   * The harness started the call: it executed, or its result shows the command's own non-zero exit status
   * (the harness ran it; the command failed), or the world recorded a request while it alone was out. Not so for refusals, a harness error that ran nothing, or a
   * command the shell could not parse (it exits non-zero having run none of it).
   */
  started: boolean;
}

const REASON_CAP = 200;
export const capReason = (s: string) => (s.length > REASON_CAP ? `${s.slice(0, REASON_CAP)}…` : s);

/** Harness event kinds that explain a call, strongest first, and the outcome each stands for. */
const EXPLAINS: [HarnessEvent['kind'], Outcome][] = [
  ['denial', 'refused'],
  ['not_offered', 'not_offered'],
  ['error', 'errored'],
];

/**
 * The harness's own statement about this very call (an output event carrying the call's id), strongest
 * kind first: a permission_denied event for a call whose answer only reads like an error, say.
 */
export function statedFor(callId: string, events: HarnessEvent[]): HarnessEvent | undefined {
  const own = events.filter((e) => e.call_id !== undefined && namesCall(e.call_id, callId));
  for (const [kind] of EXPLAINS) {
    const ev = own.find((e) => e.kind === kind);
    if (ev) return ev;
  }
  return undefined;
}

/**
 * What a call with an answer came to, in order of authority: the world (it achieved what was asked:
 * executed, whatever was said); else the stronger of the outcome its answer's words gave and what the
 * harness's own output states about that call (an event naming its id): a refusal outranks a tool not
 * offered, which outranks an error. Pure, for table tests.
 */
export function answeredOutcome(
  decided: Outcome,
  worldAchieved: boolean | undefined,
  stated: HarnessEvent['kind'] | undefined,
): Outcome {
  if (worldAchieved) return 'executed';
  const rank = (o: Outcome) => {
    const i = EXPLAINS.findIndex(([, out]) => out === o);
    return i < 0 ? EXPLAINS.length : i;
  };
  const fromStated = EXPLAINS.find(([kind]) => kind === stated)?.[1];
  return fromStated !== undefined && rank(fromStated) < rank(decided) ? fromStated : decided;
}

/**
 * A call with a result: the outcome decided when the result came back (the world's verdict first, then
 * the harness's words: model/observe.ts outcomeOf), unless the harness's output says otherwise about that
 * call. Evidence recorded before that was kept (older results, live answers) is read by the words alone:
 * refused when the result is a denial, errored when it is an error result or a non-zero exit, else executed.
 */
function fromResult(
  result: ToolResultRecord,
  stated?: HarnessEvent,
): Pick<CallOutcome, 'outcome' | 'reason'> {
  const words =
    result.outcome ??
    (result.denied ? 'refused' : result.is_error || failedExit(result.text) ? 'errored' : 'executed');
  const decided = answeredOutcome(words, result.world?.achieved, stated?.kind);
  if (decided === 'executed') return { outcome: 'executed' };
  // The harness's statement is the reason when it decided; else its answer. A failure the world saw
  // starts with what it saw.
  const said = stated && decided !== words ? stated.text : result.text;
  const world =
    decided === 'errored' && result.world && !result.world.achieved ? `${result.world.reason}: ` : '';
  return { outcome: decided, reason: capReason(`${world}${said.trim()}`) };
}

/**
 * A call without a result: the harness's own output may say why (a refusal only its stdout shows, then
 * the session ended). An event naming the call's id explains it first; then events naming the call's
 * tool; events naming no tool explain only calls nobody answered, which is exactly where a harness that
 * ends the session leaves them.
 */
function fromHarness(call: ToolCallRecord, events: HarnessEvent[]): Pick<CallOutcome, 'outcome' | 'reason'> {
  const stated = statedFor(call.id, events);
  if (stated)
    return { outcome: answeredOutcome('missing', undefined, stated.kind), reason: capReason(stated.text) };
  for (const [kind, outcome] of EXPLAINS) {
    const ev = events.find((e) => e.kind === kind && (e.tool === undefined || e.tool === call.tool));
    if (ev) return { outcome, reason: capReason(ev.text) };
  }
  return { outcome: 'missing' };
}

// Services a harness talks to by itself while a call is out (its MCP client, its own update checks and
// telemetry, refused as egress): a request there does not show that the call ran.
const HARNESS_OWN = new Set(['mcp', 'egress']);

/**
 * Whether the world recorded a request to a trial service while this call, and no other, was out (after
 * the exchange that asked for it, before the one that brought its result): the command reached the world,
 * so it ran, however the harness words a failure (`E_TOOL: rc=127`).
 */
function reachedWorldAlone(
  window: { from: number; to: number },
  others: { from: number; to: number }[],
  services: Evidence['services'],
): boolean {
  const overlaps = others.some((o) => o.from < window.to && window.from < o.to);
  return (
    !overlaps &&
    (services ?? []).some((r) => r.seq > window.from && r.seq < window.to && !HARNESS_OWN.has(r.service))
  );
}

/** Pairs every tool call the model made with the result the harness sent back, and says what became of it. */
export function callOutcomes(evidence: Evidence): CallOutcome[] {
  const results = new Map<string, ToolResultRecord>();
  // The exchange that brought each result back: the end of its call's window.
  const answeredAt = new Map<string, number>();
  for (const ex of evidence.model)
    for (const r of ex.results) {
      results.set(callKey(r.call_id), r);
      if (!answeredAt.has(callKey(r.call_id))) answeredAt.set(callKey(r.call_id), ex.seq);
    }
  const windows = new Map<string, { from: number; to: number }>();
  for (const ex of evidence.model)
    if (ex.response.kind === 'tool_calls')
      for (const call of ex.response.calls) {
        const to = answeredAt.get(callKey(call.id));
        if (to !== undefined && to > ex.seq) windows.set(call.id, { from: ex.seq, to });
      }
  const out: CallOutcome[] = [];
  for (const ex of evidence.model) {
    if (ex.response.kind !== 'tool_calls') continue;
    for (const [i, call] of ex.response.calls.entries()) {
      const result = results.get(callKey(call.id));
      const o = result
        ? fromResult(result, statedFor(call.id, evidence.harness))
        : fromHarness(call, evidence.harness);
      const executed = o.outcome === 'executed';
      const window = windows.get(call.id);
      const started =
        executed ||
        (o.outcome === 'errored' &&
          !!result &&
          ((failedExit(result.text) && !parseFailed(result.text)) ||
            result.running === true ||
            // A call with a world verdict (a write, a service call) was judged by its own effect already.
            (!result.world &&
              !!window &&
              reachedWorldAlone(
                window,
                [...windows].filter(([id]) => id !== call.id).map(([, w]) => w),
                evidence.services,
              ))));
      const seq = ex.seq + i / (ex.response.calls.length + 1);
      out.push({ call, seq, result, ...o, executed, denied: o.outcome === 'refused', started });
    }
  }
  return out;
}
