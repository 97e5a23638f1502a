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

/** An exact non-negative fraction. */
export interface Ratio {
  num: bigint;
  den: bigint;
}

/** C(n, k) as an exact integer. */
export function chooseExact(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  const kk = Math.min(k, n - k);
  let c = 1n;
  for (let i = 1; i <= kk; i++) c = (c * BigInt(n - kk + i)) / BigInt(i);
  return c;
}

/**
 * fisherGreater, exactly: the p-value as a fraction of integers, so that comparing it with α has no
 * rounding (1/20 is 1/20, not 0.04999999999999996). Terms are walked with the exact ratio of consecutive
 * hypergeometric numerators, so large tables stay cheap.
 */
export function fisherGreaterExact(kA: number, nA: number, kB: number, nB: number): Ratio {
  fisherGreater(kA, nA, kB, nB); // validates the counts the same way
  if (nA === 0 || nB === 0) return { num: 1n, den: 1n };
  const total = nA + nB;
  const s = kA + kB;
  const hi = Math.min(s, nB);
  const lo = Math.max(kB, s - nA, 0);
  if (lo > hi) return { num: 0n, den: 1n };
  // term(x) = C(s, x) · C(total − s, nB − x); term(x+1)/term(x) = (s−x)(nB−x) / ((x+1)(total−s−nB+x+1)).
  let term = chooseExact(s, lo) * chooseExact(total - s, nB - lo);
  let num = 0n;
  for (let x = lo; x <= hi; x++) {
    num += term;
    if (x === hi) break;
    term = (term * BigInt((s - x) * (nB - x))) / BigInt((x + 1) * (total - s - nB + x + 1));
  }
  return { num, den: chooseExact(total, nB) };
}

/** A decimal number (as JavaScript prints it) as an exact fraction: 0.05 → 5/100. */
export function decimalRatio(x: number): Ratio {
  if (!Number.isFinite(x) || x < 0) throw new RangeError(`decimalRatio: ${x}`);
  const [mant, exp] = x.toExponential().split('e') as [string, string];
  const [int, frac = ''] = mant.split('.') as [string, string?];
  const digits = BigInt(int + frac);
  const e = Number(exp) - frac.length;
  return e >= 0 ? { num: digits * 10n ** BigInt(e), den: 1n } : { num: digits, den: 10n ** BigInt(-e) };
}

export const ratioLess = (a: Ratio, b: Ratio): boolean => a.num * b.den < b.num * a.den;
export const ratioToNumber = (r: Ratio): number => {
  if (r.den === 0n) return Number.NaN;
  // 18 significant digits survive the division; enough for a p-value shown with 3.
  const scaled = (r.num * 10n ** 18n) / r.den;
  return Number(scaled) / 1e18;
};
