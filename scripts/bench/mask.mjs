// The job's secret mask at scale: 300 secrets (each in every form, src/report/mask-forms.ts) over a
// 64 KiB stderr tail and over a 5 MB run result (as one JSON text, and string by string as `deep` masks
// an object), with a few secrets planted so every pass has work. Bundles src/report/mask.ts with esbuild.
// Prints one JSON line: milliseconds per pass (median of 5) and the number of patterns.
//
//   node scripts/bench/mask.mjs [--secrets 300]
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const si = process.argv.indexOf('--secrets');
const nSecrets = si > 0 ? Number(process.argv[si + 1]) : 300;

async function loadMask() {
  const { build } = await import('esbuild');
  const out = join(ROOT, 'node_modules/.cache/hr-bench/mask.mjs');
  await build({
    stdin: { contents: "export * from './src/report/mask.ts';\n", resolveDir: ROOT, loader: 'ts' },
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'error',
  });
  return import(pathToFileURL(out).href);
}

const { SecretMask } = await loadMask();
const secrets = Array.from({ length: nSecrets }, (_, i) =>
  i % 3 === 0
    ? `postgres://app:${randomBytes(9).toString('base64url')}@db${i}/prod`
    : randomBytes(18).toString('base64url'),
);
const mask = new SecretMask(secrets);

// Ordinary output: lines of log text with paths, numbers and ids; a few secrets in several forms.
const line = (i) =>
  `[${i}] runtime/architecture-page-diagram-beacon s0: exit 1 after ${i * 7} ms, wrote /tmp/hr-${i}/workspace/notes.md (sha ${randomBytes(8).toString('hex')})\n`;
function text(bytes) {
  const parts = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    let l = line(i);
    if (i % 997 === 0) {
      const s = secrets[i % secrets.length];
      l +=
        [s, Buffer.from(s).toString('hex'), Buffer.from(`x:${s}`).toString('base64'), [...s].join(' ')].join(
          ' | ',
        ) + '\n';
    }
    parts.push(l);
    n += l.length;
  }
  return parts.join('');
}

const time = (fn) => {
  const ms = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  return ms.sort((a, b) => a - b)[2];
};

const buildMs = time(() => new SecretMask(secrets).text('warm up the index'));
mask.text('warm');
const tail = text(64 * 1024);
const big = text(5 * 1024 * 1024);
const doc = {
  trials: big
    .split('\n')
    .map((l, i) => ({ id: `t${i}`, facts: { error_tail: l, files_changed: [l.slice(0, 40)] } })),
};
const json = JSON.stringify(doc);
const check = mask.text(big);
if (secrets.some((s) => check.includes(s))) throw new Error('mask missed a planted secret');
console.log(
  JSON.stringify({
    secrets: nSecrets,
    build_ms: buildMs,
    tail_64k_ms: time(() => mask.text(tail)),
    result_5mb_text_ms: time(() => mask.text(json)),
    result_5mb_deep_ms: time(() => mask.deep(doc)),
    result_bytes: json.length,
  }),
);
if (process.env.MASK_PROFILE) {
  console.log(
    'shapes only',
    time(() => new SecretMask([]).text(json)),
  );
  console.log(
    'values only',
    time(() => new SecretMask(secrets, { shapes: false }).text(json)),
  );
}
