// Bundles each entry point into dist/ (the action runs dist/ directly; nothing is installed on the runner).
import { build } from 'esbuild';

// dockerode requires ssh2 for ssh:// Docker hosts only; ssh2 cannot be bundled (it reads files next to
// itself), and dist/ must run without node_modules. A stub says what is not supported instead.
const stubSsh2 = {
  name: 'stub-ssh2',
  setup(b) {
    b.onResolve({ filter: /^ssh2$/ }, () => ({ path: 'ssh2', namespace: 'stub' }));
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
      loader: 'js',
      contents:
        'module.exports = { Client: class { constructor() { throw new Error("ssh:// Docker hosts are not supported; use a local socket or tcp://"); } } };',
    }));
  },
};

const entries = {
  index: 'src/action/main.ts',
  cli: 'src/cli.ts',
  'reference-harness': 'examples/reference-harness/src/main.ts',
  svc: 'src/world/svc-cli.ts',
};

for (const [name, entry] of Object.entries(entries)) {
  await build({
    entryPoints: [entry],
    outfile: `dist/${name}.js`,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    sourcemap: false,
    legalComments: 'none',
    // Some CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js:
        name === 'cli' || name === 'svc' || name === 'reference-harness'
          ? "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
          : "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    external: ['cpu-features', '*.node'],
    plugins: [stubSsh2],
    logLevel: 'warning',
  });
}
console.log(`built ${Object.keys(entries).length} entry points into dist/`);
