// Bundles each entry point into dist/ (the action runs dist/ directly; nothing is installed on the runner).
import { build } from 'esbuild';

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
    external: ['cpu-features', 'ssh2', '*.node'],
    logLevel: 'warning',
  });
}
console.log(`built ${Object.keys(entries).length} entry points into dist/`);
