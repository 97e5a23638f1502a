// Fail-fast for a harness that never starts: when `limit` trials in a row that ran a harness come out
// invalid, the run stops (interrupted, the result kept and resumable) instead of spending every trial's
// timeout on the same failure (the standard subset would burn ~2.5 h). Only trials whose harness was
// started count: a case the adapter cannot run, or a trial not started, says nothing about the harness.
// A not-applicable trial (the harness worked, the case's entry point could not reach it) ends a streak:
// counted as invalid, a configuration without a fetch tool stopped a matrix after ten such cases in a row.

/** Trials in a row that may be invalid before the run stops; 0 turns the check off. */
export const DEFAULT_MAX_CONSECUTIVE_INVALID = 10;

/** How a trial whose harness was started ended (the run result's fields). */
export interface TrialEnd {
  valid: boolean;
  not_applicable?: string;
  invalid_reason?: string;
}

export interface InvalidStreak {
  /** Records one finished trial; the reason to stop when the streak reached the limit. */
  add(end: TrialEnd): string | undefined;
}

export function invalidStreak(limit: number): InvalidStreak {
  let streak = 0;
  return {
    add({ valid, not_applicable, invalid_reason: reason }) {
      streak = valid || not_applicable !== undefined ? 0 : streak + 1;
      if (limit <= 0 || streak < limit) return undefined;
      return `${streak} trials in a row were invalid (the last: ${reason ?? 'no reason recorded'}): the harness does not start or does not work as launched; stopped by max-consecutive-invalid ${limit} (0 turns it off)`;
    },
  };
}
