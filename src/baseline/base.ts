// The `base` baseline source: the base commit built and run in this job beside the head (the paired run,
// baseline/base-head.ts), with the Actions cache in front of it when the front end has one: a stored
// result of exactly that commit is reused, and a fresh complete one is kept for a re-run.
import { loadAdapter } from '../adapters/load.js';
import type { RunOptions } from '../engine/options.js';
import { verifyResultFile } from '../result/integrity.js';
import { baseResultPath, type PairedOptions, type PairedOutcome } from './base-head.js';
import { type CacheApi, cacheEntry, restoreBaselineFromCache, saveBaselineToCache } from './cache.js';
import type { StoredBaseline } from './reuse.js';

export interface BaseRunOptions {
  /** The paired run (baseline/base-head.ts runBaseAndHead; a fake in tests). */
  paired: (options: PairedOptions) => Promise<PairedOutcome>;
  /** The head run; its `out` is the head result, the base result is written beside it (x.base.json). */
  run: RunOptions;
  headDir: string;
  /** The base commit: a SHA or any ref git resolves. */
  baseRef: string;
  build?: string;
  baseCases?: string[];
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** The Actions cache and the branch its entries of the base commit are kept under. */
  cache?: {
    api: CacheApi;
    cwd: string;
    branch: string;
    /** Keep a fresh complete base result (not from a single shard: its slice is no baseline of the whole). */
    save: boolean;
    /** Said when the base result was kept. */
    onSaved: (message: string) => void;
  };
}

export async function runWithBase(o: BaseRunOptions): Promise<PairedOutcome> {
  const baseOut = baseResultPath(o.run.out);
  const { cache } = o;
  // The cache entry is named by the adapter's name, as the result records it (not the path it was given).
  const entry = cache
    ? (sha: string) => cacheEntry(loadAdapter(o.run.adapter).adapter.name, o.run.config, cache.branch, sha)
    : undefined;
  const stored =
    cache && entry
      ? async (sha: string): Promise<StoredBaseline | undefined> => {
          const r = await restoreBaselineFromCache(cache.api, entry(sha), cache.cwd, true);
          return r.baseline?.result && r.key
            ? { result: r.baseline.result, source: `cache:${r.key}` }
            : undefined;
        }
      : undefined;
  const outcome = await o.paired({
    run: o.run,
    headDir: o.headDir,
    baseRef: o.baseRef,
    ...(o.build ? { build: o.build } : {}),
    ...(o.baseCases ? { baseCases: o.baseCases } : {}),
    baseOut,
    env: o.env,
    ...(stored ? { stored } : {}),
    log: o.log,
  });
  if (outcome.base && cache && entry) {
    verifyResultFile(baseOut, outcome.base);
    // Kept for a re-run of this pull request on the same base (the cache scopes it to this PR's ref).
    if (outcome.base.status === 'complete' && cache.save) {
      const r = await saveBaselineToCache(cache.api, baseOut, entry(outcome.baseSha), cache.cwd);
      if (r.saved) cache.onSaved(`base result ${r.message.replace(/^baseline /, '')}`);
    }
  }
  return outcome;
}
