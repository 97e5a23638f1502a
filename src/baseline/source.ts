// Where a baseline comes from. Three words are kept apart in src/baseline/:
// - the baseline *source*: what the user asked for (this file: `baseline:` input, --baseline/--base-ref);
// - the *resolved baseline*: what the run ends up comparing with, or why nothing (resolve.ts);
// - the *baseline file*: a stored run result (a committed file, file.ts; the cache's copy, cache.ts).
// The `Baseline` itself (the comparable trials of any schema version) is compare/baseline.ts.

export type BaselineSource =
  /** Nothing to compare with: only absolute numbers and thresholds. `unset` says why when nobody chose none. */
  | { kind: 'none'; unset?: string }
  /** The base branch's latest result, from the Actions cache. */
  | { kind: 'cache' }
  /** A committed run result. */
  | { kind: 'file'; path: string }
  /**
   * The base commit built and run in this job beside the head (baseline/base-head.ts); `ref` names it (the
   * CLI's --base-ref), else the event's base commit (the action). A stored result of exactly that commit
   * is used instead when there is one (reuse.ts).
   */
  | { kind: 'base'; ref?: string };

/** The action's `baseline` input: `none` (or empty), `cache`, `base` or `file:PATH`; undefined when it is none of them. */
export function parseBaselineSource(v: string): BaselineSource | undefined {
  if (v === 'none' || v === '') return { kind: 'none' };
  if (v === 'cache') return { kind: 'cache' };
  if (v === 'base') return { kind: 'base' };
  if (v.startsWith('file:') && v.length > 5) return { kind: 'file', path: v.slice(5).trim() };
  return undefined;
}
