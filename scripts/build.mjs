// Bundles each entry point into dist/ (the action runs dist/ directly; nothing is installed on the runner).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { asciiOnly } from './build/ascii.mjs';

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

// zod's namespace export `z.locales` pulls in all of its ~60 message locales (~500 KiB), which nothing here
// uses (English is registered on its own); in the reference harness that was most of the bundle and ~29 ms
// of every trial's start-up. Only English is kept: `z.locales.en` still works, other locales are absent.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? // Relative to the repository: the path lands in a bundle comment, which must not depend on the clone's folder.
          {
            path: relative(process.cwd(), join(dirname(args.importer), '../locales/en.js')).replace(
              /\\/g,
              '/',
            ),
            namespace: 'zod-en',
          }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-en' }, (args) => ({
      loader: 'js',
      contents: `export { default as en } from './en.js';`,
      resolveDir: dirname(resolve(args.path)),
    }));
  },
};

const entries = {
  index: 'src/action/main.ts',
  cli: 'src/cli.ts',
  'reference-harness': 'examples/reference-harness/src/main.ts',
  svc: 'src/world/svc-cli.ts',
  'mcp-stdio': 'src/world/mcp-stdio-cli.ts',
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
        name === 'cli' || name === 'svc' || name === 'mcp-stdio' || name === 'reference-harness'
          ? "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
          : "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    // supports-color: `debug` requires it optionally (in a try); whether some dev dependency happens to
    // install it must not change the bundle, so it stays a runtime lookup that fails quietly.
    external: ['cpu-features', '*.node', 'supports-color'],
    plugins: [stubSsh2, zodEnglishOnly],
    logLevel: 'warning',
    // The bundles trust the index's list of files (CI checks dist/ is current); src/ lists the folder.
    define: { __HR_BUNDLED__: 'true' },
  });
  const file = `dist/${name}.js`;
  const text = readFileSync(file, 'utf8');
  const ascii = asciiOnly(text, file);
  if (ascii !== text) writeFileSync(file, ascii);
}
console.log(`built ${Object.keys(entries).length} entry points into dist/`);

// GitHub's GraphQL schema, read by the world's GraphQL endpoint (src/world/github-graphql-schema.ts): the
// bundles cannot read node_modules, so the pinned package's file is copied beside them.
copyFileSync('node_modules/@octokit/graphql-schema/schema.graphql', 'dist/github-schema.graphql');

// The built-in case library as one validated JSON file (src/cases/case-index.ts says why). The writer is
// TypeScript, so it is bundled to a temporary module first, inside the checkout so that its imports
// (zod, yaml) resolve from node_modules.
mkdirSync('node_modules/.cache', { recursive: true });
const tmp = mkdtempSync('node_modules/.cache/hr-index-');
try {
  const writer = join(tmp, 'write-index.mjs');
  await build({
    // One module holding the case index's writer and the adapter index's (src/adapters/adapter-index.ts),
    // each imported from where it is defined.
    stdin: {
      contents: [
        "export { writeCaseIndex } from './src/cases/write-index.ts';",
        "export { writeAdapterIndex } from './src/adapters/adapter-index.ts';",
        "export { listBuiltinAdapters } from './src/adapters/load.ts';",
      ].join('\n'),
      resolveDir: process.cwd(),
      sourcefile: 'write-index.ts',
      loader: 'ts',
    },
    outfile: writer,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
  // Resolved from this checkout, not from the temporary folder.
  process.env.HARNESS_RISK_ROOT ??= process.cwd();
  const { writeCaseIndex, writeAdapterIndex, listBuiltinAdapters } = await import(
    pathToFileURL(join(process.cwd(), writer)).href
  );
  console.log(`indexed ${writeCaseIndex('dist/cases-index.json')} built-in cases into dist/cases-index.json`);
  // src/adapters/adapter-index.ts says why.
  const adapters = writeAdapterIndex('dist/adapters-index.json', listBuiltinAdapters());
  console.log(`indexed ${adapters} built-in adapters into dist/adapters-index.json`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
