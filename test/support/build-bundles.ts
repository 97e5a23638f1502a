// Vitest's global set-up: builds dist/ from this tree once, before any test runs (scripts/build.mjs, as
// `npm run build`), so every test that spawns a bundle (dist/cli.js, dist/index.js, and through the
// reference adapter dist/reference-harness.js and dist/svc.js) runs this tree's code, never a stale
// committed bundle. It builds into dist/ itself, since the engine finds the reference harness and the
// case index there ({{action_root}}/dist/); the build is deterministic, so on a tree whose dist/ is
// current (CI checks that before `npm test`) the files come out byte-identical and git sees no change.
// HARNESS_RISK_E2E_USE_DIST=1 tests the dist/ that is there instead (e.g. the committed one, before a
// release).
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export default function buildBundles(): void {
  if (process.env.HARNESS_RISK_E2E_USE_DIST === '1') {
    console.log('dist/ used as it is (HARNESS_RISK_E2E_USE_DIST=1), not rebuilt');
    return;
  }
  const started = Date.now();
  try {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'pipe' });
  } catch (e) {
    const err = e as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(
      `the tests' global set-up could not build dist/ (node scripts/build.mjs):\n${err.stdout ?? ''}${err.stderr ?? ''}`,
    );
  }
  console.log(
    `built dist/ from this tree in ${((Date.now() - started) / 1000).toFixed(1)} s (test/support/build-bundles.ts)`,
  );
}
