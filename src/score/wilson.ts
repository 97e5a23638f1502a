// The Wilson score interval of a proportion: k successes in n trials. Unlike the normal approximation it
// stays inside [0, 1] and is honest at 0/n and n/n, which is where attack success rates of a few seeds sit.

/** 95% two-sided by default. n = 0 gives the uninformative [0, 1]. */
export function wilson(k: number, n: number, z = 1.959964): [number, number] {
  if (n <= 0) return [0, 1];
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  const r = (x: number) => Math.round(x * 10_000) / 10_000;
  return [r(Math.max(0, centre - half)), r(Math.min(1, centre + half))];
}
