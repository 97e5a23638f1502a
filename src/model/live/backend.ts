// Where a trial's answers come from when the model is not the scripted one: a provider (live) or a
// recorded live run (replay). One backend per trial; the endpoint (server.ts) parses, records and encodes
// around it exactly as for the scripted model, so the harness cannot tell the modes apart.
import type { LiveExchange, NormalOutput, RequestShape } from '../../evidence/types.js';
import type { Conversation } from '../conversation.js';
import type { CallLedger } from '../ids.js';
import { sideRequest } from '../side-query.js';
import { type Budget, BudgetExhausted } from './budget.js';
import { callProvider, type ProviderConfig, ProviderError } from './client.js';
import { normalizeOutput, type Placeholders, renderOutput, requestShape, shapeDifference } from './shape.js';

export type BackendAnswer =
  /** Serve `output` (trial values filled in, ids in the harness's format). */
  | { kind: 'output'; output: NormalOutput; live: LiveExchange }
  /** Answer the harness with an error; the trial cannot be measured (provider failure, budget). */
  | { kind: 'error'; status: number; message: string; live: LiveExchange }
  /** Let the scripted model answer (replay after divergence, when asked to continue scripted). */
  | { kind: 'scripted'; live: Omit<LiveExchange, 'output'> };

export type Backend = (
  conv: Conversation,
  ledger: CallLedger,
  signal?: AbortSignal,
) => Promise<BackendAnswer>;

/** One recorded request and its answer, as a live run's result keeps it per trial. */
export interface Recorded {
  request: RequestShape;
  output: NormalOutput;
}

const EMPTY: NormalOutput = { kind: 'text', text: '' };

/**
 * A live trial: every request goes to the provider. Its call ids pass through (the provider pairs its
 * calls with their results by them); a call without one gets a fresh id in the harness's format.
 */
export function providerBackend(cfg: ProviderConfig, budget: Budget, ph: Placeholders): Backend {
  return async (conv, ledger, signal) => {
    const request = requestShape(conv, ph);
    const base = {
      source: 'provider' as const,
      provider: cfg.provider,
      model: cfg.model,
      request,
      // The live model is the reviewer too: the call goes to it like any other, and is marked as one.
      ...(sideRequest(conv, ledger) === 'review' ? { reviewer: true } : {}),
    };
    try {
      const r = await callProvider(conv, cfg, budget, signal);
      const output: NormalOutput =
        r.output.kind === 'text'
          ? { kind: 'text', text: r.output.text }
          : {
              kind: 'tool_calls',
              calls: r.output.calls.map((c) => ({
                id: c.id || ledger.fresh(conv.dialect),
                tool: c.name,
                args: c.args,
              })),
            };
      return {
        kind: 'output',
        output,
        live: { ...base, attempts: r.attempts, usage: r.usage, output: normalizeOutput(output, ph) },
      };
    } catch (e) {
      if (e instanceof BudgetExhausted)
        return {
          kind: 'error',
          status: 400,
          message: e.message,
          live: { ...base, attempts: 0, output: EMPTY, failure: { kind: 'budget', message: e.message } },
        };
      if (e instanceof ProviderError)
        return {
          kind: 'error',
          status: 400,
          message: e.message,
          live: {
            ...base,
            attempts: e.attempts,
            output: EMPTY,
            failure: { kind: 'provider', message: e.message },
          },
        };
      throw e;
    }
  };
}

/**
 * A replayed trial: the n-th request gets the recorded n-th answer when it is the request that was
 * recorded (same tools, same system prompt, same conversation so far, ids aside); a request recorded
 * elsewhere in the trial (a harness that sends a title call in parallel) is matched too. The first
 * request that matches nothing makes the trial diverged; from then on it ends the conversation with an
 * empty reply, or lets the scripted model continue.
 */
export function replayBackend(
  recording: Recorded[],
  ph: Placeholders,
  onDivergence: 'stop' | 'scripted',
): Backend {
  const used = new Set<number>();
  let n = 0;
  let diverged = false;
  return async (conv, ledger) => {
    const request = requestShape(conv, ph);
    const at = n++;
    const reviewer = sideRequest(conv, ledger) === 'review';
    const base = { source: 'replay' as const, request, ...(reviewer ? { reviewer: true } : {}) };
    if (!diverged) {
      const match = [at, ...recording.keys()].find(
        (i) => i < recording.length && !used.has(i) && !shapeDifference(recording[i]!.request, request),
      );
      if (match !== undefined) {
        used.add(match);
        const output = recording[match]!.output;
        return { kind: 'output', output: renderOutput(output, ph), live: { ...base, output } };
      }
      diverged = true;
      const why = recording[at]
        ? shapeDifference(recording[at]!.request, request)!
        : `the recording has ${recording.length} request(s), the harness sent more`;
      const failure = { kind: 'diverged' as const, message: `request ${at + 1}: ${why}` };
      if (onDivergence === 'scripted') return { kind: 'scripted', live: { ...base, failure } };
      return { kind: 'output', output: EMPTY, live: { ...base, output: EMPTY, failure } };
    }
    if (onDivergence === 'scripted') return { kind: 'scripted', live: { ...base, source: 'scripted' } };
    return { kind: 'output', output: EMPTY, live: { ...base, output: EMPTY } };
  };
}
