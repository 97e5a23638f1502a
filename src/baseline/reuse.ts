// The stored base result as a baseline source: a result of exactly the base commit (from the Actions
// cache) saves building and running the base tree, when it measured exactly what the base tree would.
import type { RunnerEntry } from '../engine/runners.js';
import type { HarnessInfo, RunResult } from '../spec/run-result.js';

const short = (sha: string) => sha.slice(0, 12);

export interface StoredBaseline {
  result: RunResult;
  /** Where it came from (`cache:KEY`, `file:PATH`). */
  source: string;
}

export interface ReuseWanted {
  sha: string;
  toolVersion: string;
  runner: RunnerEntry['records'];
  image?: string;
  adapter: { name: string; config: string; digest?: string };
  model: { mode: string; seeds: number };
  /** Every case (id → revision) the base tree would run. */
  cases: Map<string, string>;
}

/** Why a stored result is not a baseline of exactly this comparison; undefined when it is. */
export function reuseProblem(stored: RunResult, want: ReuseWanted): string | undefined {
  if (stored.status !== 'complete') return `it is ${stored.status}`;
  if (stored.source.sha !== want.sha)
    return `it measured ${stored.source.sha ? short(stored.source.sha) : 'an unknown commit'}, not the base ${short(want.sha)}`;
  if (stored.tool.version !== want.toolVersion)
    return `it was measured by harness-risk-action ${stored.tool.version}, this is ${want.toolVersion}`;
  if (stored.runner !== want.runner)
    return `it ran on the ${stored.runner} runner, this run uses ${want.runner}`;
  if (want.image && stored.image?.name !== want.image)
    return `it ran in image ${stored.image?.name ?? '(none)'}, this run uses ${want.image}`;
  if (stored.adapter.name !== want.adapter.name || stored.adapter.config !== want.adapter.config)
    return `it is ${stored.adapter.name}/${stored.adapter.config}, not ${want.adapter.name}/${want.adapter.config}`;
  if (want.adapter.digest && stored.adapter.digest !== want.adapter.digest)
    return 'its adapter folder differs from this one';
  if (stored.model.mode !== want.model.mode || stored.model.seeds < want.model.seeds)
    return `it ran the ${stored.model.mode} model with ${stored.model.seeds} seed(s), this run ${want.model.mode} with ${want.model.seeds}`;
  const have = new Map(stored.cases.map((c) => [c.id, c.revision]));
  const missing = [...want.cases].filter(([id]) => !have.has(id));
  if (missing.length) return `it lacks ${missing.length} of the selected case(s) (${missing[0]![0]}…)`;
  const moved = [...want.cases].filter(([id, rev]) => have.get(id) !== rev);
  if (moved.length) return `${moved.length} case(s) changed revision since (${moved[0]![0]}…)`;
  return undefined;
}

/** `3 h`, `2 days`: how long ago `iso` was. */
export function ageText(iso: string | undefined, now = Date.now()): string {
  const t = iso ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(t)) return 'age unknown';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 120) return `${s} s old`;
  if (s < 7200) return `${Math.round(s / 60)} min old`;
  if (s < 2 * 86400) return `${Math.round(s / 3600)} h old`;
  return `${Math.round(s / 86400)} days old`;
}

/**
 * Why a stored baseline of another harness version is no baseline of this run; undefined when it is.
 * Another version is the point of a pull request that bumps the harness (the baseline measured the pin
 * the bump starts from); otherwise the baseline is stale (measured before an earlier bump) and comparing
 * would blame this change for what the other version does.
 */
export function harnessReuseProblem(
  stored: HarnessInfo | undefined,
  now: HarnessInfo | undefined,
  bump?: { package: string; from: string; to: string },
): string | undefined {
  if (!stored?.version || !now?.version) return undefined;
  if (stored.package === now.package && stored.version === now.version) return undefined;
  const was = `${stored.package ?? 'harness'} ${stored.version}`;
  const is = `${now.package ?? 'harness'} ${now.version}`;
  if (bump && bump.package === now.package && bump.from === stored.version && bump.to === now.version)
    return undefined;
  return bump
    ? `it measured ${was}, this run ${is}, but this pull request bumps ${bump.package} ${bump.from} → ${bump.to}`
    : `it measured ${was}, this run ${is}, and this pull request does not bump the harness (refresh the baseline on the base branch)`;
}
