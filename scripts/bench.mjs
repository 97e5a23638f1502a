// `npm run bench`: every speed target of issue 17 measured in one run, each printed beside its target
// with PASS or MISS. Medians over BENCH_RUNS runs; the load average is printed at start and end (the
// machine may be shared: ratios within one run are what carry over). docs/benchmark.md says what each
// line measures and how.
//
//   BENCH_RUNS=N (3)   BENCH_LARGE=0 (skip the 1,998-trial run and the 14,400-trial writer)
//   BENCH_DOCKER=0     BENCH_HARNESSES=0 (skip Codex and Claude Code)   BENCH_PROMPTFOO=0
//   HARNESS_RISK_CACHE (default /var/cache/harness-risk/harnesses when it exists)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, load, median, medians, mib, secs, target } from './bench/lib.mjs';
import { compareWithPromptfoo, PROMPTFOO } from './bench/promptfoo.mjs';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const large = process.env.BENCH_LARGE !== '0';
const off = (k) => process.env[k] === '0';
const SHARED_CACHE = '/var/cache/harness-risk/harnesses';
if (!process.env.HARNESS_RISK_CACHE && existsSync(SHARED_CACHE))
  process.env.HARNESS_RISK_CACHE = SHARED_CACHE;
const dir = mkdtempSync(join(tmpdir(), 'hr-bench-'));
const MiB = 2 ** 20;
const out = (name) => join(dir, name);
const marks = out('marks.jsonl');
let n = 0;

const git = (...a) => execFileSync('git', a, { encoding: 'utf8' }).trim();
if (!existsSync('dist/cli.js')) throw new Error('dist/cli.js is missing: run npm run build first');
console.log(
  `npm run bench — ${new Date().toISOString()}, commit ${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'src').length ? ' (src/ modified)' : ''}, node ${process.version}, BENCH_RUNS=${runs}`,
);
console.log(`load average at start: ${load()}`);

/** A run of the reference harness (or another adapter) with the engine's marks; its result parsed. */
function run(adapter, config, args, env) {
  const file = out(`r${n++}.json`);
  const c = cli(['run', '--adapter', adapter, '--config', config, ...args, '--out', file, '--quiet'], {
    marks,
    env,
  });
  const res = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(file, { force: true });
  return { ...c, res };
}

/** The trial loop (first trial's start to the result's finish) against the harness's own duration_ms. */
function loop(adapter, config, cases) {
  const rows = Array.from({ length: runs }, () => {
    const r = run(adapter, config, ['--cases', cases, '--concurrency', '1']);
    const first = r.marks.first_trial.at_ms;
    const harness = r.res.trials.reduce((s, t) => s + t.duration_ms, 0);
    const loopMs = Date.parse(r.res.finished_at) - first;
    return {
      trials: r.res.trials.length,
      valid: r.res.trials.filter((t) => t.valid).length,
      loop: loopMs,
      harness,
      ratio: loopMs / harness,
      engine: (loopMs - harness) / r.res.trials.length,
    };
  });
  const m = medians(rows);
  return target(
    `trial loop ${adapter}/${config} (${cases}, ${m.trials} trials, ${m.valid} valid, concurrency 1): ${secs(m.loop)} = ${m.ratio.toFixed(3)}x the harness's own duration_ms (${secs(m.harness)}; ${m.engine.toFixed(0)} ms of engine a trial)`,
    m.ratio,
    1.05,
    '1.05x',
  );
}

