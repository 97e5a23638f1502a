// Intervals on the monotonic clock: a wall-clock jump (an NTP step, a suspended VM, a test's fake time)
// never makes a duration negative or hours long. Date stays for timestamps (started_at, file ages).

/** A point on the monotonic clock, for `sinceMs`. */
export function mark(): number {
  return performance.now();
}

/** Whole milliseconds since `t0` (a `mark()`), never negative. */
export function sinceMs(t0: number): number {
  return Math.max(0, Math.round(performance.now() - t0));
}
