import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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

describe('the bundle reads only what is selected', () => {
  // A copy of the action root (cases/, the index, the files that mark a root) that the bundled CLI is
  // pointed at with HARNESS_RISK_ROOT, so case files can be damaged without touching the checkout.
  const root = mkdtempSync(join(tmpdir(), 'hr-index-root-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  cpSync(builtinCasesDir(), join(root, 'cases'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  mkdirSync(join(root, 'adapters'));
  writeFileSync(join(root, 'package.json'), '{}');
  writeFileSync(join(root, 'dist', 'cases-index.json'), fresh);
  const list = () =>
    spawnSync(process.execPath, ['dist/cli.js', 'list', 'cases', '--cases', 'subset:smoke'], {
      encoding: 'utf8',
      env: { ...process.env, HARNESS_RISK_ROOT: root },
    });
  const smokeIds = filterCases(parsed, parseSelectors(['subset:smoke'])).map((c) => c.case.id);

  it('a broken file that was not selected is never parsed', () => {
    // Not a smoke case: with the index, listing the smoke subset never opens it.
    writeFileSync(join(root, 'cases/action/cfo-chat-payroll-key-to-accountant.yaml'), 'id: [broken\n');
    const r = list();
    expect(r.status, r.stderr).toBe(0);
    expect(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]),
    ).toEqual(smokeIds);
  });

  it('a selected file changed since the build: the YAML files are parsed, errors name file:line', () => {
    writeFileSync(join(root, 'cases/configuration/setup-guide-disables-approval.yaml'), 'id: [broken\n');
    const r = list();
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/\.yaml:\d+: not valid YAML/);
  });
});
