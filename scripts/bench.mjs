// Benchmarks (targets live here, not in timed unit tests):
//  1. start-up (`list cases`) and, for the smoke subset against reference/open and reference/guarded at
//     concurrency 1, the engine's start-up (process start to the result header), the trial loop as a
//     ratio to the harness's own duration_ms, and peak RSS; medians over BENCH_RUNS runs;
//  2. the Docker runner's added time per trial versus the process runner (scripts/bench-docker.mjs),
//     when a Docker daemon is reachable.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const cases = process.env.BENCH_CASES ?? 'subset:smoke';
const dir = mkdtempSync(join(tmpdir(), 'hr-bench-'));
const hasTime = existsSync('/usr/bin/time');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs the CLI once; wall ms and (with GNU time) peak RSS in KiB. */
function cli(args) {
  const argv = [process.execPath, 'dist/cli.js', ...args];
  const t0 = Date.now();
  const r = hasTime
    ? spawnSync('/usr/bin/time', ['-f', '%M', ...argv], { encoding: 'utf8' })
    : spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`harness-risk ${args.join(' ')} failed: ${r.stderr}`);
  return { t0, ms: Date.now() - t0, rss: Number(r.stderr.trim().split('\n').pop()) || 0 };
}
const mib = (kib) => (hasTime ? `${(kib / 1024).toFixed(0)} MiB` : 'n/a (install GNU time)');

try {
  // Start-up alone: a command that loads the selection and exits.
  const list = Array.from({ length: runs }, () => cli(['list', 'cases', '--cases', cases]));
  console.log(
    `start-up: list cases --cases ${cases}: median ${median(list.map((l) => l.ms))} ms wall, peak RSS ${mib(median(list.map((l) => l.rss)))}`,
  );
  for (const config of ['open', 'guarded']) {
    const rows = [];
    for (let i = 0; i < runs; i++) {
      const out = join(dir, `${config}-${i}.json`);
      // Concurrency 1: the loop can then be set against the sum of the harness's own run times.
      const c = cli([
        'run',
        '--adapter',
        'reference',
        '--config',
        config,
        '--cases',
        cases,
        '--out',
        out,
        '--quiet',
        '--concurrency',
        '1',
      ]);
      const res = JSON.parse(readFileSync(out, 'utf8'));
      const started = Date.parse(res.started_at);
      const finished = Date.parse(res.finished_at);
      const harness = res.trials.reduce((s, t) => s + t.duration_ms, 0);
      rows.push({
        trials: res.trials.length,
        startup: started - c.t0, // process start to the header: node, cases, runner start
        loop: finished - started,
        harness,
        tail: c.ms - (finished - c.t0), // result written to process exit
        rss: c.rss,
      });
    }
    const m = (k) => median(rows.map((r) => r[k]));
    console.log(
      `engine reference/${config}: ${rows[0].trials} trials (concurrency 1, ${runs} runs, medians): start-up ${m('startup')} ms, ` +
        `trial loop ${m('loop')} ms = ${median(rows.map((r) => r.loop / r.harness)).toFixed(2)}x the harness's own duration_ms ` +
        `(${m('harness')} ms, ${(m('loop') / rows[0].trials).toFixed(0)} ms a trial), exit ${m('tail')} ms, peak RSS ${mib(m('rss'))}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (process.env.BENCH_DOCKER === '0') {
  console.log('docker runner overhead: skipped (BENCH_DOCKER=0)');
} else if (existsSync('scripts/bench-docker.mjs') && existsSync('/var/run/docker.sock')) {
  const r = spawnSync(process.execPath, ['scripts/bench-docker.mjs'], { stdio: 'inherit' });
  process.exitCode = r.status ?? 1;
} else {
  console.log(
    'docker runner overhead: skipped (no Docker daemon at /var/run/docker.sock; run scripts/docker-setup.sh)',
  );
}
