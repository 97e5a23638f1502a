// The resolved baseline: from the source the user asked for and what the run produced, the baseline
// this run is compared with, or why there is none. Both front ends call resolveBaseline() and then
// gateInput(), so the action and the CLI judge the same way.
import type { Baseline } from '../compare/baseline.js';
import type { GateInput, GateOptions } from '../gate/index.js';
import type { NamedResult } from '../gate/shards.js';
import type { HarnessInfo } from '../spec/run-result.js';
import { buildFailureText, type PairedOutcome } from './base-head.js';
import { type CacheApi, cacheEntry, restoreBaselineFromCache } from './cache.js';
import { loadBaselineFile } from './file.js';
import { harnessReuseProblem } from './reuse.js';
import type { BaselineSource } from './source.js';

export interface ResolvedBaseline {
  baseline?: Baseline;
  /** Why there is no baseline, for the gate's missing-baseline finding (empty when there is one). */
  notes: string[];
  /** What the report should say about the baseline (a cache miss, baseline: none). */
  notices: string[];
  /** Builds that failed in a paired run (baseline: base). */
  buildFailures: { tree: 'base' | 'head'; message: string }[];
  /** The cache key a cached baseline was restored from. */
  restoredKey?: string;
}

export interface BaselineFacts {
  /**
   * The heads are existing run results (report-only, `compare`): with `base`, the base-tree results among
   * them (x.base.json) are the baseline, which the gate finds itself.
   */
  reportOnly: boolean;
  /** Relative baseline paths are from here (the workspace). */
  cwd?: string;
  /** `file`: the baseline file, loaded before the run (loadEarly). */
  file?: Baseline;
  /** `base`: the paired run's outcome. */
  paired?: PairedOutcome;
  /** `cache`: the store, and the entry to look for; no branch = none is known for this event. */
  cache?: { api: CacheApi; cwd: string; adapter: string; config: string; branch?: string; sha?: string };
}

/** An explicitly named baseline file is read before minutes of trials are spent (and fails then). */
export function loadEarly(source: BaselineSource, cwd?: string): Baseline | undefined {
  return source.kind === 'file' ? loadBaselineFile(source.path, cwd) : undefined;
}

const none = (notes: string[], notices: string[] = []): ResolvedBaseline => ({
  notes,
  notices,
  buildFailures: [],
});

export async function resolveBaseline(
  source: BaselineSource,
  facts: BaselineFacts,
): Promise<ResolvedBaseline> {
  switch (source.kind) {
    case 'none':
      return source.unset
        ? none([source.unset])
        : none(['baseline: none'], ['baseline: none, so only absolute numbers and thresholds are reported']);
    case 'file':
      // An explicitly named baseline is never silently skipped: loadBaselineFile throws when it is missing.
      return { ...none([]), baseline: facts.file ?? loadBaselineFile(source.path, facts.cwd) };
    case 'base':
      return facts.paired
        ? fromPaired(facts.paired)
        : none(
            facts.reportOnly
              ? ['baseline: base, but no base-tree result (x.base.json) is among the run results']
              : ['baseline: base, but the base tree was not run'],
          );
    case 'cache':
      return fromCache(facts.cache);
  }
}

function fromPaired(p: PairedOutcome): ResolvedBaseline {
  return {
    ...(p.baseline ? { baseline: p.baseline } : {}),
    notes: p.baseline ? [] : p.baselineNotes,
    notices: [],
    buildFailures: p.builds.map((b) => ({ tree: b.tree, message: buildFailureText(b) })),
  };
}

const CACHE_MISS = 'no cached baseline of the base branch for this adapter and configuration';

async function fromCache(c: BaselineFacts['cache']): Promise<ResolvedBaseline> {
  if (!c?.branch)
    return none(
      [CACHE_MISS],
      ['no base branch is known for this event, so there is no cached baseline to compare with'],
    );
  const restored = await restoreBaselineFromCache(
    c.api,
    // Without the base commit, the branch's latest entry (the restore prefix) is the baseline.
    { ...cacheEntry(c.adapter, c.config, c.branch, c.sha), sha: c.sha || 'latest' },
    c.cwd,
  );
  if (!restored.baseline) return none([CACHE_MISS], restored.notices);
  return {
    baseline: restored.baseline,
    notes: [],
    notices: restored.notices,
    buildFailures: [],
    ...(restored.key ? { restoredKey: restored.key } : {}),
  };
}

export interface ReuseFacts {
  /** The baseline source the user asked for. */
  kind: BaselineSource['kind'];
  /** The harness this run measured (its package and version). */
  now?: HarnessInfo;
  /** The pull request's (or checkout's) bump of the harness package, if any. */
  bump?: { package: string; from: string; to: string };
}

/**
 * The reuse rule of a stored baseline, one function for the action and `harness-risk run --baseline`:
 * a cached baseline (the base branch's latest) that measured another harness version than this run is
 * used only for the bump it starts from, otherwise refused with the reason; a named baseline file is
 * compared as asked. What a used baseline differs in (harness version, engine, runner, case revisions) the
 * gate says in its attestation notes, which both front ends print.
 */
export function applyReuseRule(resolved: ResolvedBaseline, f: ReuseFacts): ResolvedBaseline {
  const stored = resolved.baseline;
  if (!stored?.result || f.kind !== 'cache') return resolved;
  const problem = harnessReuseProblem(stored.result.harness, f.now, f.bump);
  if (!problem) return resolved;
  const note = `stored baseline ${stored.source} not used: ${problem}`;
  return { notes: [note], notices: [...resolved.notices, note], buildFailures: resolved.buildFailures };
}

/** The gate's input from this run's heads and its resolved baseline: the one place both front ends build it. */
export function gateInput(o: {
  heads: NamedResult[];
  resolved: ResolvedBaseline;
  options: GateOptions;
  scope?: GateInput['scope'];
  untrusted?: string;
}): GateInput {
  const { resolved: r } = o;
  return {
    heads: o.heads,
    ...(r.baseline ? { baseline: r.baseline } : {}),
    baselineNotes: r.baseline ? [] : r.notes,
    ...(r.buildFailures.length ? { buildFailures: r.buildFailures } : {}),
    options: o.options,
    ...(o.scope ? { scope: o.scope } : {}),
    ...(o.untrusted ? { untrusted: o.untrusted } : {}),
  };
}
