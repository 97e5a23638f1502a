// The bisection itself, pure: which version to try next and what the tries say. The versions are the
// published releases from the last known safe one (index 0) to the first known unsafe one (the last),
// in release order; each try of a version is `good` (the regressed cases safe in every valid trial),
// `bad` (unsafe), or `skipped` (it failed to install or run: never counted as safe). Like `git bisect`:
// the middle untried version between the last good below the first bad and that bad, log₂ steps.
// A fix (the older end unsafe, the newer safe) is the same search with safe and unsafe swapped
// (`flipProbes`): it narrows to the first good version.

import type { BisectView, Probe } from '../report/harness-change.js';

export interface BisectCaps {
  /** Versions tried at most (the two ends, when they are tried here, count). */
  maxVersions: number;
  /** Trials run at most, over all versions. */
  maxTrials: number;
}

export interface BisectSpent {
  versions: number;
  trials: number;
}

export type Next = { index: number } | { stop: 'converged' | 'version-cap' | 'trial-cap' };

/** The first bad version tried and the last good one below it (index 0 and the last are the ends). */
export function bounds(n: number, probes: ReadonlyMap<number, Probe>): { lo: number; hi: number } {
  let hi = n - 1;
  for (const [i, p] of probes) if (p === 'bad' && i < hi) hi = i;
  let lo = 0;
  for (const [i, p] of probes) if (p === 'good' && i < hi && i > lo) lo = i;
  return { lo, hi };
}

/** The next version to try, or why to stop; `trialsPerVersion` is what one more try costs. */
export function nextProbe(
  n: number,
  probes: ReadonlyMap<number, Probe>,
  spent: BisectSpent,
  caps: BisectCaps,
  trialsPerVersion: number,
): Next {
  const { lo, hi } = bounds(n, probes);
  const open: number[] = [];
  for (let i = lo + 1; i < hi; i++) if (!probes.has(i)) open.push(i);
  if (!open.length) return { stop: 'converged' };
  if (spent.versions >= caps.maxVersions) return { stop: 'version-cap' };
  if (spent.trials + trialsPerVersion > caps.maxTrials) return { stop: 'trial-cap' };
  const mid = (lo + hi) / 2;
  // The untried version nearest the middle (skipped ones are stepped around, as `git bisect skip`).
  const index = open.reduce((best, i) => (Math.abs(i - mid) < Math.abs(best - mid) ? i : best));
  return { index };
}

/** What each end says decides what is narrowed: a regression (safe → unsafe), a fix (unsafe → safe), or nothing. */
export type BisectDirection = 'regression' | 'fix';

export function directionOf(from: Probe | undefined, to: Probe | undefined): BisectDirection | undefined {
  if (from === 'good' && to === 'bad') return 'regression';
  if (from === 'bad' && to === 'good') return 'fix';
  return undefined;
}

const FLIP: Record<Probe, Probe> = { good: 'bad', bad: 'good', skipped: 'skipped' };

/** The probes as the search sees them: for a fix, safe and unsafe swapped (the search finds the first flip). */
export function flipProbes(
  probes: ReadonlyMap<number, Probe>,
  direction: BisectDirection,
): ReadonlyMap<number, Probe> {
  return direction === 'fix' ? new Map([...probes].map(([i, p]) => [i, FLIP[p]])) : probes;
}

/** What the tries pin down: the report's view of a bisect without its cases, seeds, tries and caps. */
export type BisectConclusion = Omit<BisectView, 'cases' | 'seeds' | 'tries' | 'caps'>;

export function conclude(
  versions: readonly string[],
  probes: ReadonlyMap<number, Probe>,
  stop: BisectConclusion['stop'],
): BisectConclusion {
  const { lo, hi } = bounds(versions.length, probes);
  const suspects = versions.slice(lo + 1, hi + 1);
  const at = (p: Probe) =>
    [...probes]
      .filter(([, q]) => q === p)
      .map(([i]) => i)
      .sort((a, b) => a - b);
  const skipped = at('skipped').map((i) => versions[i]!);
  const nonMonotone = at('good')
    .filter((i) => i > hi)
    .map((i) => versions[i]!);
  return {
    // Only a tried version is named: an untried or skipped one is never the answer by elimination alone.
    ...(suspects.length === 1 && probes.get(hi) !== 'skipped' ? { firstBad: suspects[0]! } : {}),
    lastGood: versions[lo]!,
    suspects,
    skipped,
    nonMonotone,
    stop,
  };
}

/**
 * The conclusion in the direction of the change: a regression names the first bad version and the last
 * good one; a fix the first good version and the last bad one (the search ran on flipped probes).
 */
export function concludeDirected(
  versions: readonly string[],
  probes: ReadonlyMap<number, Probe>,
  stop: BisectConclusion['stop'],
  direction: BisectDirection,
): BisectConclusion {
  const c = conclude(versions, flipProbes(probes, direction), stop);
  if (direction === 'regression') return c;
  const { firstBad, lastGood, ...rest } = c;
  return { ...rest, direction: 'fix', ...(firstBad ? { firstGood: firstBad } : {}), lastBad: lastGood };
}
