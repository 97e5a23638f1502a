// The Docker runner against the process runner, in real engine runs: the same cases (default the smoke
// subset against reference/open, concurrency 1), the two runners interleaved run by run, and per runner
// the median wall per trial (the time between one trial's end and the next's, as the CLI reports them,
// the first from the run's header), the start (process start to the header: node, cases, runner start)
// and the stop (the last trial to the exit: runner teardown, result). Prints the load average, since
// every figure on a shared machine moves with it; the ratio is what carries over.
//
//   node scripts/bench-docker.mjs [--runs 4] [--cases subset:smoke] [--image harness-risk/node:local]
//                                 [--spans] [--floor] [--json]
//
//   --spans  also time each phase of every docker trial (HR_DOCKER_SPANS, src/runner/docker/spans.ts)
//            and print the median per phase and the daemon requests per trial
//   --floor  also measure Docker's own latency on this machine: a bare `exec true` round trip (create,
//            start, end, inspect) in a started container, and a container's create+start and remove
//
// Each run's busy CPU time of the whole machine (/proc/stat) is printed per trial too: what the daemon,
// containerd and runc cost beside the harness, and the wall per trial that CPU alone needs on this
// machine's cores.
//
// The line beginning `docker/process:` is the one to quote; --json prints one object with at least
// { ratio, docker_ms_per_trial, process_ms_per_trial, start_ms, stop_ms, docker_cpu_ms_per_trial }.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'dist/cli.js');

export function median(xs) {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Busy CPU time of the whole machine so far, ms (/proc/stat: user, nice, system, irq, softirq). */
function machineBusyMs() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return ((f[0] + f[1] + f[2] + f[5] + f[6]) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/**
 * One CLI run; every output line stamped on arrival. Returns the header's time, each trial line's time
 * (ms from the spawn) and the exit's.
 */
function cliRun(args, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = [];
    let tail = '';
    const stamp = (d) => {
      const now = performance.now() - t0;
      const parts = (tail + d).split('\n');
      tail = parts.pop();
      for (const l of parts) lines.push([now, l]);
    };
    p.stdout.on('data', stamp);
    p.stderr.on('data', stamp);
    p.on('error', reject);
    p.on('close', (code) => {
      const exit = performance.now() - t0;
      const header = lines.find(([, l]) => l.startsWith('▶'))?.[0];
      const trials = lines.filter(([, l]) => /^\s*\[\d+\/\d+\]/.test(l)).map(([t]) => t);
      // Exit 0 or 1 (a gate) are both finished runs; without a header or trials it did not run.
      if (header === undefined || trials.length === 0)
        reject(
          new Error(`harness-risk ${args.join(' ')} exited ${code}:\n${lines.map((l) => l[1]).join('\n')}`),
        );
      else resolve({ header, trials, exit, code });
    });
  });
}

/** Wall per trial of one run: header → trial 1 → trial 2 …, each interval one trial. */
export function perTrial(run) {
  const out = [];
  let prev = run.header;
  for (const t of run.trials) {
    out.push(t - prev);
    prev = t;
  }
  return out;
}

/** Median per phase over the trial lines of a spans file (spans.ts), in the order phases first appear. */
export function summarizeSpans(text) {
  const by = new Map();
  const calls = new Map();
  const totals = [];
  const removes = [];
  const stops = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const j = JSON.parse(line);
    if (j.trial === 'remove') {
      removes.push(j.total_ms);
      continue;
    }
    if (j.trial === 'stop') {
      stops.push(j);
      continue;
    }
    totals.push(j.total_ms);
    const seen = new Map();
    for (const s of j.spans) seen.set(s.name, (seen.get(s.name) ?? 0) + s.ms);
    for (const [k, v] of seen) by.set(k, [...(by.get(k) ?? []), v]);
    for (const [k, v] of Object.entries(j.calls ?? {})) calls.set(k, [...(calls.get(k) ?? []), v]);
  }
  return {
    trials: totals.length,
    total_ms: median(totals),
    phases: [...by].map(([name, xs]) => ({ name, ms: median(xs), n: xs.length })),
    calls: Object.fromEntries([...calls].map(([k, xs]) => [k, median(xs)])),
    remove_ms: median(removes),
    stop: {
      total_ms: median(stops.map((j) => j.total_ms)),
      ...Object.fromEntries(
        [...new Set(stops.flatMap((j) => j.spans.map((x) => x.name)))].map((n) => [
          n,
          median(stops.flatMap((j) => j.spans.filter((x) => x.name === n).map((x) => x.ms))),
        ]),
      ),
    },
  };
}

