#!/usr/bin/env node
// Measures what containment costs per trial: a trivial harness (/bin/true) through the process runner,
// uncontained and contained, N times each (default 15); prints the median and p90 in ms.
//
//   node scripts/bench-contained.mjs [N]
//
// It bundles the runner from src/ with esbuild (a devDependency), as scripts/install-harnesses.mjs does.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const n = Number(process.argv[2] ?? 15);
const outfile = join(tmpdir(), `harness-risk-bench-contained-${process.pid}.mjs`);
await build({
  stdin: {
    contents:
      "export { ProcessRunner } from './src/runner/process.ts';\n" +
      "export { createTrialDirs, removeTrialDirs } from './src/world/trial-dirs.ts';\n",
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile,
  logLevel: 'silent',
});
const { ProcessRunner, createTrialDirs, removeTrialDirs } = await import(pathToFileURL(outfile).href);
rmSync(outfile, { force: true });
const base = join(tmpdir(), `hr-bench-${process.pid}`);
for (const containment of ['off', 'required']) {
  const runner = new ProcessRunner({ containment });
  await runner.start();
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const dirs = await createTrialDirs(base, 't');
    await runner.prepare?.(dirs);
    runner.view(dirs);
    const o = await runner.run({
      trial_id: 't',
      dirs,
      command: ['/bin/true'],
      cwd: dirs.workspace,
      env: { PATH: '/usr/bin:/bin' },
      timeout_ms: 10_000,
      read_only: [],
    });
    if (o.exit_code !== 0) throw new Error(`trial failed: ${JSON.stringify(o)}`);
    await runner.release?.(dirs);
    await removeTrialDirs(dirs);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(0);
  console.log(
    `${containment === 'off' ? 'uncontained' : 'contained  '}  median ${at(0.5)} ms  p90 ${at(0.9)} ms  (${runner.info().mechanism})`,
  );
  await runner.stop();
}
rmSync(base, { recursive: true, force: true });
