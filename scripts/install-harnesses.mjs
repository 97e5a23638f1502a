#!/usr/bin/env node
// Installs the pinned harnesses of the built-in adapters into the harness cache (.cache/harnesses by
// default), the same way a run does on first use: used by CI to fill (and cache) it before the real-
// harness tests. Idempotent: what is already installed is skipped.
//
//   node scripts/install-harnesses.mjs [--cache DIR] [ADAPTER…]     (default: every adapter that installs)
//
// It bundles src/adapters/install.ts on the fly with esbuild (a devDependency), so there is one
// implementation of the install logic.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
process.env.HARNESS_RISK_ROOT ??= root;

const args = process.argv.slice(2);
let cache = process.env.HARNESS_RISK_CACHE || join(root, '.cache', 'harnesses');
const names = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--cache') cache = resolve(args[++i]);
  else if (args[i] === '-h' || args[i] === '--help') {
    console.log('usage: node scripts/install-harnesses.mjs [--cache DIR] [ADAPTER…]');
    process.exit(0);
  } else names.push(args[i]);
}

const outfile = join(tmpdir(), `harness-risk-install-${process.pid}.mjs`);
await build({
  stdin: {
    contents:
      "export { ensureInstalled } from './src/adapters/install.ts';\n" +
      "export { loadAdapter, listBuiltinAdapters } from './src/adapters/load.ts';\n",
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile,
  logLevel: 'warning',
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
});
const { ensureInstalled, loadAdapter, listBuiltinAdapters } = await import(pathToFileURL(outfile).href);
rmSync(outfile, { force: true });

const chosen = names.length ? names : listBuiltinAdapters();
let failed = 0;
for (const name of chosen) {
  const { adapter, dir } = loadAdapter(name);
  if (!adapter.install?.npm && !adapter.install?.node) {
    if (names.length) console.log(`${name}: nothing to install`);
    continue;
  }
  const t0 = Date.now();
  try {
    // The adapter's folder is install.warm's HR_ADAPTER_DIR (OpenClaw's warm.sh lives there).
    const info = await ensureInstalled(adapter, cache, {
      adapterDir: dir,
      log: (l) => console.log(`  ${l}`),
    });
    const size = info.dir ? execFileSync('du', ['-sh', info.dir], { encoding: 'utf8' }).split('\t')[0] : '';
    console.log(
      `${name}: ${info.installed ? 'installed' : 'already installed'} ${adapter.install?.npm ? `${adapter.install.npm.package}@${adapter.install.npm.version}` : ''}` +
        `${adapter.install?.node ? ` + Node.js ${adapter.install.node}` : ''} in ${info.dir ?? cache} (${size}, ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
  } catch (e) {
    failed++;
    console.error(`${name}: ${e.message}`);
  }
}
process.exit(failed ? 1 : 0);
