// The run-result writer at scale, without running the trials: drives the real writer (src/result/writer.ts,
// bundled here with esbuild) with N trial records copied from real runs (examples/results/first-four/runs/*.json:
// Claude Code, Codex, OpenClaw, pi), on a simulated clock that moves TRIAL_GAP_MS per trial (so the
// writer's periodic full rewrites fall where they would in a real run) plus the real time the writer
// itself takes. Prints one JSON line: the writer's per-trial cost over the first and last 100 trials (as
// measured per add(), and amortized: each mid-run full rewrite spread over the trials it re-wrote since
// the one before), the full rewrites, finish(), and the process's peak RSS (VmHWM).
//
//   node scripts/bench/writer.mjs N [--gap-ms 300]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const n = Number(process.argv[2] ?? 2160);
const gi = process.argv.indexOf('--gap-ms');
const gapMs = gi > 0 ? Number(process.argv[gi + 1]) : 300;

async function loadWriter() {
  const { build } = await import('esbuild');
  const out = join(ROOT, 'node_modules/.cache/hr-bench/result-writer.mjs');
  await build({
    stdin: {
      contents:
        "export { ResultWriter } from './src/result/writer.ts';\nexport { WrittenFiles } from './src/result/integrity.ts';\n",
      resolveDir: ROOT,
      loader: 'ts',
    },
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

const peakRss = () =>
  Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;

const { ResultWriter, WrittenFiles } = await loadWriter();
const runsDir = join(ROOT, 'examples/results/first-four/runs');
const runs = readdirSync(runsDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(join(runsDir, f), 'utf8')));
const pool = runs.flatMap((r) => r.trials);
// The header of the largest run, with its case list (what a real result carries).
const { trials: _t, summary: _s, status: _st, finished_at: _f, ...header } = runs[0];
const dir = mkdtempSync(join(tmpdir(), 'hr-bench-writer-'));
let sim = 0;
const t0 = performance.now();
const now = () => sim + (performance.now() - t0);
try {
  const w = new ResultWriter(join(dir, 'result.json'), header, new WrittenFiles(), { now });
  const cost = new Float64Array(n);
  let rewrites = 0;
  let rewriteMs = 0;
  /** Each trial's cost with the rewrites spread over the trials each covered (amortized). */
  const amortized = new Float64Array(n);
  let since = 0;
  for (let i = 0; i < n; i++) {
    const src = pool[i % pool.length];
    // A distinct trial per record: its own id and seed, as --seeds would give.
    const seed = Math.floor(i / pool.length);
    const trial = { ...src, id: `${src.case_id}.s${seed}.${i}`, seed };
    sim += gapMs;
    const before = w.documentBytes;
    const a = performance.now();
    w.add(trial);
    cost[i] = performance.now() - a;
    amortized[i] = cost[i];
    if (w.documentBytes !== before) {
      rewrites++;
      rewriteMs += cost[i];
      // The rewrite re-wrote every trial since the last: its cost belongs to those, evenly.
      const share = cost[i] / (i + 1 - since);
      amortized[i] = 0;
      for (let k = since; k <= i; k++) amortized[k] += share;
      since = i + 1;
    }
  }
  const beforeFinish = peakRss();
  const f0 = performance.now();
  w.finish('complete');
  const finishMs = performance.now() - f0;
  const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const win = (a, b) => {
    const xs = Array.from(cost.slice(a, b)).sort((x, y) => x - y);
    return {
      mean_ms: mean(xs),
      median_ms: xs[xs.length >> 1],
      amortized_ms: mean(Array.from(amortized.slice(a, b))),
    };
  };
  const total = cost.reduce((s, x) => s + x, 0);
  console.log(
    JSON.stringify({
      trials: n,
      gap_ms: gapMs,
      first100: win(0, Math.min(100, n)),
      last100: win(Math.max(0, n - 100), n),
      total_ms: total,
      rewrites,
      rewrite_ms: rewriteMs,
      // The writer's share of the simulated run (trials arriving every gap_ms).
      share: total / (n * gapMs),
      finish_ms: finishMs,
      journal_bytes: w.journalBytes,
      peak_rss_bytes: peakRss(),
      peak_rss_before_finish_bytes: beforeFinish,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
