// Benchmarks (targets live here, not in timed unit tests):
//  1. engine throughput on the embedded default: the smoke subset against reference/open and
//     reference/guarded, median wall time per trial over several runs, and peak RSS;
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

try {
  for (const config of ['open', 'guarded']) {
    const perTrial = [];
    let rss = 0;
    let trials = 0;
    for (let i = 0; i < runs; i++) {
      const out = join(dir, `${config}-${i}.json`);
      const t0 = process.hrtime.bigint();
      // GNU time reports the peak RSS; without it the memory column is left out.
      const argv = [
        process.execPath,
        'dist/cli.js',
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
      ];
      const r = hasTime
        ? spawnSync('/usr/bin/time', ['-f', '%M', ...argv], { encoding: 'utf8' })
        : spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0) throw new Error(`run failed: ${r.stderr}`);
      trials = JSON.parse(readFileSync(out, 'utf8')).trials.length;
      perTrial.push(ms / trials);
      rss = Math.max(rss, Number(r.stderr.trim().split('\n').pop()) || 0);
    }
    console.log(
      `engine reference/${config}: ${trials} trials, median ${median(perTrial).toFixed(0)} ms per trial (concurrency 2, ${runs} runs), ${hasTime ? `peak RSS ${(rss / 1024).toFixed(0)} MiB` : 'peak RSS n/a (install GNU time)'}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (existsSync('scripts/bench-docker.mjs') && existsSync('/var/run/docker.sock')) {
  const r = spawnSync(process.execPath, ['scripts/bench-docker.mjs'], { stdio: 'inherit' });
  process.exitCode = r.status ?? 1;
} else {
  console.log(
    'docker runner overhead: skipped (no Docker daemon at /var/run/docker.sock; run scripts/docker-setup.sh)',
  );
}
