// Merging run results of shards (or of several `run-result` files) into one result for one report.
import { UserError } from '../errors.js';
import { runUsage, sampled, summarize } from '../score/summarize.js';
import type { RunnerInfo, RunResult } from '../spec/run-result.js';

/**
 * One run result from one or several. Even a single result is re-summarised from its trials: a stored
 * summary is never trusted (a file can be edited after the run).
 *
 * One run result from several of the same adapter, configuration, runner and model mode. Cases and
 * trials are united by id (the first occurrence wins; shards never overlap). The summary is recomputed
 * with the engine's own aggregation.
 */
export function mergeRunResults(results: RunResult[], names: string[] = []): RunResult {
  if (results.length === 0)
    throw new UserError('no run result to merge', 'give at least one file in run-result');
  const [first] = results;
  const label = (i: number) => names[i] ?? `run result #${i + 1}`;
  results.forEach((r, i) => {
    const mismatch =
      r.adapter.name !== first!.adapter.name
        ? `adapter ${r.adapter.name} ≠ ${first!.adapter.name}`
        : r.adapter.config !== first!.adapter.config
          ? `config ${r.adapter.config} ≠ ${first!.adapter.config}`
          : r.model.mode !== first!.model.mode
            ? `model ${r.model.mode} ≠ ${first!.model.mode}`
            : undefined;
    if (mismatch) {
      throw new UserError(
        `${label(i)} cannot be merged with ${label(0)}: ${mismatch}`,
        'merge only the shards of one adapter/config (one report per adapter/config)',
      );
    }
  });
  const cases = new Map<string, RunResult['cases'][number]>();
  const trials = new Map<string, RunResult['trials'][number]>();
  for (const r of results) {
    for (const c of r.cases) if (!cases.has(c.id)) cases.set(c.id, c);
    for (const t of r.trials) if (!trials.has(t.id)) trials.set(t.id, t);
  }
  const allTrials = [...trials.values()].sort((a, b) => a.id.localeCompare(b.id));
  const started = results.map((r) => r.started_at).sort()[0]!;
  const finished = results
    .map((r) => r.finished_at)
    .filter((x): x is string => !!x)
    .sort()
    .at(-1);
  const { attestation: _signedOne, ...rest } = first!;
  return {
    ...rest,
    // What contained the merge is what contained its weakest part.
    ...(first!.containment ? { containment: weakestContainment(results) } : {}),
    status: results.every((r) => r.status === 'complete') ? 'complete' : 'interrupted',
    started_at: started,
    ...(finished ? { finished_at: finished } : {}),
    model: { ...first!.model, seeds: Math.max(...results.map((r) => r.model.seeds)) },
    // Merged shards are the whole selection (the gate proves it); one result keeps its own record.
    ...(first!.selection
      ? {
          selection:
            results.length > 1
              ? { digest: first!.selection.digest, cases: first!.selection.cases }
              : first!.selection,
        }
      : {}),
    cases: [...cases.values()],
    trials: allTrials,
    summary: summarize(allTrials, sampled(first!.model.mode)),
    ...runUsage(allTrials),
  };
}

/** Uncontained, then unverified (or not recorded), then contained: the weakest claim wins. */
const RANK: Record<string, number> = { uncontained: 0, unverified: 1, namespaces: 2, container: 2 };

export function weakestContainment(results: RunResult[]): RunnerInfo {
  const claims = results.map(
    (r) =>
      r.containment ?? {
        name: r.runner,
        containment: 'unverified' as const,
        mechanism: 'not recorded',
        claimed: 'not recorded',
        reason: 'a merged result records no containment',
      },
  );
  return claims.reduce((a, b) => ((RANK[b.containment] ?? 1) < (RANK[a.containment] ?? 1) ? b : a));
}
