// Baselines: the run result a new run is compared with, as comparison needs it (any schema version).
// Where a baseline comes from (a committed file, the Actions cache, the base tree) is src/baseline/.
import { readFileSync } from 'node:fs';
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
  /** The attack strategy (absent: `direct`, as in older results). */
  strategy?: string;
  valid: boolean;
  /** The entry point never reached the model (absent in older results). */
  not_applicable?: string;
  labels: { a: boolean; p: boolean };
  css?: number;
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
  model?: { mode?: string; seeds?: number; strategies?: string[] };
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
    model: z
      .object({
        mode: z.string().optional(),
        seeds: z.number().optional(),
        strategies: z.array(z.string()).optional(),
      })
      .loose()
      .optional(),
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
      ...(t.strategy ? { strategy: t.strategy } : {}),
      valid: t.valid,
      css: t.css,
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
