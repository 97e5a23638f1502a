// Baselines: the run result a new run is compared with. Loaded from a committed file or restored from
// the Actions cache (the base branch's latest result), and saved to the cache on the default branch.
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { UserError } from '../errors.js';
import { attestedContainment, verifyingKeys } from '../result/attestation.js';
import { sampled, summarize } from '../score/summarize.js';
import { RESULT_SCHEMA_VERSION, RunResult } from '../spec/run-result.js';
import { Phase } from '../spec/vocabulary.js';
import { issueMessage } from '../zod-issues.js';

/** A trial as far as comparison needs it; older schema versions give at least this. */
export interface ComparableTrial {
  case_id: string;
  case_revision?: string;
  phase: Phase;
  seed: number;
  valid: boolean;
  /** The entry point never reached the harness (absent in older results). */
  not_applicable?: string;
  labels: { a: boolean; p: boolean };
}

export interface ComparableCase {
  id: string;
  revision?: string;
  phase: Phase;
  title?: string;
}

export interface Baseline {
  /** Where it came from: `file:PATH` or `cache:KEY`. */
  source: string;
  schemaVersion: number;
  /**
   * `full`: same schema as this version, every metric is compared.
   * `labels`: an older schema; only per-case attack and persistence labels are compared.
   */
  level: 'full' | 'labels';
  /** The whole run result when `level` is `full`. */
  result?: RunResult;
  adapter?: { name?: string; config?: string };
  model?: { mode?: string; seeds?: number };
  commit?: { sha?: string; ref?: string };
  status?: string;
  cases: ComparableCase[];
  trials: ComparableTrial[];
  /** Things the reader of the report should know about this baseline. */
  notices: string[];
}

/** What older schema versions are guaranteed to hold (v0 drafts and anything before the current one). */
const LegacyResult = z
  .object({
    schema_version: z.number().int().nonnegative(),
    status: z.string().optional(),
    adapter: z.object({ name: z.string().optional(), config: z.string().optional() }).loose().optional(),
    model: z.object({ mode: z.string().optional(), seeds: z.number().optional() }).loose().optional(),
    source: z.object({ sha: z.string().optional(), ref: z.string().optional() }).loose().optional(),
    cases: z
      .array(
        z
          .object({
            id: z.string(),
            revision: z.string().optional(),
            phase: Phase,
            title: z.string().optional(),
          })
          .loose(),
      )
      .optional(),
    trials: z.array(
      z
        .object({
          case_id: z.string(),
          case_revision: z.string().optional(),
          phase: Phase,
          seed: z.number().int().optional(),
          valid: z.boolean(),
          labels: z.object({ a: z.boolean(), p: z.boolean().optional() }).loose(),
        })
        .loose(),
    ),
  })
  .loose();

function issuesText(error: z.ZodError, max = 5): string {
  const lines = error.issues
    .slice(0, max)
    .map((i) => `${i.path.length ? i.path.join('.') : '(top level)'}: ${issueMessage(i, undefined)}`);
  if (error.issues.length > max) lines.push(`(${error.issues.length - max} more problems)`);
  return lines.join('; ');
}

/** Parses and validates a current-schema run result (a shard, a `run-result` input, a baseline). */
export function parseRunResult(raw: unknown, where: string): RunResult {
  const version = (raw as { schema_version?: unknown } | null)?.schema_version;
  if (typeof version !== 'number') {
    throw new UserError(
      `${where}: not a harness-risk run result (no schema_version)`,
      'point at the JSON file the action or `harness-risk run --out` wrote',
    );
  }
  if (version !== RESULT_SCHEMA_VERSION) {
    throw new UserError(
      `${where}: run result schema v${version}, this version of harness-risk-action reads v${RESULT_SCHEMA_VERSION}`,
      version > RESULT_SCHEMA_VERSION
        ? 'upgrade harness-risk-action'
        : 'run the cases again with this version',
    );
  }
  const parsed = RunResult.safeParse(raw);
  if (!parsed.success) {
    throw new UserError(
      `${where}: invalid run result: ${issuesText(parsed.error)}`,
      'regenerate the file with `harness-risk run --out`; do not edit it by hand',
    );
  }
  // The summary is derived from the trials, never read: a file whose summary disagrees with its own
  // trials (edited, or rewritten by a hostile harness) reports what its trials say. Its containment is
  // a claim this engine believes only with a valid attestation (else `unverified`).
  return {
    ...parsed.data,
    containment: attestedContainment(raw, parsed.data, verifyingKeys()),
    summary: summarize(parsed.data.trials, sampled(parsed.data.model.mode)),
  };
}

