// Exact statistics for comparing attack counts between a baseline and a new run.

const LOG_FACTORIALS: number[] = [0];

/** ln(n!) by summation, memoized (exact enough for the trial counts a run has, up to millions). */
export function logFactorial(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`logFactorial: ${n} is not a non-negative integer`);
  for (let k = LOG_FACTORIALS.length; k <= n; k++) LOG_FACTORIALS[k] = LOG_FACTORIALS[k - 1]! + Math.log(k);
  return LOG_FACTORIALS[n]!;
}

/** ln C(n, k). */
export function logChoose(n: number, k: number): number {
  if (k < 0 || k > n) return Number.NEGATIVE_INFINITY;
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

/**
 * Probability of exactly `x` successes in the second group under the hypergeometric law that Fisher's
 * test conditions on: `total` trials, `successes` of them successes, `drawn` trials in the second group.
 */
export function hypergeometric(x: number, total: number, successes: number, drawn: number): number {
  return Math.exp(
    logChoose(successes, x) + logChoose(total - successes, drawn - x) - logChoose(total, drawn),
  );
}

/**
 * One-sided Fisher's exact test that the rate in group B (`kB` of `nB`) is greater than in group A
 * (`kA` of `nA`): P(X ≥ kB) where X is the hypergeometric count of B-successes given the margins.
 * Returns 1 when either group is empty.
 */
export function fisherGreater(kA: number, nA: number, kB: number, nB: number): number {
  for (const [name, k, n] of [
    ['A', kA, nA],
    ['B', kB, nB],
  ] as const) {
    if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || n < 0 || k > n) {
      throw new RangeError(`fisherGreater: group ${name} has ${k} of ${n}`);
    }
  }
  if (nA === 0 || nB === 0) return 1;
  const total = nA + nB;
  const successes = kA + kB;
  const hi = Math.min(successes, nB);
  // Sum the upper tail from the far end (small terms first) for accuracy.
  let p = 0;
  for (let x = hi; x >= kB; x--) p += hypergeometric(x, total, successes, nB);
  return Math.min(1, p);
}

/** Rate `k / n`, or null when nothing was counted. */
export function rate(k: number, n: number): number | null {
  return n === 0 ? null : k / n;
}
