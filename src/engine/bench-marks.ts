// Points in a run that `npm run bench` measures from inside the engine (scripts/bench.mjs): with
// HARNESS_RISK_BENCH_MARKS=FILE set, each mark appends one JSON line to FILE. Off (no file, no work)
// otherwise. Measured in the engine because only the engine knows when its first trial starts, and only
// its own process can say how much memory it held by then (a harness's memory is not the engine's).
import { appendFileSync, readFileSync } from 'node:fs';

export const BENCH_MARKS_VARIABLE = 'HARNESS_RISK_BENCH_MARKS';

export interface BenchMark {
  mark: string;
  pid: number;
  /** Wall clock (epoch ms), to set against the bench's own clock from before the spawn. */
  at_ms: number;
  /** Since the process started (performance.timeOrigin). */
  uptime_ms: number;
  /** User + system CPU of the engine process so far. */
  cpu_ms: number;
  /** Resident set now (process.memoryUsage().rss). */
  rss_bytes: number;
  /** Peak resident set so far (VmHWM in /proc/self/status); absent where /proc is not. */
  peak_rss_bytes?: number;
}

/** VmHWM of /proc/self/status in bytes: the most the process has held resident since it started. */
export function peakRssOf(status: string): number | undefined {
  const m = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
  return m ? Number(m[1]) * 1024 : undefined;
}

function readPeakRss(): number | undefined {
  try {
    return peakRssOf(readFileSync('/proc/self/status', 'utf8'));
  } catch {
    return undefined;
  }
}

export function measureMark(mark: string): BenchMark {
  const cpu = process.cpuUsage();
  const peak = readPeakRss();
  return {
    mark,
    pid: process.pid,
    at_ms: Date.now(),
    uptime_ms: Math.round(performance.now()),
    cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
    rss_bytes: process.memoryUsage().rss,
    ...(peak !== undefined ? { peak_rss_bytes: peak } : {}),
  };
}

/** Appends the mark when the variable names a file; a failing write never fails the run. */
export function benchMark(mark: string, env: NodeJS.ProcessEnv = process.env): void {
  const file = env[BENCH_MARKS_VARIABLE];
  if (!file) return;
  try {
    appendFileSync(file, `${JSON.stringify(measureMark(mark))}\n`);
  } catch {
    // A benchmark aid: the run's result does not depend on it.
  }
}

/** Marks once: the first call marks, later calls do nothing (the first trial of many). */
export function benchMarkOnce(mark: string): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    benchMark(mark);
  };
}