try {
  // 1. Start-up: a command that loads the selection and exits, then a 1-trial run up to its first trial.
  console.log('\n## start-up');
  const list = medians(
    Array.from({ length: runs }, () => {
      const c = cli(['list', 'cases', '--cases', 'subset:smoke']);
      return { ms: c.ms, cpu: c.cpu_ms, kib: c.peak_kib };
    }),
  );
  console.log(target(`list cases --cases subset:smoke: wall ${secs(list.ms)}`, list.ms, 300, '0.3 s'));
  console.log(target(`list cases --cases subset:smoke: CPU ${secs(list.cpu)}`, list.cpu, 300, '0.3 s'));
  console.log(
    target(
      `list cases --cases subset:smoke: peak RSS ${mib(list.kib * 1024)}`,
      list.kib / 1024,
      80,
      '80 MiB',
    ),
  );
  const one = Array.from({ length: runs }, () =>
    run('reference', 'open', ['--cases', 'id:setup-guide-disables-approval', '--concurrency', '1']),
  );
  const at = (mark, k) => median(one.map((r) => r.marks[mark][k]));
  const startWall = median(one.map((r) => r.marks.first_trial.at_ms - r.t0));
  console.log(
    target(`1-trial run, spawn to first trial: wall ${secs(startWall)}`, startWall, 300, '0.3 s') +
      `; in the engine: ${['engine_start', 'adapter_loaded', 'cases_loaded', 'runner_started', 'first_trial'].map((k) => `${k} ${at(k, 'uptime_ms')} ms`).join(', ')}`,
  );
  console.log(
    target(
      `1-trial run, engine CPU before the first trial: ${secs(at('first_trial', 'cpu_ms'))}`,
      at('first_trial', 'cpu_ms'),
      300,
      '0.3 s',
    ),
  );
  console.log(
    target(
      `1-trial run, engine peak RSS before the first trial (VmHWM): ${mib(at('first_trial', 'peak_rss_bytes'))}`,
      at('first_trial', 'peak_rss_bytes') / MiB,
      80,
      '80 MiB',
    ) + `; RSS then ${mib(at('first_trial', 'rss_bytes'))}`,
  );

  // 2. The trial loop against the harness's own time.
  console.log('\n## trial loop');
  console.log(loop('reference', 'open', 'subset:smoke'));
  console.log(loop('reference', 'guarded', 'subset:smoke'));
  for (const [name, config] of [
    ['codex', 'workspace-write'],
    ['claude-code', 'default'],
  ]) {
    const yaml = readFileSync(`adapters/${name}/adapter.yaml`, 'utf8');
    const version = /npm:\s*\{[^}]*version:\s*"?([^"}\s,]+)/.exec(yaml)?.[1];
    const installed = join(process.env.HARNESS_RISK_CACHE ?? '.cache/harnesses', `${name}-${version}`);
    if (off('BENCH_HARNESSES')) console.log(`trial loop ${name}: skipped (BENCH_HARNESSES=0)`);
    else if (!existsSync(installed))
      console.log(
        `trial loop ${name}: skipped (${installed} is not installed; set HARNESS_RISK_CACHE to where it is)`,
      );
    else console.log(loop(name, config, 'subset:smoke'));
  }

  // 3. Docker against the process runner (scripts/bench-docker.mjs; its output shape may vary).
  console.log('\n## docker runner');
  if (off('BENCH_DOCKER')) console.log('docker/process: skipped (BENCH_DOCKER=0)');
  else {
    const r = spawnSync(process.execPath, ['scripts/bench-docker.mjs', '--json'], { encoding: 'utf8' });
    let parsed;
    try {
      parsed = JSON.parse(r.stdout.trim().split('\n').pop());
    } catch {
      console.log(
        `docker/process: bench-docker.mjs gave no JSON (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(-300)}`,
      );
    }
    for (const d of parsed ? [parsed].flat() : []) {
      if (d.skipped) {
        console.log(`docker/process: skipped (${d.skipped})`);
        break;
      }
      const proc = d.process_ms_per_trial ?? d.process_ms;
      const dock = d.docker_ms_per_trial ?? d.docker_ms;
      const mode =
        d.warm === undefined ? '' : ` (warm ${d.warm}${d.gap_ms ? `, ${d.gap_ms} ms between trials` : ''})`;
      console.log(
        target(
          `docker/process${mode}: ${dock} ms / ${proc} ms a trial = ${Number(d.ratio).toFixed(2)}x`,
          d.ratio,
          1.3,
          '1.3x',
        ) + `; run start ${d.start_ms} ms, stop ${d.stop_ms} ms`,
      );
    }
  }

  // 4. Memory at size: real runs of the reference harness (the engine's own peak, from its last mark).
  console.log('\n## memory at size');
  for (const [seeds, skip] of [
    [72, false],
    [333, !large],
  ]) {
    if (skip) {
      console.log(`engine peak RSS at ${6 * seeds} trials: skipped (BENCH_LARGE=0)`);
      continue;
    }
    const r = run('reference', 'open', [
      '--cases',
      'subset:smoke',
      '--seeds',
      String(seeds),
      '--concurrency',
      '4',
    ]);
    const peak = r.marks.run_finished.peak_rss_bytes;
    console.log(
      target(
        `engine peak RSS at ${r.res.trials.length} trials (6 smoke cases × ${seeds} seeds, concurrency 4): ${mib(peak)}`,
        peak / MiB,
        250,
        '250 MiB',
      ) + `; wall ${secs(r.ms)}, ${(r.ms / r.res.trials.length).toFixed(0)} ms a trial`,
    );
  }
  for (const [trials, skip] of [
    [2160, false],
    [14400, !large],
  ]) {
    if (skip) {
      console.log(`result writer at ${trials} trials: skipped (BENCH_LARGE=0)`);
      continue;
    }
    const r = spawnSync(process.execPath, ['scripts/bench/writer.mjs', String(trials)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`scripts/bench/writer.mjs ${trials}: ${r.stderr}`);
    const w = JSON.parse(r.stdout.trim().split('\n').pop());
    const f = w.first100;
    const l = w.last100;
    console.log(
      target(
        `result writer at ${trials} trials (real writer, recorded trials, one every ${w.gap_ms} ms): per trial first 100 ${f.amortized_ms.toFixed(3)} ms, last 100 ${l.amortized_ms.toFixed(3)} ms amortized = ${(l.amortized_ms / f.amortized_ms).toFixed(2)}x`,
        l.amortized_ms / f.amortized_ms,
        2,
        '2x',
      ) +
        `; per add() median ${f.median_ms.toFixed(3)} / ${l.median_ms.toFixed(3)} ms; ${w.rewrites} full rewrites (${secs(w.rewrite_ms)}), finish ${w.finish_ms.toFixed(0)} ms, ${(w.share * 100).toFixed(2)} % of the run`,
    );
    console.log(
      target(
        `result writer at ${trials} trials: peak RSS ${mib(w.peak_rss_bytes)}`,
        w.peak_rss_bytes / MiB,
        250,
        '250 MiB',
      ),
    );
  }

  // The job's secret mask over what a report and a result file carry.
  {
    const r = spawnSync(process.execPath, ['scripts/bench/mask.mjs'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`scripts/bench/mask.mjs: ${r.stderr}`);
    const m = JSON.parse(r.stdout.trim().split('\n').pop());
    console.log(
      target(
        `secret mask, ${m.secrets} secrets, 64 KiB stderr tail: ${m.tail_64k_ms.toFixed(1)} ms`,
        m.tail_64k_ms,
        50,
        '50 ms',
      ),
    );
    console.log(
      target(
        `secret mask, ${m.secrets} secrets, ${mib(m.result_bytes)} result as one text: ${secs(m.result_5mb_text_ms)}`,
        m.result_5mb_text_ms,
        2000,
        '2 s',
      ) +
        `; string by string (deep) ${secs(m.result_5mb_deep_ms)}; index built in ${m.build_ms.toFixed(0)} ms`,
    );
  }

  // 5. The same job against promptfoo.
  console.log('\n## against promptfoo');
  if (off('BENCH_PROMPTFOO')) console.log('promptfoo: skipped (BENCH_PROMPTFOO=0)');
  else {
    const p = compareWithPromptfoo({ runs, dir: out('promptfoo') });
    if (p.skipped) console.log(`promptfoo: skipped (${p.skipped})`);
    else
      console.log(
        target(
          `20 items of 200 ms at concurrency ${p.concurrency}: harness-risk ${secs(p.ours_ms)}, ${PROMPTFOO} ${secs(p.promptfoo_ms)} = ${p.ratio.toFixed(2)}x`,
          p.ratio,
          0.7,
          '0.7x',
        ),
      );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  console.log(`\nload average at end: ${load()}`);
}
