// Build step (scripts/build.mjs): parses and validates every built-in case file, exactly as a run without
// an index would, and writes the index. A case file with a mistake fails the build, naming file and line.
import { writeFileSync } from 'node:fs';
import { builtinCasesDir } from '../paths.js';
import { caseIndexText as indexText, yamlFilesUnder } from './case-index.js';
import { parseCaseFiles } from './load.js';

/** The index's exact bytes; the test that the committed index equals a fresh parse compares these. */
export function caseIndexText(): string {
  return indexText(parseCaseFiles(yamlFilesUnder(builtinCasesDir())));
}

export function writeCaseIndex(out: string): number {
  const text = caseIndexText();
  writeFileSync(out, text);
  return (JSON.parse(text.slice(0, text.indexOf('\n'))) as { cases: unknown[] }).cases.length;
}
