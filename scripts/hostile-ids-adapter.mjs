#!/usr/bin/env node
// Writes the hostile-ids adapter (test/fixtures/hostile-ids): the reference adapter with its launch
// wrapped in the id filter, for measuring by hand what test/hostile-ids.test.ts checks:
//   node scripts/hostile-ids-adapter.mjs OUT.yaml LOG [--only-role-tag]
//   node dist/cli.js run --adapter OUT.yaml --config open --cases subset:standard --out R.json
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [out, log, mode] = process.argv.slice(2);
if (!out || !log) {
  console.error('usage: hostile-ids-adapter.mjs OUT.yaml LOGFILE [--only-role-tag]');
  process.exit(2);
}
const ref = parse(readFileSync(join(root, 'adapters/reference/adapter.yaml'), 'utf8'));
ref.name = 'hostile-ids';
ref.launch.command = [
  process.execPath,
  join(root, 'test/fixtures/hostile-ids/id-filter.mjs'),
  resolve(log),
  ...(mode === '--only-role-tag' ? [mode] : []),
  '--',
  ...ref.launch.command,
];
writeFileSync(out, stringify(ref));
