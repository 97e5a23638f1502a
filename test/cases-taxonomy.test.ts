import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTaxonomy } from '../scripts/write-taxonomy.js';
import { caseRevision, filterCases, loadCaseFile, loadCases, parseSelectors } from '../src/cases/load.js';
import { scaffoldCase } from '../src/cases/scaffold.js';
import { defaultTaxonomy, type TaxonomySubject, taxaOf } from '../src/cases/taxonomy.js';
import { UserError } from '../src/errors.js';
import { BUILTIN_FRAMEWORKS, BUILTIN_TAXA, builtinTaxon, taxonMatches } from '../src/spec/taxonomy.js';

const BASE = 'cases/action/invoice-mail-changes-payee.yaml';

const subject = (
  phase: TaxonomySubject['phase'],
  entry_point: TaxonomySubject['entry_point'],
  effect: TaxonomySubject['effect'],
  attack?: object,
): TaxonomySubject => ({
  phase,
  entry_point,
  effect,
  ...(attack ? { checks: { attack: attack as never } } : {}),
});

describe('defaultTaxonomy: what the case is → ids', () => {
  it.each([
    // every case: an indirect injection hijacking the goal
    [
      subject('runtime', 'web_page', 'state_change'),
      ['LLM01', 'LLM06', 'ASI01', 'ASI02', 'AML.T0051.001', 'AML.T0053'],
    ],
    [
      subject('runtime', 'message', 'disclosure', { canary_leaked: { name: 'K' } }),
      ['LLM01', 'LLM02', 'ASI01', 'ASI02', 'AML.T0051.001', 'AML.T0055', 'AML.T0057', 'AML.T0086'],
    ],
    [
      subject('extension', 'extension_package', 'execution'),
      [
        'LLM01',
        'LLM03',
        'LLM06',
        'ASI01',
        'ASI04',
        'ASI05',
        'AML.T0010.001',
        'AML.T0011.001',
        'AML.T0050',
        'AML.T0051.001',
        'AML.T0053',
      ],
    ],
    [
      subject('persistence', 'memory_entry', 'persistence', {
        any_of: [{ memory_contains: { text: 'x' } }, { file_contains: { path: 'AGENTS.md', text: 'x' } }],
      }),
      ['LLM01', 'LLM06', 'ASI01', 'ASI06', 'AML.T0051.001', 'AML.T0080.000', 'AML.T0081'],
    ],
    [
      subject('recovery', 'ops_record', 'exhaustion'),
      ['LLM01', 'LLM10', 'ASI01', 'ASI02', 'AML.T0034', 'AML.T0051.001'],
    ],
    [
      subject('action', 'agent_message', 'state_change', { not: { file_deleted: { path: 'db.sqlite' } } }),
      ['LLM01', 'LLM06', 'ASI01', 'ASI02', 'ASI07', 'AML.T0051.001', 'AML.T0053', 'AML.T0101'],
    ],
    [
      subject('runtime', 'github_event', 'disclosure'),
      ['LLM01', 'LLM02', 'ASI01', 'ASI02', 'ASI03', 'AML.T0051.001', 'AML.T0057', 'AML.T0086', 'AML.T0093'],
    ],
  ])('%o', (s, ids) => {
    expect(defaultTaxonomy(s)).toEqual(ids);
  });
});

