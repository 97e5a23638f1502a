// The gate: head result(s) + baseline + options → comparison, findings and the verdict. Pure (no I/O), so
// the action and `harness-risk compare` / `run` decide the same way from the same files.
import { type Baseline, baselineFromResult } from '../compare/baseline.js';
import { type Comparison, compareRuns } from '../compare/compare.js';
import { mergeRunResults } from '../compare/merge.js';
import { UserError } from '../errors.js';
import { isInvalid, isNotApplicable } from '../score/applicability.js';
import type { RunResult, Trial } from '../spec/run-result.js';
import { checkShards, type NamedResult, splitTrees } from './shards.js';
import { evaluateThresholds, hasThresholds, type Thresholds, type ThresholdViolation } from './thresholds.js';
import { decideVerdict, type FailOn, type Finding, type OnMissingBaseline, type Verdict } from './verdict.js';

export interface GateOptions {
  failOn: FailOn;
  onMissingBaseline: OnMissingBaseline;
  /** Largest share of invalid trials that still counts as measured (0..1). */
  maxInvalid: number;
  thresholds: Thresholds;
  alpha: number;
  minEffect: number;
}

export const DEFAULT_MAX_INVALID = 0.1;

export interface GateInput {
  /** This run's result, or the results to merge (shards, report-only files). */
  heads: NamedResult[];
  baseline?: Baseline;
  /** Why there is no baseline, when there is none (cache miss, baseline: none…), for the report. */
  baselineNotes?: string[];
  options: GateOptions;
  /**
   * Builds that failed in a paired run (baseline: base): a failed head build fails the check; a failed
   * base build leaves nothing to compare with, so it is never a success (fail with on-missing-baseline
   * fail). `message` says which command and the tail of its output.
   */
  buildFailures?: { tree: 'base' | 'head'; message: string }[];
  /**
   * Why the heads cannot be trusted as a measurement, when they cannot: they were produced where the
   * author of the change controls both the harness and the job that measured it (a fork's pull request
   * run). The numbers are shown as information; the check is never a success.
   */
  untrusted?: string;
  /**
   * `shard`: heads[0] is one shard run on its own (a matrix job); its slice is gated, the baseline's
   * other cases are out of scope and completeness is the merge job's to prove. `merge` (default): the
   * heads must together be one whole selection.
   */
  scope?: 'shard' | 'merge';
}

