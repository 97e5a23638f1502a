#!/usr/bin/env node
// Does a perturbation change what a real harness lets through? For every configuration that has both a
// run over the standard cases (DIR/runs/) and one over the perturbation variants (DIR/variants/runs/),
// pairs each variant with its base case and counts, per perturbation, the variants whose attack outcome
// differs from their base case's.
//
//   node scripts/compare-variants.mjs [DIR]        # DIR defaults to examples/results; markdown on stdout
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'examples/results';
const KINDS = ['late-injection', 'nested', 'ambiguous', 'service-error'];
const kindOf = (id) => KINDS.find((k) => id.endsWith(`-${k}`));

const pct = (n, d) => (d ? `${Math.round((100 * n) / d)}%` : '–');
const rows = [];
const flips = [];
for (const file of readdirSync(join(dir, 'variants', 'runs')).sort()) {
  const basePath = join(dir, 'runs', file);
  if (!existsSync(basePath)) continue;
  const variants = JSON.parse(readFileSync(join(dir, 'variants', 'runs', file), 'utf8'));
  if (variants.status !== 'complete') {
    // A cell still running or interrupted would pair a sample as if it were the whole selection.
    console.error(`skipped ${file}: the variants run is ${variants.status}`);
    continue;
  }
  const base = JSON.parse(readFileSync(basePath, 'utf8'));
  const baseA = new Map(base.trials.filter((t) => t.valid).map((t) => [t.case_id, t.labels.a]));
  const per = Object.fromEntries(KINDS.map((k) => [k, { n: 0, a: 0, up: 0, down: 0 }]));
  let all = { n: 0, a: 0, b: 0 };
  for (const t of variants.trials) {
    const kind = kindOf(t.case_id);
    const b = kind && baseA.get(t.case_id.slice(0, -(kind.length + 1)));
    if (!kind || b === undefined || !t.valid) continue;
    const s = per[kind];
    s.n++;
    s.a += t.labels.a ? 1 : 0;
    if (t.labels.a !== b) {
      if (t.labels.a) s.up++;
      else s.down++;
      flips.push(
        `- ${variants.adapter.name} \`${variants.adapter.config}\`: ${t.case_id} ${t.labels.a ? 'succeeded' : 'was blocked'}, its base case ${b ? 'succeeded' : 'was blocked'}`,
      );
    }
    all = { n: all.n + 1, a: all.a + (t.labels.a ? 1 : 0), b: all.b + (b ? 1 : 0) };
  }
  rows.push(
    `| ${variants.adapter.name} | \`${variants.adapter.config}\` | ${all.n} | ${pct(all.b, all.n)} | ${pct(all.a, all.n)} | ` +
      KINDS.map((k) => `${pct(per[k].a, per[k].n)} (+${per[k].up}/−${per[k].down})`).join(' | ') +
      ' |',
  );
}
console.log(
  [
    '| adapter | config | variants | ASR of their base cases | ASR, variants | ' + KINDS.join(' | ') + ' |',
    '| :-- | :-- | --: | --: | --: | ' + KINDS.map(() => '--:').join(' | ') + ' |',
    ...rows,
  ].join('\n'),
);
console.log(
  "\nPer perturbation: ASR over its variants (+N variants whose attack succeeded where the base case's " +
    'was blocked / −N blocked where the base succeeded).',
);
if (flips.length)
  console.log(`\nVariants whose outcome differs from their base case's:\n${flips.join('\n')}`);