describe('the vocabulary', () => {
  it('ids are unique, every entry names a built-in framework and an https page', () => {
    expect(new Set(BUILTIN_TAXA.map((t) => t.id)).size).toBe(BUILTIN_TAXA.length);
    for (const t of BUILTIN_TAXA) {
      expect(BUILTIN_FRAMEWORKS.map((f) => f.id)).toContain(t.framework);
      expect(t.helpUri).toMatch(/^https:\/\//);
    }
    expect(BUILTIN_TAXA.filter((t) => t.framework === 'owasp-llm-2025')).toHaveLength(10);
    expect(BUILTIN_TAXA.filter((t) => t.framework === 'owasp-agentic-2026')).toHaveLength(10);
  });
  it('a selector names the id or its parent technique, in any case', () => {
    expect(taxonMatches('AML.T0051.001', 'AML.T0051')).toBe(true);
    expect(taxonMatches('AML.T0051.001', 'aml.t0051.001')).toBe(true);
    expect(taxonMatches('AML.T0051', 'AML.T0051.001')).toBe(false);
    expect(taxonMatches('LLM10', 'LLM1')).toBe(false);
  });
});

describe('the built-in library', () => {
  const all = loadCases(['subset:full']);
  it('every case carries ≥1 id of each built-in framework, and every id resolves', () => {
    expect(all.length).toBeGreaterThan(500);
    for (const lc of all) {
      for (const id of lc.case.taxonomy!) expect(builtinTaxon(id), `${lc.case.id}: ${id}`).toBeDefined();
      const frameworks = new Set(lc.case.taxonomy!.map((id) => builtinTaxon(id)?.framework));
      for (const f of BUILTIN_FRAMEWORKS)
        expect(frameworks.has(f.id), `${lc.case.id} lacks ${f.id}`).toBe(true);
    }
  });
  it('every variant carries its base case taxonomy', () => {
    const byId = new Map(all.map((lc) => [lc.case.id, lc.case]));
    const variants = all.filter((lc) => lc.case.variant_of);
    expect(variants.length).toBeGreaterThan(300);
    for (const v of variants) expect(v.case.taxonomy).toEqual(byId.get(v.case.variant_of!)!.taxonomy);
  });
  it('every base case file writes its list (scripts/write-taxonomy.ts --check)', () => {
    for (const lc of all.filter((x) => !x.case.variant_of))
      expect(/^taxonomy:/m.test(readFileSync(lc.file, 'utf8')), lc.file).toBe(true);
  });
  it('taxonomy: selects by id and by parent technique', () => {
    const llm10 = filterCases(all, parseSelectors(['taxonomy:LLM10']));
    expect(llm10.length).toBeGreaterThan(0);
    expect(llm10.every((lc) => lc.case.taxonomy!.includes('LLM10'))).toBe(true);
    expect(llm10.length).toBeLessThan(all.length);
    expect(filterCases(all, parseSelectors(['taxonomy:AML.T0051']))).toHaveLength(all.length);
    expect(
      filterCases(all, parseSelectors(['taxonomy:ASI06', 'phase:action'])).every(
        (lc) => lc.case.phase === 'action',
      ),
    ).toBe(true);
  });
});

describe('case files', () => {
  const tmp = () => mkdtempSync(join(tmpdir(), 'hr-tax-'));
  const text = readFileSync(BASE, 'utf8');
  const withIds = (ids: string) => text.replace(/^taxonomy:.*$/m, `taxonomy: [${ids}]`);

  it('an unknown id is an error naming the file, line and field', () => {
    const dir = tmp();
    const file = join(dir, 'x.yaml');
    writeFileSync(file, withIds('LLM01, LLM99'));
    let err: unknown;
    try {
      loadCaseFile(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/x\.yaml:7: taxonomy\[1\]: unknown taxonomy id "LLM99"/);
  });

  it.each([
    ['llm01', 'LLM01'],
    ['ASI-02', 'ASI02'],
    ['AML.T0051.01', 'AML.T0051'],
  ])('a misspelt id "%s" is named with the id it likely meant (%s)', (typo, meant) => {
    const dir = tmp();
    const file = join(dir, 'x.yaml');
    writeFileSync(file, withIds(`LLM01, "${typo}"`));
    expect(() => loadCaseFile(file)).toThrow(`unknown taxonomy id "${typo}" (did you mean ${meant}?)`);
  });

  it('absent: the default derived from the case; the revision ignores the taxonomy', () => {
    const dir = tmp();
    const without = join(dir, 'a.yaml');
    writeFileSync(without, text.replace(/^taxonomy:.*\n/m, ''));
    const other = join(dir, 'b.yaml');
    writeFileSync(other, withIds('LLM01, ASI01, AML.T0051'));
    const a = loadCaseFile(without);
    const b = loadCaseFile(other);
    expect(a.case.taxonomy).toEqual(defaultTaxonomy(a.case));
    expect(b.case.taxonomy).toEqual(['LLM01', 'ASI01', 'AML.T0051']);
    expect(a.revision).toBe(b.revision);
    expect(caseRevision(a.case)).toBe(loadCaseFile(BASE).revision);
  });

  it("a team's taxonomy.yaml declares ids the cases beside and below it may use; others may not", () => {
    const root = tmp();
    writeFileSync(join(root, 'package.json'), '{}');
    const team = join(root, 'team');
    mkdirSync(join(team, 'cases'), { recursive: true });
    writeFileSync(
      join(team, 'taxonomy.yaml'),
      [
        'frameworks:',
        '  - id: acme-threats',
        '    name: ACME threat model',
        '    helpUri: https://wiki.acme.example/threats',
        '    taxa:',
        '      - {id: ACME-T1, name: Deploy without a ticket}',
        '      - {id: ACME-T2, name: Payee change, helpUri: "https://wiki.acme.example/threats/t2"}',
      ].join('\n'),
    );
    const inside = join(team, 'cases', 'c.yaml');
    writeFileSync(inside, withIds('LLM01, ASI01, AML.T0051.001, ACME-T2'));
    const lc = loadCaseFile(inside);
    expect(taxaOf(lc.case, lc.file).at(-1)).toEqual({
      framework: 'acme-threats',
      id: 'ACME-T2',
      name: 'Payee change',
      helpUri: 'https://wiki.acme.example/threats/t2',
    });
    // The team folder is not a case; selecting it loads its cases only.
    expect(loadCases([team]).map((x) => x.case.id)).toEqual([lc.case.id]);
    const outside = join(root, 'd.yaml');
    writeFileSync(outside, withIds('LLM01, ACME-T1'));
    expect(() => loadCaseFile(outside)).toThrow(/taxonomy\[1\]: unknown taxonomy id "ACME-T1"/);
  });

  it('a taxonomy.yaml that redeclares a built-in id names the file', () => {
    const root = tmp();
    writeFileSync(join(root, 'package.json'), '{}');
    writeFileSync(
      join(root, 'taxonomy.yaml'),
      'frameworks:\n  - {id: mine, name: Mine, helpUri: "https://x.example/", taxa: [{id: LLM01, name: Mine}]}\n',
    );
    const file = join(root, 'c.yaml');
    writeFileSync(file, withIds('LLM01, X-1'));
    expect(() => loadCaseFile(file)).toThrow(
      /taxonomy\.yaml: taxonomy id "LLM01" \(framework mine\) is already a built-in id/,
    );
  });

  it('scripts/write-taxonomy.ts writes one line after severity:, once', () => {
    const bare = text.replace(/^taxonomy:.*\n/m, '');
    const once = withTaxonomy(bare, ['LLM01', 'ASI01'], false);
    expect(once).toBe(bare.replace(/^(severity:.*\n)/m, '$1taxonomy: [LLM01, ASI01]\n'));
    expect(withTaxonomy(once, ['LLM02'], false)).toBe(once);
    expect(withTaxonomy(once, ['LLM01', 'ASI01'], true)).toBe(once);
    const block = once.replace('taxonomy: [LLM01, ASI01]', 'taxonomy:\n  - LLM01\n  - ASI01');
    expect(withTaxonomy(block, ['LLM01', 'ASI01'], true)).toBe(once);
  });
});

describe('harness-risk list', () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['dist/cli.js', ...args], { encoding: 'utf8', timeout: 120_000 });

  it('list cases shows the ids column; --taxonomy keeps the cases that carry one', () => {
    const all = cli('list', 'cases');
    expect(all.status).toBe(0);
    const rows = all.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.every((r) => r.length === 6 && r[5]!.split(',').includes('LLM01'))).toBe(true);
    const asi07 = cli('list', 'cases', '--taxonomy', 'ASI07');
    const picked = asi07.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(picked.length).toBeGreaterThan(0);
    expect(picked.length).toBeLessThan(rows.length);
    expect(picked.every((r) => r[5]!.split(',').includes('ASI07'))).toBe(true);
  });

  it('a built-in-looking id that names nothing is an error, not an empty list', () => {
    const r = cli('list', 'cases', '--taxonomy', 'LLM99');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/taxonomy:LLM99 names no built-in taxonomy id/);
  });

  it('list taxonomy prints every built-in entry', () => {
    const lines = cli('list', 'taxonomy').stdout.trim().split('\n');
    expect(lines).toHaveLength(BUILTIN_TAXA.length);
    expect(lines).toContain(
      'mitre-atlas\tAML.T0051.001\tLLM Prompt Injection: Indirect\thttps://atlas.mitre.org/techniques/AML.T0051.001',
    );
  });
});

describe('new case', () => {
  it('writes the ids suggested from the entry point and effect, or the ones given', () => {
    const o = { id: 'x', phase: 'persistence', entry_point: 'memory_entry', effect: 'persistence' } as const;
    expect(scaffoldCase(o)).toContain(`\ntaxonomy: [${defaultTaxonomy(o).join(', ')}]   # suggested`);
    expect(defaultTaxonomy(o)).toContain('ASI06');
    expect(scaffoldCase({ ...o, taxonomy: ['LLM04', 'ASI06'] })).toContain(
      '\ntaxonomy: [LLM04, ASI06]   # as given',
    );
  });
});
