import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  caseIndexPath,
  indexedCases,
  readCaseIndex,
  staleness,
  yamlFilesUnder,
} from '../src/cases/case-index.js';
import { filterCases, loadCases, parseCaseFiles, parseSelectors } from '../src/cases/load.js';
import { caseIndexText } from '../src/cases/write-index.js';
import { builtinCasesDir } from '../src/paths.js';

const fresh = caseIndexText();
const parsed = parseCaseFiles(yamlFilesUnder(builtinCasesDir()));
// A private copy per test: the tests below damage it.
const index = () => JSON.parse(fresh);

describe('the built-in case index (dist/cases-index.json)', () => {
  it('equals a fresh parse of cases/ (run `npm run build` when this fails)', () => {
    expect(existsSync(caseIndexPath()), `${caseIndexPath()} is missing: run npm run build`).toBe(true);
    expect(readFileSync(caseIndexPath(), 'utf8')).toBe(fresh);
  });

  it.each([
    [['subset:smoke']],
    [['subset:standard']],
    [['subset:full']],
    [['phase:recovery', 'tag:smoke']],
    [['id:*-mcp-*']],
    [[]],
  ])('selection %j from the index equals selection from the YAML files', (selectors) => {
    const sel = parseSelectors(selectors.length ? selectors : ['subset:standard']);
    const fromIndex = filterCases(indexedCases(index()), sel);
    expect(fromIndex).toEqual(filterCases(parsed, sel));
    expect(staleness(index(), fromIndex)).toBeUndefined();
    expect(loadCases(selectors)).toEqual(fromIndex);
  });

  it('a selected file whose bytes changed makes the index stale (the caller parses instead)', () => {
    const i = index();
    const smoke = filterCases(indexedCases(i), parseSelectors(['subset:smoke']));
    const victim = i.cases.find((e: { id: string }) => e.id === smoke[0]!.case.id)!;
    victim.sha256 = '0'.repeat(64);
    expect(staleness(i, smoke)).toMatch(/changed since the index was built/);
    // An edit to a file that was not selected costs nothing and changes nothing.
    expect(staleness(i, smoke.slice(1))).toBeUndefined();
  });

  it('from src/, a file added to cases/ since the build makes the index stale', () => {
    const i = index();
    i.files = i.files.slice(1);
    expect(staleness(i, [])).toMatch(/other files than indexed/);
  });

  it('an index of another version or none at all is not read', () => {
    expect(readCaseIndex('/nonexistent/cases-index.json')).toMatch(/ENOENT/);
  });
});
