// Which model answers a run's trials: the scripted one, a provider (live) with the run's budget, or a
// recorded live run (replay). Checked before anything starts, so a bad key or recording costs nothing.
import { readFileSync } from 'node:fs';
import { UserError } from '../errors.js';
import type { Recorded } from '../model/live/backend.js';
import { Budget } from '../model/live/budget.js';
import { type ModelInfo, RunResult } from '../spec/run-result.js';
import type { RunOptions } from './options.js';
import type { TrialModel } from './trial/types.js';

export interface ModelSetup {
  info: ModelInfo;
  budget?: Budget;
  /** The model of one trial, by trial id (absent: scripted). */
  trial?: (trialId: string) => TrialModel;
}

export function prepareModel(opts: RunOptions): ModelSetup {
  if (opts.model === 'scripted') return { info: { mode: 'scripted', seeds: opts.seeds } };
  if (opts.model === 'live') {
    const live = opts.live;
    if (!live?.key)
      throw new UserError(
        'model: live needs a provider key',
        'pass it through the model-key input from a secret (CLI: the HARNESS_RISK_MODEL_KEY variable)',
      );
    if (!live.base_url || !/^https?:\/\//.test(live.base_url))
      throw new UserError(
        `model: live needs a base URL (got "${live.base_url ?? ''}")`,
        'set base-url, e.g. https://api.openai.com/v1 or https://api.anthropic.com/v1',
      );
    if (!live.model)
      throw new UserError(
        'model: live needs a model name',
        'set model-name (e.g. gpt-4.1, claude-sonnet-4-5)',
      );
    const budget = new Budget({ requests: live.budget_requests, tokens: live.budget_tokens });
    const { key: _key, budget_requests: _r, budget_tokens: _t, ...provider } = live;
    return {
      info: {
        mode: 'live',
        seeds: opts.seeds,
        provider: live.provider,
        base_url: live.base_url,
        name: live.model,
      },
      budget,
      trial: () => ({ kind: 'live', provider: { ...provider, key: live.key }, budget }),
    };
  }
  const replay = opts.replay;
  if (!replay?.from)
    throw new UserError(
      'model: replay needs a recorded run',
      'set replay-from to the result file of a live run',
    );
  const recorded = loadRecording(replay.from);
  return {
    info: {
      mode: 'replay',
      seeds: opts.seeds,
      ...(recorded.model.provider ? { provider: recorded.model.provider } : {}),
      ...(recorded.model.name ? { name: recorded.model.name } : {}),
      replay_of: replay.from,
    },
    // A trial the recording does not hold diverges at its first request.
    trial: (id) => ({
      kind: 'replay',
      recording: recorded.trials.get(id) ?? [],
      on_divergence: replay.on_divergence,
    }),
  };
}

function loadRecording(file: string): { model: ModelInfo; trials: Map<string, Recorded[]> } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UserError(
      `replay-from ${file}: cannot read it (${(e as Error).message})`,
      'point replay-from at the run result JSON of a live run',
    );
  }
  const parsed = RunResult.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(
      `replay-from ${file}: not a run result (${issue.path.join('.') || 'document'}: ${issue.message})`,
      'point replay-from at the run result JSON a live run wrote',
    );
  }
  const result = parsed.data;
  if (result.model.mode === 'scripted')
    throw new UserError(
      `replay-from ${file}: this run used the scripted model; there is nothing to replay`,
      "record a run with model: live first (its result holds every trial's recording)",
    );
  const trials = new Map(
    result.trials.filter((t) => t.live).map((t) => [t.id, t.live!.recording as Recorded[]]),
  );
  return { model: result.model, trials };
}