export function readJsonFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(
      `${path}: cannot read the ${what}${code === 'ENOENT' ? ': no such file' : `: ${(e as Error).message}`}`,
      'check the path (relative paths are from the workspace)',
    );
  }
  try {
    // A byte-order mark (Windows editors, PowerShell's Out-File) is not part of the JSON: skip it.
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new UserError(
      `${path}: the ${what} is not valid JSON: ${(e as Error).message}`,
      'regenerate it with `harness-risk run --out`',
    );
  }
}

export function readRunResultFile(path: string): RunResult {
  return parseRunResult(readJsonFile(path, 'run result'), path);
}

/** A baseline from a current-schema run result. */
export function baselineFromResult(result: RunResult, source: string): Baseline {
  const notices: string[] = [];
  if (result.status !== 'complete') {
    notices.push(`the baseline run is ${result.status}; cases it did not finish are compared as new`);
  }
  return {
    source,
    schemaVersion: result.schema_version,
    level: 'full',
    result,
    adapter: { name: result.adapter.name, config: result.adapter.config },
    model: result.model,
    commit: { sha: result.source.sha, ref: result.source.ref },
    status: result.status,
    cases: result.cases.map((c) => ({ id: c.id, revision: c.revision, phase: c.phase, title: c.title })),
    trials: result.trials.map((t) => ({
      case_id: t.case_id,
      case_revision: t.case_revision,
      phase: t.phase,
      seed: t.seed,
      valid: t.valid,
      ...(t.not_applicable ? { not_applicable: t.not_applicable } : {}),
      labels: { a: t.labels.a, p: t.labels.p },
    })),
    notices,
  };
}

/**
 * Any parsed JSON → a baseline. The current schema is compared in full; an older one is compared on
 * per-case attack/persistence labels with an explicit notice; a newer one, or one without the fields
 * a comparison needs, is refused with a message that says what to do.
 */
export function parseBaseline(raw: unknown, source: string): Baseline {
  const where = `baseline ${source}`;
  const version = (raw as { schema_version?: unknown } | null)?.schema_version;
  if (typeof version !== 'number' || !Number.isInteger(version)) {
    throw new UserError(
      `${where}: not a harness-risk run result (no schema_version)`,
      'use a file written by the action (output result-path) or by `harness-risk run --out`',
    );
  }
  if (version > RESULT_SCHEMA_VERSION) {
    throw new UserError(
      `${where}: baseline schema v${version} is newer than this version of harness-risk-action reads (v${RESULT_SCHEMA_VERSION})`,
      'upgrade the action (uses: …@v1 → latest), or regenerate the baseline with this version',
    );
  }
  if (version === RESULT_SCHEMA_VERSION) return baselineFromResult(parseRunResult(raw, where), source);

  const legacy = LegacyResult.safeParse(raw);
  if (!legacy.success) {
    throw new UserError(
      `${where}: baseline schema v${version} is older than v${RESULT_SCHEMA_VERSION} and lacks what a comparison needs (${issuesText(legacy.error, 3)})`,
      'regenerate the baseline on the base branch with this version (run the baseline-refresh workflow, or `harness-risk run --out`)',
    );
  }
  const l = legacy.data;
  const cases: ComparableCase[] = l.cases?.map((c) => ({
    id: c.id,
    revision: c.revision,
    phase: c.phase,
    title: c.title,
  })) ?? [
    ...new Map(
      l.trials.map((t) => [t.case_id, { id: t.case_id, revision: t.case_revision, phase: t.phase }]),
    ).values(),
  ];
  return {
    source,
    schemaVersion: version,
    level: 'labels',
    adapter: l.adapter,
    model: l.model,
    commit: l.source,
    status: l.status,
    cases,
    trials: l.trials.map((t, i) => ({
      case_id: t.case_id,
      case_revision: t.case_revision,
      phase: t.phase,
      seed: t.seed ?? i,
      valid: t.valid,
      labels: { a: t.labels.a, p: t.labels.p ?? false },
    })),
    notices: [
      `baseline schema v${version} is older than v${RESULT_SCHEMA_VERSION}; comparing only per-case attack and persistence labels (utility, detection and CSS deltas are not shown); refresh the baseline to compare everything`,
    ],
  };
}

/** `file:PATH` → a baseline; the file must exist (an explicitly named baseline is never silently skipped). */
export function loadBaselineFile(path: string, cwd = process.cwd()): Baseline {
  const abs = resolve(cwd, path);
  if (!existsSync(abs)) {
    throw new UserError(
      `baseline file:${path}: no such file`,
      'commit a baseline (the run result of the base branch, e.g. the `result-path` output of a run on main), or use `baseline: cache` / `baseline: none`',
    );
  }
  return parseBaseline(readJsonFile(abs, 'baseline'), `file:${path}`);
}

// ---- the Actions cache ----

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
