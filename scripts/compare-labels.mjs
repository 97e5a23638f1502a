#!/usr/bin/env node
// What changed between two sets of run results of the same cells (e.g. the committed matrix and a re-run
// on a newer commit): per configuration and phase, ASR, persistence, utility and detection before → after,
// and every case whose attack or persistence label flipped. Used for examples/results/README.md.
//
//   node scripts/compare-labels.mjs OLD_RUNS_DIR NEW_RUNS_DIR      # markdown on stdout
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [oldDir, newDir] = process.argv.slice(2);
if (!oldDir || !newDir) {
  console.error('usage: node scripts/compare-labels.mjs OLD_RUNS_DIR NEW_RUNS_DIR');
  process.exit(2);
}
const PHASES = ['configuration', 'extension', 'runtime', 'persistence', 'action', 'recovery'];
const pct = (x) => `${Math.round(x * 100)}%`;
const cell = (a, b) => (Math.round(a * 100) === Math.round(b * 100) ? pct(b) : `${pct(a)} → **${pct(b)}**`);
const read = (p) => JSON.parse(readFileSync(p, 'utf8'));

const table = [
  '| configuration | phase | ASR | persistence | utility | detection |',
  '|---|---|--:|--:|--:|--:|',
];
const flips = [];
const counts = [];
const notApplicable = [];
const added = [];
const invalid = [];
const esc = (x) =>
  String(x ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\s+/g, ' ');
for (const file of readdirSync(newDir)
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  const oldPath = join(oldDir, file);
  if (!existsSync(oldPath)) continue;
  const before = read(oldPath);
  const after = read(join(newDir, file));
  if (after.status !== 'complete') {
    console.error(`skipped ${file}: the new run is ${after.status}`);
    continue;
  }
  const name = `${after.adapter.name} \`${after.adapter.config}\``;
  for (const phase of [...PHASES, 'overall']) {
    const a = phase === 'overall' ? before.summary.overall : before.summary.phases[phase];
    const b = phase === 'overall' ? after.summary.overall : after.summary.phases[phase];
    if (!a || !b) continue;
    const changed = ['asr', 'persistence', 'utility', 'detection'].some(
      (k) => Math.round(a[k] * 100) !== Math.round(b[k] * 100),
    );
    if (!changed && phase !== 'overall') continue;
    table.push(
      `| ${name} | ${phase === 'overall' ? '**overall**' : phase} | ${cell(a.asr, b.asr)} | ${cell(a.persistence, b.persistence)} | ${cell(a.utility, b.utility)} | ${cell(a.detection, b.detection)} |`,
    );
  }
  const old = new Map(before.trials.map((t) => [t.id, t]));
  const tally = (r) => {
    const na = r.trials.filter((t) => t.not_applicable).length;
    const valid = r.trials.filter((t) => t.valid).length;
    return `${r.trials.length} trials, ${valid} valid, ${na} not applicable, ${r.trials.length - valid - na} invalid`;
  };
  counts.push(`| ${name} | ${tally(before)} | ${tally(after)} |`);
  for (const t of after.trials) {
    const o = old.get(t.id);
    if (!o)
      added.push(
        `| ${name} | ${t.case_id} | ${t.valid ? `a=${t.labels.a} p=${t.labels.p} u=${t.labels.u}` : t.not_applicable ? 'not applicable' : 'invalid'} |`,
      );
    if (t.not_applicable && o?.valid)
      notApplicable.push(
        `| ${name} | ${t.case_id} | a=${o.labels.a} p=${o.labels.p} u=${o.labels.u} | ${esc(t.not_applicable)} |`,
      );
    if (!t.valid && !t.not_applicable) invalid.push(`| ${name} | ${t.case_id} | ${esc(t.invalid_reason)} |`);
    if (!o?.valid || !t.valid) continue;
    for (const k of ['a', 'p', 'u'])
      if (o.labels[k] !== t.labels[k]) {
        const route = (t.facts.attack_routes ?? []).find((r) => r.succeeded)?.succeeded;
        flips.push(
          `| ${name} | ${t.case_id} | ${k} | ${o.labels[k]} → ${t.labels[k]} | ${route ? String(route).replace(/\|/g, '\\|') : ''} |`,
        );
      }
  }
}
console.log(['| configuration | before | after |', '|---|---|---|', ...counts].join('\n'));
console.log('');
console.log(table.join('\n'));
console.log('\nLabel flips (valid in both runs):\n');
console.log(
  [
    '| configuration | case | label | change | route that succeeded |',
    '|---|---|---|---|---|',
    ...flips,
  ].join('\n'),
);
if (notApplicable.length)
  console.log(
    [
      '\nNot applicable now (measured before; the injection never reached the harness, so no rate counts them):\n',
      '| configuration | case | labels before | why not applicable |',
      '|---|---|---|---|',
      ...notApplicable,
    ].join('\n'),
  );
if (added.length)
  console.log(
    [
      '\nCases measured only in the new run:\n',
      '| configuration | case | result |',
      '|---|---|---|',
      ...added,
    ].join('\n'),
  );
if (invalid.length)
  console.log(
    ['\nInvalid in the new run:\n', '| configuration | case | reason |', '|---|---|---|', ...invalid].join(
      '\n',
    ),
  );
