// Shared by scripts/bench.mjs and its parts: running the CLI with the engine's own marks
// (HARNESS_RISK_BENCH_MARKS, src/engine/bench-marks.ts), medians, and target lines.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';

export const hasTime = existsSync('/usr/bin/time');
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
export const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
export const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;
export const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** `measured (target ≤ T: PASS|MISS)`; `value` and `limit` in the same unit. */
export const target = (text, value, limit, limitText) =>
  `${text} (target ≤ ${limitText}: ${value <= limit ? 'PASS' : 'MISS'})`;

/**
 * Runs `node dist/cli.js ARGS` once. Returns wall ms from before the spawn, the CPU and peak RSS of the
 * process tree as GNU time reports them (user+sys of the CLI and every child it waited for; %M is the
 * largest single process), and the engine's marks.
 */
export function cli(args, { env = {}, marks, ok = [0, 1] } = {}) {
  if (marks) rmSync(marks, { force: true });
  const argv = [process.execPath, 'dist/cli.js', ...args];
  const childEnv = { ...process.env, ...env, ...(marks ? { HARNESS_RISK_BENCH_MARKS: marks } : {}) };
  const t0 = Date.now();
  const r = hasTime
    ? spawnSync('/usr/bin/time', ['-f', 'HRTIME %e %U %S %M', ...argv], { encoding: 'utf8', env: childEnv })
    : spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', env: childEnv });
  const ms = Date.now() - t0;
  const m = /HRTIME (\S+) (\S+) (\S+) (\d+)\s*$/.exec(r.stderr ?? '');
  if (!ok.includes(r.status))
    throw new Error(`harness-risk ${args.join(' ')} exited ${r.status}: ${(r.stderr ?? '').slice(-2000)}`);
  const byMark = {};
  if (marks && existsSync(marks))
    for (const line of readFileSync(marks, 'utf8').trim().split('\n')) {
      const mk = JSON.parse(line);
      byMark[mk.mark] = mk;
    }
  return {
    t0,
    ms,
    cpu_ms: m ? (Number(m[2]) + Number(m[3])) * 1000 : undefined,
    peak_kib: m ? Number(m[4]) : undefined,
    marks: byMark,
    stdout: r.stdout,
  };
}

/** Medians of each numeric key over rows of the same shape. */
export function medians(rows) {
  const out = {};
  for (const k of Object.keys(rows[0] ?? {}))
    if (typeof rows[0][k] === 'number') out[k] = median(rows.map((r) => r[k]));
  return out;
}
