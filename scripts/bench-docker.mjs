// Container overhead per trial: the median over several runs of one trivial trial under the docker
// runner (create + attach + start + wait + collect + remove, and the ownership hand-over) against the same
// trial as a plain child process. Goal: under 0.5 s added per trial.
//
//   node scripts/bench-docker.mjs [--runs 7] [--warm N [--gap-ms MS]] [--image harness-risk/node:local] [--json]
//   (without --warm: warm pool with 1 s between trials, warm pool back to back, one container per trial)
//
// From scripts/bench.mjs:  const { benchDocker } = await import('./bench-docker.mjs');
//                          const r = await benchDocker({ runs: 7 });   // r.skipped is set without Docker
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCRIPT = "require('fs').writeFileSync(process.env.OUT, 'x'); console.log('done')";

/** Bundles src/runner/docker.ts (dependencies stay external) and imports it. */
async function loadRunner() {
  const { build } = await import('esbuild');
  const out = path.join(ROOT, 'node_modules/.cache/hr-bench/docker-runner.mjs');
  await build({
    entryPoints: [path.join(ROOT, 'src/runner/docker.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return import(`${pathToFileURL(out).href}?t=${Date.now()}`);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function trialDirs() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hr-bench-'));
  const dirs = { root };
  for (const k of ['workspace', 'home', 'tmp', 'bin']) {
    dirs[k] = path.join(root, k);
    mkdirSync(dirs[k]);
  }
  return dirs;
}

function processTrial(dirs) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(process.execPath, ['-e', SCRIPT], {
      cwd: dirs.workspace,
      env: {
        PATH: `${dirs.bin}:/usr/local/bin:/usr/bin:/bin`,
        HOME: dirs.home,
        TMPDIR: dirs.tmp,
        OUT: path.join(dirs.workspace, 'out'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('exit', (code) => {
      if (code !== 0 || !out.includes('done')) reject(new Error(`process trial failed (${code})`));
      else resolve(performance.now() - t0);
    });
  });
}

async function dockerTrial(runner, dirs, i) {
  const view = runner.view(dirs);
  const t0 = performance.now();
  const o = await runner.run({
    trial_id: `bench-${i}`,
    dirs,
    command: ['node', '-e', SCRIPT],
    cwd: view.workspace,
    env: {
      PATH: [view.bin, ...view.systemPath].join(':'),
      HOME: view.home,
      TMPDIR: view.tmp,
      OUT: `${view.workspace}/out`,
      HR_SVC: `http://${view.endpointHost}:40000`,
    },
    timeout_ms: 30_000,
    read_only: [],
  });
  const ms = performance.now() - t0;
  if (o.exit_code !== 0 || !o.stdout.includes('done')) {
    throw new Error(`docker trial failed: ${JSON.stringify({ ...o, stdout: o.stdout.slice(-500) })}`);
  }
  return ms;
}

/**
 * @param {{ runs?: number, image?: string, warm?: number, gapMs?: number, log?: (s: string) => void }} [opts]
 * @returns {Promise<{ skipped?: string, runs?: number, process_ms?: number, docker_ms?: number,
 *   added_ms?: number, ratio?: number, start_ms?: number, stop_ms?: number, samples?: object }>}
 */
export async function benchDocker(opts = {}) {
  const runs = Math.max(5, opts.runs ?? 7);
  const log = opts.log ?? (() => {});
  const mod = await loadRunner();
  const unreachable = await mod.dockerReachable();
  if (unreachable) return { skipped: `${unreachable} (sh scripts/docker-setup.sh)` };
  const runner = new mod.DockerRunner({
    runId: `bench-${process.pid}-${Date.now().toString(36)}`,
    image: opts.image,
    warm: opts.warm,
    onWarning: (m) => log(`warning: ${m}`),
  });
  const roots = [];
  const fresh = () => {
    const d = trialDirs();
    roots.push(d.root);
    return d;
  };
  try {
    // The process trials first, alone: a warm container starting in the background would slow them down.
    await processTrial(fresh());
    const proc = [];
    for (let i = 0; i < runs; i++) {
      proc.push(await processTrial(fresh()));
      log(`process run ${i + 1}/${runs}: ${proc[i].toFixed(0)} ms`);
    }
    const s0 = performance.now();
    await runner.start();
    const start_ms = performance.now() - s0;
    // Warm-up (page cache, first network attach); the warm container for the next trial starts meanwhile.
    await dockerTrial(runner, fresh(), 'warm');
    const dock = [];
    for (let i = 0; i < runs; i++) {
      // A real trial lasts seconds, time enough for the next warm container to start: `gap` models it.
      if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
      dock.push(await dockerTrial(runner, fresh(), i));
      log(`docker run ${i + 1}/${runs} : ${dock[i].toFixed(0)} ms`);
    }
    const t0 = performance.now();
    await runner.stop();
    const stop_ms = performance.now() - t0;
    const p = median(proc);
    const d = median(dock);
    return {
      runs,
      warm: opts.warm ?? 1,
      gap_ms: opts.gapMs ?? 0,
      process_ms: Math.round(p),
      docker_ms: Math.round(d),
      added_ms: Math.round(d - p),
      ratio: Number((d / p).toFixed(2)),
      start_ms: Math.round(start_ms),
      stop_ms: Math.round(stop_ms),
      samples: { process: proc.map(Math.round), docker: dock.map(Math.round) },
    };
  } finally {
    await runner.stop();
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  }
}

export function formatBench(r) {
  if (r.skipped) return `docker overhead: skipped (${r.skipped})`;
  const goal = r.added_ms < 500 ? 'within' : 'OVER';
  const mode =
    r.warm > 0
      ? `warm pool ${r.warm}, ${r.gap_ms ? `${r.gap_ms} ms between trials` : 'trials back to back'}`
      : 'one container per trial';
  return (
    `docker overhead per trial (${mode}; median of ${r.runs}): process ${r.process_ms} ms, docker ${r.docker_ms} ms, ` +
    `added ${r.added_ms} ms, ratio ${r.ratio}x (${goal} the 500 ms goal); run start ${r.start_ms} ms, stop ${r.stop_ms} ms`
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const arg = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const json = args.includes('--json');
  // Default: the warm pool with trials that leave it time to warm up (as real trials do), the warm pool
  // with trivial trials back to back (its worst case), and one container per trial (warm 0).
  const modes =
    arg('--warm') !== undefined
      ? [{ warm: Number(arg('--warm')), gapMs: Number(arg('--gap-ms') ?? 0) }]
      : [
          { warm: 1, gapMs: 1000 },
          { warm: 1, gapMs: 0 },
          { warm: 0, gapMs: 0 },
        ];
  const results = [];
  for (const m of modes) {
    const r = await benchDocker({
      runs: Number(arg('--runs') ?? 7),
      image: arg('--image'),
      ...m,
      log: json ? () => {} : (s) => console.error(s),
    });
    results.push(r);
    if (!json) console.log(formatBench(r));
    if (r.skipped) break;
  }
  if (json) console.log(JSON.stringify(results));
}
