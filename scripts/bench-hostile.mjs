#!/usr/bin/env node
// Issue 33's full-size hostile trees, against the engine's snapshot (src/world/snapshot.ts) with its
// default caps: 300,000 folders (1,000 to a parent) and 40 sparse files of 511 MiB in a trial's HOME.
// Prints, per scenario, how long the snapshot took, the engine's peak RSS, and what the cap recorded.
//
//   node scripts/bench-hostile.mjs [dirs|sparse|all]
//
// Each scenario runs in a child process of its own, so the RSS is that scenario's. It bundles the
// snapshot from src/ with esbuild (a devDependency), as scripts/bench-contained.mjs does.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const which = process.argv[2] ?? 'all';

if (process.env.HR_BENCH_CHILD) {
  const { build } = await import('esbuild');
  const outfile = join(tmpdir(), `harness-risk-bench-hostile-${process.pid}.mjs`);
  await build({
    stdin: {
      contents:
        "export { snapshotDetailed } from './src/world/snapshot.ts';\n" +
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
  const { snapshotDetailed, createTrialDirs, removeTrialDirs } = await import(pathToFileURL(outfile).href);
  rmSync(outfile, { force: true });
  const dirs = await createTrialDirs(join(tmpdir(), `hr-bench-hostile-${process.pid}`), which);
  if (which === 'dirs') {
    for (let p = 0; p < 300; p++) {
      const parent = join(dirs.home, 'flood', `p${p}`);
      mkdirSync(parent, { recursive: true });
      for (let i = 0; i < 1000; i++) mkdirSync(join(parent, `d${i}`));
    }
  } else {
    for (let i = 0; i < 40; i++) execFileSync('truncate', ['-s', '511M', join(dirs.home, `sparse-${i}.img`)]);
  }
  const rss0 = process.resourceUsage().maxRSS;
  const t0 = performance.now();
  const snap = await snapshotDetailed(dirs);
  const ms = performance.now() - t0;
  const rss = process.resourceUsage().maxRSS;
  await removeTrialDirs(dirs);
  rmSync(dirname(dirs.root), { recursive: true, force: true });
  console.log(
    JSON.stringify({
      scenario: which,
      snapshot_s: Math.round(ms / 100) / 10,
      peak_rss_mib: Math.round(rss / 1024),
      rss_before_snapshot_mib: Math.round(rss0 / 1024),
      files: Object.keys(snap.files).length,
      cap: snap.cap ?? null,
    }),
  );
} else {
  for (const s of which === 'all' ? ['dirs', 'sparse'] : [which]) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), s], {
      env: { ...process.env, HR_BENCH_CHILD: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    });
    process.stdout.write(r.stdout);
  }
}
