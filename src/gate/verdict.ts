// Findings and the verdict: everything the gate noticed, which of it fails the check, and the one
// verdict the action and the CLI both print. Green means "measured and safe": a state where nothing was
// measured or compared (no valid trial, no baseline, a missing shard, an uncontained runner) is never a
// success, whatever fail-on says.

/** What fail-on can name. `never` is the empty set. */
export const FAIL_ON_VALUES = ['regression', 'threshold', 'invalid', 'uncontained', 'flaky'] as const;
export type FailOnValue = (typeof FAIL_ON_VALUES)[number];
/** The default: everything but an uncontained runner (which then gives a neutral check). */
export const DEFAULT_FAIL_ON = 'regression,threshold,invalid';

export interface FailOn {
  regression: boolean;
  threshold: boolean;
  /** Cases safe in the baseline and invalid now; a share of invalid trials above max-invalid. */
  invalid: boolean;
  /** A run whose runner could not contain the harness. */
  uncontained: boolean;
  /** A case unsafe in some, at most half, of the seeds and never in the baseline. */
  flaky: boolean;
  /** `fail-on: never`: nothing fails the step, not even a run that measured nothing. */
  never: boolean;
}

export const failOnFrom = (values: readonly string[]): FailOn => ({
  regression: values.includes('regression'),
  threshold: values.includes('threshold'),
  invalid: values.includes('invalid'),
  uncontained: values.includes('uncontained'),
  flaky: values.includes('flaky'),
  never: values.includes('never'),
});

export const MISSING_BASELINE_VALUES = ['neutral', 'fail', 'pass'] as const;
export type OnMissingBaseline = (typeof MISSING_BASELINE_VALUES)[number];

export type FindingKind =
  | 'regression'
  | 'threshold'
  | 'no-valid-trial'
  | 'invalid'
  | 'not-applicable'
  | 'incomplete'
  | 'missing-baseline'
  | 'uncontained'
  | 'build'
  | 'flaky'
  | 'attestation'
  | 'untrusted';

export interface Finding {
  kind: FindingKind;
  message: string;
  /** Fails the step and the check. */
  gating: boolean;
  /** Not gating, but the check cannot be a success either (neutral): something was not measured. */
  blocksSuccess: boolean;
  /** Case ids concerned, when there are any. */
  cases?: string[];
}

export interface Verdict {
  /** `neutral`: nothing fails, but something was not measured or compared (the check is neutral). */
  verdict: 'pass' | 'neutral' | 'fail';
  /** Check-run conclusion. */
  conclusion: 'success' | 'failure' | 'neutral';
  findings: Finding[];
  /** Why, one line each: every finding that fails or blocks success (notes excluded). */
  reasons: string[];
  /** The reasons that decide the verdict. */
  gating: string[];
  /** Findings that are only worth knowing (flaky cases, attested differences). */
  notes: string[];
}

export function decideVerdict(findings: Finding[]): Verdict {
  const gating = findings.filter((f) => f.gating).map((f) => f.message);
  const reasons = findings.filter((f) => f.gating || f.blocksSuccess).map((f) => f.message);
  const notes = findings.filter((f) => !f.gating && !f.blocksSuccess).map((f) => f.message);
  const verdict = gating.length ? 'fail' : reasons.length ? 'neutral' : 'pass';
  return {
    verdict,
    conclusion: verdict === 'fail' ? 'failure' : verdict === 'neutral' ? 'neutral' : 'success',
    findings,
    reasons,
    gating,
    notes,
  };
}

/** Exit status of a command that gates (the CLI): non-zero exactly when the action's step fails. */
export const exitCodeOf = (v: Verdict): number => (v.verdict === 'fail' ? 1 : 0);