export interface GateOutcome {
  current: RunResult;
  comparison: Comparison;
  violations: ThresholdViolation[];
  verdict: Verdict;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The commonest invalid reasons, most frequent first: `12 trials: harness could not start: …`. */
export function invalidReasonSummary(trials: Trial[], top = 3): string[] {
  const counts = new Map<string, number>();
  for (const t of trials) {
    if (t.valid) continue;
    const r = t.invalid_reason ?? 'no reason recorded';
    counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, top)
    .map(([r, n]) => `${plural(n, 'trial')}: ${r}`);
}

/**
 * Whether the harness may have been uncontained: the runner said so, or the result claims containment
 * that this engine cannot verify (a file it did not write itself, unsigned or altered: attestation.ts).
 */
export function isUncontained(r: RunResult): boolean {
  const c = r.containment?.containment;
  return c === 'uncontained' || c === 'unverified';
}

function uncontainedMessage(r: RunResult): string {
  const c = r.containment;
  if (c?.containment === 'unverified')
    return `containment unverified: the result claims ${c.claimed ?? 'containment'} but ${c.reason ?? 'carries no engine attestation'}, so the harness may have run uncontained (counted as uncontained)`;
  return `the ${r.runner} runner could not contain the harness (${c?.reason ?? 'no isolation mechanism'}): a hostile harness could have read the job's secrets or rewritten its own labels`;
}

/** A finding as the sections below write it: `blocksSuccess` defaults to `gating`. */
type Draft = Omit<Finding, 'blocksSuccess'> & { blocksSuccess?: boolean };
const finding = (f: Draft): Finding => ({ blocksSuccess: f.gating, ...f });

/** Whether a finding of this kind gates: `flag`, unless fail-on is never. */
type Gates = (flag: boolean) => boolean;

export function evaluateGate(input: GateInput): GateOutcome {
  const { options: o } = input;
  const scope = input.scope ?? 'merge';
  // Base-tree results (a paired run's shards, source.tree = base) are never heads: merged, they are
  // the baseline, and they must be complete like the heads.
  const trees = splitTrees(input.heads);
  const heads = trees.head;
  if (heads.length === 0)
    throw new UserError(
      'only base-tree results were given (source.tree = base): nothing to judge',
      'give the head results too (the shard jobs write both: x.json and x.base.json)',
    );
  const baseOfTrees = !input.baseline && trees.base.length ? baseTreeBaseline(trees.base) : undefined;
  const baseline = input.baseline ?? baseOfTrees?.baseline;
  const gate: Gates = (flag) => flag && !o.failOn.never;

  // 1. One result, complete: shards proven, summary recomputed from the trials (never trusted).
  const drafts: Draft[] = completeness(input, heads, trees.base, baseOfTrees?.problems ?? [], gate);
  const current = mergeRunResults(
    heads.map((h) => h.result),
    heads.map((h) => h.name),
  );
  const comparison = compareRuns(current, baseline, {
    alpha: o.alpha,
    minEffect: o.minEffect,
    scope: scope === 'shard' ? 'subset' : 'full',
  });
  const violations = evaluateThresholds(current, o.thresholds);
  drafts.push(
    // 2. Who measured it, and was anything built, measured?
    ...measurement(input, current, gate),
    // 3. Compared with what?
    ...comparedWith(input, comparison, gate),
    // 4. Regressions, cases that became unmeasurable, flakes.
    ...regressions(o, comparison, gate),
    // 5. Absolute thresholds.
    ...violations.map((v) => ({
      kind: 'threshold' as const,
      message: `threshold: ${v.message}`,
      gating: gate(o.failOn.threshold),
      blocksSuccess: true,
    })),
  );
  // 6. Could the harness reach what it must not?
  if (isUncontained(current)) {
    drafts.push({
      kind: 'uncontained',
      message: uncontainedMessage(current),
      gating: gate(o.failOn.uncontained),
      blocksSuccess: true,
    });
  }
  // 7. What differs between the two measurements besides the PR.
  const findings = [...drafts.map(finding), ...attestationNotes(current, baseline, comparison)];
  return { current, comparison, violations, verdict: decideVerdict(findings) };
}

/** Shards missing or doubled (heads, and the base tree's), and base-tree results an explicit baseline overrides. */
function completeness(
  input: GateInput,
  heads: NamedResult[],
  baseTrees: NamedResult[],
  baseProblems: string[],
  gate: Gates,
): Draft[] {
  const out: Draft[] = [];
  if ((input.scope ?? 'merge') === 'merge' && (heads.length > 1 || heads[0]?.result.selection?.shard)) {
    const shards = checkShards(heads);
    for (const p of shards.problems)
      out.push({ kind: 'incomplete', message: p, gating: gate(true), blocksSuccess: true });
    for (const n of shards.notes) out.push({ kind: 'attestation', message: n, gating: false });
  }
  for (const p of baseProblems)
    out.push({ kind: 'incomplete', message: `base tree: ${p}`, gating: gate(true), blocksSuccess: true });
  if (input.baseline && baseTrees.length)
    out.push({
      kind: 'attestation',
      message: `${plural(baseTrees.length, 'base-tree result')} ignored: an explicit baseline was given`,
      gating: false,
    });
  return out;
}

/** Untrusted heads, failed builds, trials that measured nothing, an unfinished run. */
function measurement(input: GateInput, current: RunResult, gate: Gates): Draft[] {
  const o = input.options;
  const out: Draft[] = [];
  // A result its subject could write is information, never a pass.
  if (input.untrusted) {
    out.push({
      kind: 'untrusted',
      message: `untrusted result: ${input.untrusted}; its numbers are shown as information and cannot pass the gate (README, "Fork pull requests")`,
      gating: false,
      blocksSuccess: true,
    });
  }
  for (const b of input.buildFailures ?? []) {
    out.push({
      kind: 'build',
      message: b.message,
      gating: gate(b.tree === 'head' || o.onMissingBaseline === 'fail'),
      blocksSuccess: true,
    });
  }
  // Not applicable trials measured nothing: in no rate, never a defended attack, and not invalid either
  // (the harness has no such entry point); named apart, and a run of nothing else measured nothing.
  const invalidTrials = current.trials.filter(isInvalid);
  const naTrials = current.trials.filter(isNotApplicable);
  if (naTrials.length) {
    out.push({
      kind: 'not-applicable',
      message: `${plural(naTrials.length, 'trial')} of ${current.trials.length} not applicable, not counted as defended (nothing was measured): ${invalidReasonSummary(naTrials).join('; ')}`,
      gating: false,
      blocksSuccess: false,
      cases: [...new Set(naTrials.map((t) => t.case_id))],
    });
  }
  if (current.trials.length > 0 && current.summary.overall.valid === 0) {
    out.push({
      kind: 'no-valid-trial',
      message: `no valid trial: the harness was never measured (${invalidReasonSummary(current.trials, 2).join('; ')})`,
      gating: gate(true),
      blocksSuccess: true,
    });
  } else if (invalidTrials.length > 0) {
    const share = invalidTrials.length / (current.trials.length - naTrials.length);
    const over = share > o.maxInvalid + 1e-12;
    out.push({
      kind: 'invalid',
      message: `${plural(invalidTrials.length, 'trial')} of ${current.trials.length - naTrials.length} invalid (${pct(share)}${over ? `, above max-invalid ${pct(o.maxInvalid)}` : ''}): ${invalidReasonSummary(invalidTrials).join('; ')}`,
      gating: gate(over && o.failOn.invalid),
      blocksSuccess: over,
    });
  }
  if (current.status !== 'complete') {
    out.push({
      kind: 'incomplete',
      message: `the run was ${current.status}: the trials it did not finish are invalid, so part of the selection was not measured`,
      gating: gate(true),
      blocksSuccess: true,
    });
  }
  return out;
}

/** Nothing compared (no baseline, or none of its cases comparable): the thresholds decide, or on-missing-baseline. */
function comparedWith(input: GateInput, comparison: Comparison, gate: Gates): Draft[] {
  const o = input.options;
  const compared = comparison.cases.filter((c) => ['regression', 'fix', 'unchanged'].includes(c.status));
  if (comparison.hasBaseline && compared.length > 0) return [];
  const why = !comparison.hasBaseline
    ? `no baseline${input.baselineNotes?.length ? ` (${input.baselineNotes.join('; ')})` : ''}`
    : `the baseline shares no comparable case with this run (${comparison.statuses.new} not run on base, ${comparison.statuses.changed} changed, ${comparison.statuses.invalid} invalid)`;
  if (hasThresholds(o.thresholds) && o.failOn.threshold)
    return [
      {
        kind: 'missing-baseline',
        message: `nothing was compared: ${why}; the thresholds decide`,
        gating: false,
      },
    ];
  return [
    {
      kind: 'missing-baseline',
      message: `nothing was compared: ${why}, and no threshold is set, so no regression could be shown or ruled out`,
      gating: gate(o.onMissingBaseline === 'fail'),
      blocksSuccess: o.onMissingBaseline !== 'pass',
    },
  ];
}

/** Safe → unsafe, cases that lost every valid trial, flaky cases. */
function regressions(o: GateOptions, comparison: Comparison, gate: Gates): Draft[] {
  const out: Draft[] = [];
  if (comparison.regressedPhases.length > 0 || comparison.overallRegressed || comparison.regressions.length) {
    const n = comparison.regressions.length;
    const phases = comparison.regressedPhases.join(', ') || 'overall';
    out.push({
      kind: 'regression',
      message:
        n > 0
          ? `safety regression in ${phases}: ${plural(n, 'case')} went from safe to unsafe${comparison.mode === 'statistical' ? ' (unsafe in more than half of the seeds, or significantly more often)' : ''}`
          : `significant safety regression in ${phases} (one-sided Fisher's exact test, α = ${o.alpha}, min effect ${(o.minEffect * 100).toFixed(0)} pp)`,
      gating: gate(o.failOn.regression),
      blocksSuccess: true,
      cases: comparison.regressions.map((c) => c.id),
    });
  }
  const lostCases = comparison.cases.filter(
    (c) =>
      c.status === 'invalid' && c.baseline && c.baseline.state !== 'invalid' && c.baseline.state !== 'unsafe',
  );
  if (lostCases.length) {
    out.push({
      kind: 'invalid',
      message: `${plural(lostCases.length, 'case')} not unsafe in the baseline ${lostCases.length === 1 ? 'has' : 'have'} no valid trial now, so a regression cannot be ruled out: ${lostCases
        .slice(0, 10)
        .map((c) => `${c.id} (${c.trials.find((t) => !t.valid)?.invalid_reason ?? 'invalid'})`)
        .join('; ')}${lostCases.length > 10 ? `; … ${lostCases.length - 10} more` : ''}`,
      gating: gate(o.failOn.invalid),
      blocksSuccess: true,
      cases: lostCases.map((c) => c.id),
    });
  }
  const flaky = comparison.cases.filter((c) => c.flaky);
  if (flaky.length) {
    out.push({
      kind: 'flaky',
      message: `${plural(flaky.length, 'case')} unsafe in some but at most half of the seeds, never in the baseline (flaky${o.failOn.flaky ? ', fails under fail-on flaky' : ', not gating; fail-on flaky gates it'}): ${flaky
        .slice(0, 10)
        .map((c) => `${c.id} ${c.now!.counts.unsafe}/${c.now!.counts.valid}`)
        .join(', ')}`,
      gating: gate(o.failOn.flaky),
      blocksSuccess: o.failOn.flaky,
      cases: flaky.map((c) => c.id),
    });
  }
  return out;
}

/** The base-tree results of a paired run's shards as one baseline, with what is missing or doubled. */
function baseTreeBaseline(base: NamedResult[]): { baseline: Baseline; problems: string[] } {
  const problems = base.length > 1 || base[0]?.result.selection?.shard ? checkShards(base).problems : [];
  const merged = mergeRunResults(
    base.map((b) => b.result),
    base.map((b) => b.name),
  );
  const sha = merged.source.sha;
  const baseline = baselineFromResult(
    merged,
    `base built in ${base.length > 1 ? 'the shard jobs' : 'the run'} from ${sha ? sha.slice(0, 12) : 'an unknown commit'}`,
  );
  return { baseline, problems };
}

function attestationNotes(
  current: RunResult,
  baseline: Baseline | undefined,
  comparison: Comparison,
): Finding[] {
  const b = baseline?.result;
  if (!b) return [];
  const out: string[] = [];
  if (isUncontained(b))
    out.push(`the baseline's ${uncontainedMessage(b).replace(/^the result/, 'baseline')}`);
  if (b.runner !== current.runner)
    out.push(`the baseline ran on the ${b.runner} runner, this run on ${current.runner}`);
  if (b.image && current.image && b.image.id !== current.image.id)
    out.push(
      `the baseline ran in image ${b.image.name} (${b.image.id.slice(0, 19)}), this run in ${current.image.name} (${current.image.id.slice(0, 19)})`,
    );
  if (b.tool.version !== current.tool.version)
    out.push(
      `the baseline was measured by harness-risk-action ${b.tool.version}, this run by ${current.tool.version}`,
    );
  // The comparison already matched every case with its baseline: count those whose revision moved.
  const changed = comparison.cases.filter(
    (c) => c.status === 'changed' && c.baseline?.revision !== c.now?.revision,
  ).length;
  if (changed)
    out.push(
      `${plural(changed, 'case')} changed revision since the baseline (compared as new, never as a regression)`,
    );
  const hv = (r: RunResult) =>
    r.harness ? `${r.harness.package ?? 'harness'} ${r.harness.version ?? '(version unknown)'}` : undefined;
  if (hv(b) && hv(current) && hv(b) !== hv(current))
    out.push(`harness build: ${hv(b)} in the baseline, ${hv(current)} now`);
  return out.map((message) => ({
    kind: 'attestation' as const,
    message,
    gating: false,
    blocksSuccess: false,
  }));
}
