import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CASE_INDEX_FORMAT,
  type CaseIndexHeader,
  caseIndexPath,
  indexedCases,
  parseCaseIndex,
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
const index = () => parseCaseIndex(Buffer.from(fresh));

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
    const victim = i.cases.find((e) => e.id === smoke[0]!.case.id)!;
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
    const dir = mkdtempSync(join(tmpdir(), 'hr-index-old-'));
    try {
      // The layout before format 3: the whole library as one JSON document.
      const old = join(dir, 'old.json');
      writeFileSync(
        old,
        `${JSON.stringify({ format: 2, version: '1.0.0', files: [], packs: {}, cases: [] })}\n`,
      );
      expect(readCaseIndex(old)).toMatch(/written by another version \(format 2/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the header line holds what selection needs; each case is its own line, read at its offsets', () => {
    const lines = fresh.split('\n');
    const header = JSON.parse(lines[0]!) as CaseIndexHeader;
    expect(header.format).toBe(CASE_INDEX_FORMAT);
    expect(lines.length).toBe(header.cases.length + 2); // the header, one line a case, the final newline
    // Small enough to parse on every command: the cases' bodies are most of the bytes.
    expect(Buffer.byteLength(lines[0]!)).toBeLessThan(Buffer.byteLength(fresh) / 5);
    const i = index();
    const picked = [i.cases[0]!, i.cases[i.cases.length - 1]!, i.cases[7]!];
    expect(i.casesOf(picked).map((c) => c.id)).toEqual(picked.map((e) => e.id));
    const fromDisk = readCaseIndex();
    if (typeof fromDisk === 'string') throw new Error(fromDisk);
    expect(fromDisk.casesOf(picked)).toEqual(i.casesOf(picked));
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

describe('the bundle reads the index header and the selected cases only', () => {
  // A fresh copy of the action root per test (as above), each damaged in one way.
  const roots: string[] = [];
  afterAll(() => {
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });
  const makeRoot = () => {
    const root = mkdtempSync(join(tmpdir(), 'hr-index-lines-'));
    roots.push(root);
    cpSync(builtinCasesDir(), join(root, 'cases'), { recursive: true });
    mkdirSync(join(root, 'dist'));
    mkdirSync(join(root, 'adapters'));
    writeFileSync(join(root, 'package.json'), '{}');
    writeFileSync(join(root, 'dist', 'cases-index.json'), fresh);
    return root;
  };
  const list = (root: string) =>
    spawnSync(process.execPath, ['dist/cli.js', 'list', 'cases', '--cases', 'subset:smoke'], {
      encoding: 'utf8',
      env: { ...process.env, HARNESS_RISK_ROOT: root },
    });
  const ids = (stdout: string) =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[0]);
  const smokeIds = filterCases(parsed, parseSelectors(['subset:smoke'])).map((c) => c.case.id);
  const header = JSON.parse(fresh.slice(0, fresh.indexOf('\n'))) as CaseIndexHeader;
  const base = Buffer.byteLength(fresh.slice(0, fresh.indexOf('\n'))) + 1;
  /** Overwrites one case's line in the root's index with as many bytes of garbage. */
  const damageLine = (root: string, id: string) => {
    const e = header.cases.find((c) => c.id === id)!;
    const bytes = Buffer.from(fresh);
    bytes.fill('#', base + e.at[0], base + e.at[0] + e.at[1]);
    writeFileSync(join(root, 'dist', 'cases-index.json'), bytes);
    return e;
  };

  it('a case that is not selected is never read, neither its index line nor its file', () => {
    const root = makeRoot();
    const e = damageLine(root, 'cfo-chat-payroll-key-to-accountant');
    // Had the YAML path run instead, this file would fail the command.
    writeFileSync(join(root, 'cases', e.file), 'id: [broken\n');
    const r = list(root);
    expect(r.status, r.stderr).toBe(0);
    expect(ids(r.stdout)).toEqual(smokeIds);
  });

  it('a selected case whose index line is damaged is read from its YAML file instead', () => {
    const root = makeRoot();
    damageLine(root, smokeIds[2]!);
    const r = list(root);
    expect(r.status, r.stderr).toBe(0);
    expect(ids(r.stdout)).toEqual(smokeIds);
  });

  it('an index cut short after its header is not trusted', () => {
    const root = makeRoot();
    writeFileSync(join(root, 'dist', 'cases-index.json'), fresh.slice(0, base + 10));
    const r = list(root);
    expect(r.status, r.stderr).toBe(0);
    expect(ids(r.stdout)).toEqual(smokeIds);
  });

  it('a rule pack changed so that it no longer parses: the YAML path names the pack file', () => {
    // The index digests the packs' bytes without parsing them (that was ~40 % of `list`'s CPU).
    const root = makeRoot();
    writeFileSync(join(root, 'cases', 'rules', 'generic-egress.yaml'), 'id: [broken\n');
    const r = list(root);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/generic-egress\.yaml:\d+: not valid YAML/);
  });
});
