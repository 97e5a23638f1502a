#!/usr/bin/env -S npx tsx
// Writes each base case's explicit `taxonomy:` list, the default derived from what the case is
// (src/cases/taxonomy.ts defaultTaxonomy), as one line after `severity:`; nothing else in the file changes.
// Variants are not touched: cases/generate-variants.mjs copies the base's list into them (re-run it after).
//
//   npx tsx scripts/write-taxonomy.ts [FOLDER]            add the list where a case has none (default: cases/)
//   npx tsx scripts/write-taxonomy.ts --rewrite [FOLDER]  also replace existing lists (after a mapping change)
//   npx tsx scripts/write-taxonomy.ts --check [FOLDER]    exit 1 naming the base cases without a list
//
// Re-running it changes nothing (idempotent). Adjust the mapping in src/cases/taxonomy.ts, not the files.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { yamlFilesUnder } from '../src/cases/case-index.js';
import { defaultTaxonomy } from '../src/cases/taxonomy.js';

const ROOT = join(import.meta.dirname, '..');

/** The top-level `taxonomy:` field's lines (a flow list on one line, or a block list below it). */
function fieldLines(lines: string[]): [start: number, end: number] | undefined {
  const start = lines.findIndex((l) => /^taxonomy:/.test(l));
  if (start < 0) return undefined;
  let end = start + 1;
  while (end < lines.length && /^\s+(-|#)|^\s*$/.test(lines[end]!) && !/^\S/.test(lines[end]!)) end++;
  return [start, end];
}

/** The file's text with its taxonomy line set, or the same text when there is nothing to do. */
export function withTaxonomy(text: string, ids: string[], rewrite: boolean): string {
  const lines = text.split('\n');
  const line = `taxonomy: [${ids.join(', ')}]`;
  const at = fieldLines(lines);
  if (at) {
    if (!rewrite) return text;
    lines.splice(at[0], at[1] - at[0], line);
    return lines.join('\n');
  }
  const severity = lines.findIndex((l) => /^severity:/.test(l));
  if (severity < 0) throw new Error('no top-level severity: line to write the taxonomy after');
  lines.splice(severity + 1, 0, line);
  return lines.join('\n');
}

function main(argv: string[]): number {
  const rewrite = argv.includes('--rewrite');
  const check = argv.includes('--check');
  const folder = argv.find((a) => !a.startsWith('--')) ?? join(ROOT, 'cases');
  let changed = 0;
  const missing: string[] = [];
  for (const file of yamlFilesUnder(folder)) {
    const text = readFileSync(file, 'utf8');
    const doc = parse(text);
    if (!doc || typeof doc !== 'object' || doc.variant_of) continue;
    if (check) {
      if (!Array.isArray(doc.taxonomy)) missing.push(relative(process.cwd(), file));
      continue;
    }
    const next = withTaxonomy(text, defaultTaxonomy(doc), rewrite);
    if (next !== text) {
      writeFileSync(file, next);
      changed++;
    }
  }
  if (check) {
    for (const f of missing) console.error(`${f}: no taxonomy: list (run npx tsx scripts/write-taxonomy.ts)`);
    return missing.length ? 1 : 0;
  }
  console.log(`${changed} case file(s) written; now run node cases/generate-variants.mjs`);
  return 0;
}

if (process.argv[1] && import.meta.filename === process.argv[1])
  process.exitCode = main(process.argv.slice(2));