const socketPath = () => process.env.DOCKER_HOST?.replace(/^unix:\/\//, '') || '/var/run/docker.sock';

/** Why Docker cannot be used here, or undefined. */
async function dockerDown() {
  const { default: Docker } = await import('dockerode');
  const ac = new AbortController();
  const t = setTimeout(() => ac.abort(), 3000);
  try {
    await new Docker({ socketPath: socketPath() }).ping({ abortSignal: ac.signal });
    return undefined;
  } catch (e) {
    return `Docker is not reachable at ${socketPath()}: ${e.message}`;
  } finally {
    clearTimeout(t);
  }
}

/** Docker's own latency: `exec true` round trips, a container's create+start and its removal. */
export async function dockerFloor({ image = 'harness-risk/node:local', runs = 9 } = {}) {
  const { default: Docker } = await import('dockerode');
  const docker = new Docker({ socketPath: socketPath() });
  const made = [];
  const removed = [];
  const execs = [];
  const labels = { 'harness-risk.run': `bench-floor-${process.pid}` };
  for (let i = 0; i < Math.max(3, Math.ceil(runs / 3)); i++) {
    const t0 = performance.now();
    const c = await docker.createContainer({
      Image: image,
      Entrypoint: ['/bin/sh', '-c', 'while :; do sleep 3600; done'],
      Labels: labels,
      HostConfig: { NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'] },
    });
    await c.start();
    made.push(performance.now() - t0);
    try {
      for (let k = 0; k < 3; k++) {
        const e0 = performance.now();
        const ex = await c.exec({ Cmd: ['true'], AttachStdout: true, AttachStderr: true });
        const s = await ex.start({ hijack: true, stdin: false });
        await new Promise((res) => {
          s.on('end', res);
          s.on('close', res);
          s.resume();
        });
        const info = await ex.inspect();
        if (info.Running) throw new Error('exec still running after its stream ended');
        execs.push(performance.now() - e0);
      }
    } finally {
      const r0 = performance.now();
      await c.remove({ force: true });
      removed.push(performance.now() - r0);
    }
  }
  return {
    exec_true_ms: Math.round(median(execs)),
    create_start_ms: Math.round(median(made)),
    remove_ms: Math.round(median(removed)),
    samples: execs.length,
  };
}

/**
 * @param {{ runs?: number, cases?: string, image?: string, spans?: boolean, log?: (s: string) => void }} [opts]
 */
export async function benchDocker(opts = {}) {
  const log = opts.log ?? (() => {});
  if (!existsSync(CLI)) return { skipped: 'dist/cli.js is missing (npm run build)' };
  const down = await dockerDown();
  if (down) return { skipped: `${down} (sh scripts/docker-setup.sh)` };
  const image = opts.image ?? 'harness-risk/node:local';
  const cases = opts.cases ?? 'subset:smoke';
  const runs = Math.max(1, opts.runs ?? 4);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hr-bench-docker-'));
  const spansPath = path.join(dir, 'spans.jsonl');
  const load = [loadavg()];
  const rows = { process: [], docker: [] };
  try {
    for (let i = 0; i < runs; i++) {
      // Interleaved, and which runner goes first alternates: load that drifts hits both alike.
      const order = i % 2 ? ['docker', 'process'] : ['process', 'docker'];
      for (const runner of order) {
        const env = { ...process.env };
        if (runner === 'docker' && opts.spans) env.HR_DOCKER_SPANS = spansPath;
        else delete env.HR_DOCKER_SPANS;
        const out = path.join(dir, `${runner}-${i}.json`);
        const args = [
          'run',
          '--adapter',
          'reference',
          '--config',
          'open',
          '--cases',
          cases,
          '--concurrency',
          '1',
        ];
        args.push('--runner', runner, '--out', out, ...(runner === 'docker' ? ['--image', image] : []));
        const busy0 = machineBusyMs();
        const r = await cliRun(args, env);
        const busy = machineBusyMs() - busy0;
        const res = JSON.parse(readFileSync(out, 'utf8'));
        const invalid = res.trials.filter((t) => !t.valid).map((t) => `${t.id}: ${t.invalid_reason}`);
        if (invalid.length) throw new Error(`${runner} run ${i + 1}: invalid trials:\n${invalid.join('\n')}`);
        rows[runner].push({
          ...r,
          labels: res.trials.map((t) => `${t.id}:${JSON.stringify(t.labels)}`).sort(),
          // The harness's own run as the runner reports it (exec start to exit under docker).
          harness: res.trials.map((t) => t.duration_ms),
          // The machine's CPU over the whole run (engine, harness, sandbox; for docker also the daemon,
          // containerd, the shims and runc), per trial.
          cpu_per_trial: busy / res.trials.length,
        });
        const pt = perTrial(r);
        log(
          `${runner} run ${i + 1}/${runs}: ${pt.length} trials, median ${median(pt).toFixed(0)} ms a trial, start ${r.header.toFixed(0)} ms, stop ${(r.exit - r.trials.at(-1)).toFixed(0)} ms (load ${loadavg()})`,
        );
        load.push(loadavg());
      }
    }
    const m = (runner, f) => median(rows[runner].flatMap(f));
    const p = m('process', perTrial);
    const d = m('docker', perTrial);
    const pStart = m('process', (r) => [r.header]);
    const dStart = m('docker', (r) => [r.header]);
    const pStop = m('process', (r) => [r.exit - r.trials.at(-1)]);
    const dStop = m('docker', (r) => [r.exit - r.trials.at(-1)]);
    const pH = m('process', (r) => r.harness);
    const dH = m('docker', (r) => r.harness);
    const pCpu = m('process', (r) => [r.cpu_per_trial]);
    const dCpu = m('docker', (r) => [r.cpu_per_trial]);
    const cores = os.cpus().length;
    const same = rows.docker.every(
      (r, i) => JSON.stringify(r.labels) === JSON.stringify(rows.process[i].labels),
    );
    const result = {
      cases,
      runs,
      trials_per_run: rows.docker[0].trials.length,
      ratio: Number((d / p).toFixed(3)),
      docker_ms_per_trial: Math.round(d),
      process_ms_per_trial: Math.round(p),
      added_ms_per_trial: Math.round(d - p),
      // Wall per trial = the harness's own run + what the runner and the engine add around it.
      docker_harness_ms: Math.round(dH),
      process_harness_ms: Math.round(pH),
      docker_around_ms: Math.round(d - dH),
      process_around_ms: Math.round(p - pH),
      // What the docker runner adds to a run's start and stop (over the process runner's).
      start_ms: Math.round(dStart - pStart),
      stop_ms: Math.round(dStop - pStop),
      docker_start_ms: Math.round(dStart),
      process_start_ms: Math.round(pStart),
      docker_stop_ms: Math.round(dStop),
      process_stop_ms: Math.round(pStop),
      // Busy CPU of the whole machine per trial (/proc/stat over each run, start and stop included), and
      // the wall per trial that alone would take on this machine's cores with perfect overlap.
      process_cpu_ms_per_trial: Math.round(pCpu),
      docker_cpu_ms_per_trial: Math.round(dCpu),
      cores,
      docker_cpu_floor_ratio: Number((dCpu / cores / p).toFixed(2)),
      labels_identical: same,
      loadavg: load,
      samples: {
        process: rows.process.flatMap(perTrial).map(Math.round),
        docker: rows.docker.flatMap(perTrial).map(Math.round),
      },
    };
    if (opts.spans && existsSync(spansPath)) result.spans = summarizeSpans(readFileSync(spansPath, 'utf8'));
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatBench(r) {
  if (r.skipped) return `docker/process: skipped (${r.skipped})`;
  const lines = [
    `docker/process: ${r.ratio.toFixed(2)}x wall per trial on ${r.cases} (docker ${r.docker_ms_per_trial} ms, process ${r.process_ms_per_trial} ms, +${r.added_ms_per_trial} ms; medians of ${r.samples.docker.length} trials each, ${r.runs} interleaved runs of each, concurrency 1; ${r.ratio <= 1.3 ? 'within' : 'OVER'} the 1.3x bar); per run +${r.start_ms} ms start, +${r.stop_ms} ms stop; labels ${r.labels_identical ? 'identical' : 'DIFFER'}; load average ${r.loadavg[0]} → ${r.loadavg.at(-1)}`,
    `  of which the harness's own run (duration_ms): docker ${r.docker_harness_ms} ms, process ${r.process_harness_ms} ms; around it (runner + engine): docker ${r.docker_around_ms} ms, process ${r.process_around_ms} ms`,
    `  machine CPU per trial (/proc/stat, every process, start and stop included): docker ${r.docker_cpu_ms_per_trial} ms, process ${r.process_cpu_ms_per_trial} ms; on ${r.cores} cores docker's CPU alone needs ${Math.round(r.docker_cpu_ms_per_trial / r.cores)} ms a trial = ${r.docker_cpu_floor_ratio}x the process runner's wall`,
  ];
  if (r.spans) {
    lines.push(`docker trial phases (median of ${r.spans.trials} trials, ms; total ${r.spans.total_ms}):`);
    for (const s of r.spans.phases) lines.push(`  ${s.name.padEnd(36)} ${String(s.ms).padStart(8)}`);
    lines.push(
      `  daemon requests per trial: ${Object.entries(r.spans.calls)
        .map(([k, n]) => `${k} ×${n}`)
        .join(', ')}`,
    );
    lines.push(`  container removal (after the trial, in the background): ${r.spans.remove_ms} ms`);
    lines.push(
      `  runner stop: ${Object.entries(r.spans.stop)
        .map(([k, v]) => `${k} ${v} ms`)
        .join(', ')}`,
    );
  }
  if (r.floor)
    lines.push(
      `docker floor: exec true round trip ${r.floor.exec_true_ms} ms, container create+start ${r.floor.create_start_ms} ms, remove ${r.floor.remove_ms} ms (medians of ${r.floor.samples})`,
    );
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const arg = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const json = args.includes('--json');
  const log = json ? () => {} : (s) => console.error(s);
  const r = await benchDocker({
    runs: arg('--runs') ? Number(arg('--runs')) : undefined,
    cases: arg('--cases'),
    image: arg('--image'),
    spans: args.includes('--spans'),
    log,
  });
  if (!r.skipped && args.includes('--floor')) r.floor = await dockerFloor({ image: arg('--image') });
  if (json) console.log(JSON.stringify(r));
  else console.log(formatBench(r));
  if (process.env.BENCH_DOCKER_LOG) appendFileSync(process.env.BENCH_DOCKER_LOG, `${JSON.stringify(r)}\n`);
}
