// The `cache` baseline source: the base branch's latest result, restored from the Actions cache, and the
// result saved there on the default branch (and a paired run's base result, for a re-run). The one
// place a cache key is derived.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type Baseline, parseBaseline, readJsonFile } from '../compare/baseline.js';

/** The subset of @actions/cache used here (injectable for tests). */
export interface CacheApi {
  isFeatureAvailable(): boolean;
  restoreCache(paths: string[], primaryKey: string, restoreKeys?: string[]): Promise<string | undefined>;
  saveCache(paths: string[], key: string): Promise<number>;
}

/** A cache-key component: no commas (forbidden in keys), no whitespace, no control characters. */
export function keyPart(s: string): string {
  return s.replace(/[^A-Za-z0-9._/+=@-]/g, '_').slice(0, 100) || '_';
}

export interface BaselineKeyParts {
  adapter: string;
  config: string;
  /** Branch name (not `refs/heads/…`). */
  ref: string;
  sha: string;
}

/** `harness-risk-baseline-{adapter}-{config}-{ref}-` : the restore prefix for one adapter/config/branch. */
export function baselineKeyPrefix(p: Omit<BaselineKeyParts, 'sha'>): string {
  return `harness-risk-baseline-${keyPart(p.adapter)}-${keyPart(p.config)}-${keyPart(p.ref)}-`;
}

/** `harness-risk-baseline-{adapter}-{config}-{ref}-{sha}`. */
export function baselineKey(p: BaselineKeyParts): string {
  return `${baselineKeyPrefix(p)}${keyPart(p.sha)}`;
}

/**
 * Where the cached baseline file lives, relative to the workspace. The same string must be used to save
 * and to restore (the cache version is derived from the paths).
 */
export function baselineCachePath(adapter: string, config: string): string {
  return join(
    '.harness-risk',
    'baseline',
    `${keyPart(adapter).replace(/\//g, '_')}-${keyPart(config).replace(/\//g, '_')}.json`,
  );
}

export interface CacheRestoreOutcome {
  baseline?: Baseline;
  /** Cache key that matched, when one did. */
  key?: string;
  /** Why there is no baseline, or what to know about it. */
  notices: string[];
}

export async function restoreBaselineFromCache(
  cache: CacheApi,
  parts: BaselineKeyParts,
  cwd = process.cwd(),
  /** Only the entry of exactly this commit (no latest-of-the-branch fallback). */
  exact = false,
): Promise<CacheRestoreOutcome> {
  if (!cache.isFeatureAvailable()) {
    return { notices: ['the Actions cache is not available here, so there is no baseline to compare with'] };
  }
  const rel = baselineCachePath(parts.adapter, parts.config);
  const prefix = baselineKeyPrefix(parts);
  let key: string | undefined;
  try {
    key = await cache.restoreCache([rel], baselineKey(parts), exact ? [] : [prefix]);
  } catch (e) {
    return { notices: [`could not restore the baseline from the Actions cache: ${(e as Error).message}`] };
  }
  if (!key) {
    return {
      notices: [
        `no cached baseline for ${parts.adapter}/${parts.config} on ${parts.ref} yet; add the baseline-refresh workflow (push to ${parts.ref}, save-baseline) so pull requests have one`,
      ],
    };
  }
  try {
    const baseline = parseBaseline(readJsonFile(resolve(cwd, rel), 'cached baseline'), `cache:${key}`);
    // Prefix keys can match a neighbour (adapter "a-b" config "c" vs adapter "a" config "b-c"); check.
    if (
      (baseline.adapter?.name !== undefined && baseline.adapter.name !== parts.adapter) ||
      (baseline.adapter?.config !== undefined && baseline.adapter.config !== parts.config)
    ) {
      return {
        key,
        notices: [
          `the cached baseline ${key} is for ${baseline.adapter?.name}/${baseline.adapter?.config}, not ${parts.adapter}/${parts.config}; ignoring it`,
        ],
      };
    }
    if (key !== baselineKey(parts)) {
      baseline.notices.push(
        `baseline restored from the latest cached run on ${parts.ref} (${baseline.commit?.sha?.slice(0, 7) ?? 'unknown commit'}), not from the merge base itself`,
      );
    }
    return { baseline, key, notices: [] };
  } catch (e) {
    return { key, notices: [`ignoring the cached baseline ${key}: ${(e as Error).message}`] };
  }
}

export interface CacheSaveOutcome {
  saved: boolean;
  key: string;
  message: string;
}

export async function saveBaselineToCache(
  cache: CacheApi,
  resultFile: string,
  parts: BaselineKeyParts,
  cwd = process.cwd(),
): Promise<CacheSaveOutcome> {
  const key = baselineKey(parts);
  if (!cache.isFeatureAvailable())
    return { saved: false, key, message: 'the Actions cache is not available here; baseline not saved' };
  const rel = baselineCachePath(parts.adapter, parts.config);
  const abs = resolve(cwd, rel);
  mkdirSync(dirname(abs), { recursive: true });
  if (resolve(cwd, resultFile) !== abs) copyFileSync(resolve(cwd, resultFile), abs);
  try {
    const id = await cache.saveCache([rel], key);
    if (id === -1)
      return {
        saved: false,
        key,
        message: `baseline not saved under ${key} (the cache refused it; see the log above)`,
      };
    return { saved: true, key, message: `baseline saved to the Actions cache as ${key}` };
  } catch (e) {
    const name = (e as Error).name;
    if (name === 'ReserveCacheError')
      return { saved: false, key, message: `a baseline for this commit is already cached (${key})` };
    return {
      saved: false,
      key,
      message: `could not save the baseline to the Actions cache: ${(e as Error).message}`,
    };
  }
}

/**
 * The cache entry of one adapter and configuration on a branch at a commit: the one derivation of a
 * key's parts. `adapter` is the adapter's name as results record it (never the path it was given), so
 * what is saved under a result's name is found again before the next run.
 */
export function cacheEntry(
  adapter: string,
  config: string,
  branch: string | undefined,
  sha: string | undefined,
): BaselineKeyParts {
  return { adapter, config, ref: branch || 'unknown', sha: sha || 'unknown' };
}
