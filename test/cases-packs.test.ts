// Rule packs: resolution (order, except, errors naming file:line and the valid names), the revision over the
// resolved case (a case converted to packs keeps its revision and every stored baseline), the conversion
// script (exact, idempotent) and the index noticing an edited pack.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { convertText } from '../scripts/convert-rule-packs.js';
import { buildCaseIndex, staleness, yamlFilesUnder } from '../src/cases/case-index.js';
import { coverage } from '../src/cases/coverage.js';
import { loadCaseFile, parseCaseFiles, parseCaseText } from '../src/cases/load.js';
import { fitPacks } from '../src/cases/pack-fit.js';
import { type LoadedPack, type PackSet, packsFor, resolveAudit } from '../src/cases/packs.js';
import type { AuditRule } from '../src/cases/schema.js';
import { builtinCasesDir } from '../src/paths.js';

const FIX = join(import.meta.dirname, 'fixtures', 'packs');
const tmp = mkdtempSync(join(tmpdir(), 'hr-packs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const rule = (id: string, channel: AuditRule['channel'] = 'tools'): AuditRule => ({
  id,
  channel,
  description: id,
  forbid: { tool_called: { contains: id } },
});
const pack = (id: string, version: number, ids: string[]): LoadedPack => ({
  pack: { id, version, description: id, rules: ids.map((r) => rule(r)) },
  file: `rules/${id}.yaml`,
});
const PACKS: PackSet = new Map([
  ['p', pack('p', 1, ['p.a', 'p.b', 'p.c'])],
  ['q', pack('q', 3, ['q.a', 'q.b'])],
]);
const ids = (rs: AuditRule[]) => rs.map((r) => r.id);

describe('resolveAudit', () => {
  it.each([
    ['a plain list is itself', [rule('own')], ['own']],
    [
      'own rules first, then each pack in include order',
      { include: ['q@3', 'p@1'], except: [], rules: [rule('own')] },
      ['own', 'q.a', 'q.b', 'p.a', 'p.b', 'p.c'],
    ],
    ['except leaves a pack rule out', { include: ['p@1'], except: ['p.b'], rules: [] }, ['p.a', 'p.c']],
    [
      'an unversioned include takes the current version',
      { include: ['q'], except: [], rules: [] },
      ['q.a', 'q.b'],
    ],
    [
      'an excepted rule may be replaced by the case',
      { include: ['p@1'], except: ['p.a'], rules: [rule('p.a', 'flow')] },
      ['p.a', 'p.b', 'p.c'],
    ],
  ])('%s', (_, audit, expected) => {
    const { rules, problems } = resolveAudit(audit as never, PACKS);
    expect(problems).toEqual([]);
    expect(ids(rules)).toEqual(expected);
  });

  it.each([
    [
      'unknown pack',
      { include: ['generic-secret@1'] },
      ['audit', 'include', 0],
      /unknown rule pack "generic-secret" \(known: p@1, q@3\)/,
    ],
    [
      'wrong version',
      { include: ['q@1'] },
      ['audit', 'include', 0],
      /"q" is version 3 \(rules\/q.yaml\), the case includes version 1/,
    ],
    ['not a reference', { include: ['P 1'] }, ['audit', 'include', 0], /not a pack reference/],
    ['twice', { include: ['p@1', 'p'] }, ['audit', 'include', 1], /included twice/],
    [
      'unknown except',
      { include: ['p@1'], except: ['p.z'] },
      ['audit', 'except', 0],
      /"p.z" is not a rule of the included packs \(their rules: p.a, p.b, p.c\)/,
    ],
    [
      'own rule clashes with a pack rule',
      { include: ['p@1'], rules: [rule('p.b')] },
      ['audit', 'rules', 0],
      /also a rule of the included pack p/,
    ],
    ['own id twice', { rules: [rule('x'), rule('x')] }, ['audit', 'rules', 1], /appears twice/],
  ])('%s is a problem naming the field', (_, audit, path, message) => {
    const { problems } = resolveAudit({ include: [], except: [], rules: [], ...audit } as never, PACKS);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toEqual(path);
    expect(problems[0]!.message).toMatch(message);
  });
});

describe('a team case with its own pack', () => {
  const file = join(FIX, 'team', 'cases', 'acme-readme-deploys-prod.yaml');

  it('sees the rules/ folder above it and the built-in packs', () => {
    expect([...packsFor(file).keys()].sort()).toEqual([
      'acme-deploy',
      'generic-egress',
      'generic-files',
      'generic-secrets',
      'generic-shell',
    ]);
    const lc = loadCaseFile(file);
    expect(ids(lc.case.audit)).toEqual([
      'resources.notes-intact',
      'tools.acme-no-prod-deploy',
      'flow.acme-no-deploy-log-leak',
      'flow.no-canary-to-sink',
      'flow.no-canary-egress',
      'flow.no-canary-mail',
      'flow.no-canary-chat',
      'flow.no-canary-web',
    ]);
  });

  it('an unknown pack is a load error with file:line, the field and the valid names', () => {
    const dir = join(tmp, 'team-bad');
    cpSync(join(FIX, 'team'), dir, { recursive: true });
    const bad = join(dir, 'cases', 'acme-readme-deploys-prod.yaml');
    writeFileSync(bad, readFileSync(bad, 'utf8').replace('generic-secrets@1', 'generic-secret@1'));
    expect(() => loadCaseFile(bad)).toThrow(
      new RegExp(
        `${bad}:29: audit.include\\[1\\]: unknown rule pack "generic-secret" \\(known: acme-deploy@2, generic-egress@1`,
      ),
    );
  });

  it('a folder of cases skips its rules/ folder; a pack named as a case file says what it is', () => {
    expect(yamlFilesUnder(join(FIX, 'team')).some((f) => f.includes('/rules/'))).toBe(false);
    expect(() => loadCaseFile(join(FIX, 'team', 'rules', 'acme-deploy.yaml'))).toThrow(
      /is a rule pack, not a case/,
    );
  });

  it('a bad rule inside a pasted list names the rule field, not "Invalid input"', () => {
    const text = readFileSync(file, 'utf8').replace(
      /audit:[\s\S]*$/,
      'audit:\n  - {id: x, channel: tool, description: d, forbid: {always: true}}\n',
    );
    expect(() => parseCaseText(file, text)).toThrow(/:29: audit\[0\]\.channel: Invalid option/);
  });

  it('a pack name the built-in packs define otherwise is an error naming both files (a verbatim copy is not)', () => {
    const dir = join(tmp, 'shadow');
    cpSync(join(FIX, 'team'), dir, { recursive: true });
    const builtin = readFileSync(join(builtinCasesDir(), 'rules', 'generic-shell.yaml'), 'utf8');
    writeFileSync(join(dir, 'rules', 'generic-shell.yaml'), builtin.replace('no rm -rf', 'no rm'));
    expect(() => loadCaseFile(join(dir, 'cases', 'acme-readme-deploys-prod.yaml'))).toThrow(
      /rules\/generic-shell.yaml: rule pack "generic-shell" is also defined by .*cases\/rules\/generic-shell.yaml/,
    );
  });
});

/** A case's text with its rule packs pasted back in as a plain list: the library's form before packs. */
function pasted(text: string, rules: AuditRule[]): string {
  return text.replace(
    /^audit:[\s\S]*?(?=^\S|(?![\s\S]))/m,
    `${stringify({ audit: rules }, { lineWidth: 0 })}`,
  );
}

describe('revision over the resolved case', () => {
  // Revisions of three cases whose legacy (pasted-rules) files are kept under fixtures: the converted file
  // and the legacy file must give the same one. (Pinned after the world additions' schema defaults, which
  // changed every case's revision once, and again after the evidence chain joined their utility checks.)
  const BEFORE: Record<string, { revision: string; rules: number }> = {
    'invoice-mail-changes-payee': { revision: 'e6486aba24f6', rules: 24 },
    'cfo-chat-payroll-key-to-accountant-ambiguous': { revision: 'ed97bb1de38e', rules: 23 },
    'access-runbook-restores-backdoor-admin': { revision: '0055330f4c2e', rules: 23 },
  };
  const library = parseCaseFiles(yamlFilesUnder(builtinCasesDir()));
  const byId = new Map(library.map((lc) => [lc.case.id, lc]));

  it.each(Object.entries(BEFORE))(
    '%s: the pasted file of before, and the library now, have the same revision and rules',
    (id, was) => {
      const legacy = loadCaseFile(join(FIX, 'legacy', `${id}.yaml`));
      expect(legacy.revision).toBe(was.revision);
      expect(byId.get(id)!.revision).toBe(was.revision);
      expect(coverage([byId.get(id)!]).rules).toEqual(coverage([legacy]).rules);
      expect(coverage([byId.get(id)!]).rules.total).toBe(was.rules);
    },
  );

  it('every built-in case: pasting its packs back gives the same revision and rule counts', () => {
    const differ: string[] = [];
    for (const lc of library) {
      const back = parseCaseText(lc.file, pasted(readFileSync(lc.file, 'utf8'), lc.case.audit));
      if (
        back.revision !== lc.revision ||
        JSON.stringify(coverage([back]).rules) !== JSON.stringify(coverage([lc]).rules)
      )
        differ.push(lc.case.id);
    }
    expect(differ).toEqual([]);
    expect(library.length).toBeGreaterThanOrEqual(432);
  });

  it('every built-in base case includes the generic packs', () => {
    const bare = library.filter(
      (lc) => !parse(readFileSync(lc.file, 'utf8')).audit?.include?.includes('generic-secrets@1'),
    );
    expect(bare.map((lc) => lc.case.id)).toEqual([]);
  });
});

describe('scripts/convert-rule-packs.ts', () => {
  it.each(['invoice-mail-changes-payee', 'access-runbook-restores-backdoor-admin'])(
    '%s: converts the pasted file exactly, keeps the case rules inline, and is idempotent',
    (id) => {
      const file = join(tmp, `${id}.yaml`);
      const legacy = readFileSync(join(FIX, 'legacy', `${id}.yaml`), 'utf8');
      const before = parseCaseText(file, legacy);
      const once = convertText(file, legacy);
      expect(once.outcome).toBe('converted');
      expect(once.text).toMatch(
        /include: \[generic-shell@1, generic-files@1, generic-secrets@1, generic-egress@1\]/,
      );
      expect(once.text).not.toMatch(/tools\.no-curl-wget|generic rules/);
      const after = parseCaseText(file, once.text!);
      expect(after.revision).toBe(before.revision);
      expect(after.case).toEqual(before.case);
      expect(convertText(file, once.text!).outcome).toBe('unchanged');
      // The converted file is what the library holds.
      expect(once.text).toBe(readFileSync(byFile(id), 'utf8'));
    },
  );

  it('a case that left a generic rule out gets except; one with a customised generic rule keeps it', () => {
    const file = join(tmp, 'x.yaml');
    const legacy = readFileSync(join(FIX, 'legacy', 'invoice-mail-changes-payee.yaml'), 'utf8');
    const omitted = legacy.replace(/^ {2}- \{id: resources\.no-ssh,.*\n/m, '');
    const r = convertText(file, omitted);
    expect(r.text).toMatch(/except: \[resources\.no-ssh\]/);
    expect(parseCaseText(file, r.text!).revision).toBe(parseCaseText(file, omitted).revision);
    const custom = legacy.replace('description: no rm -rf,', 'description: no rm -rf at all,');
    const c = convertText(file, custom);
    expect(parseCaseText(file, c.text!).revision).toBe(parseCaseText(file, custom).revision);
    // The customised rule sits amid the shell rules: that pack stays pasted (never reordered), the rest by pack.
    expect(c.text).toMatch(/no rm -rf at all/);
    expect(c.text).toMatch(/include: \[generic-files@1, generic-secrets@1, generic-egress@1\]/);
  });

  it('fitPacks never reorders: a pack rule before a case rule stays inline', () => {
    const rules = [rule('p.a'), rule('own'), rule('q.a'), rule('q.b')];
    expect(fitPacks(rules, [...PACKS.values()])).toEqual({
      include: ['q@3'],
      except: [],
      rules: [rule('p.a'), rule('own')],
    });
    expect(fitPacks([rule('own')], [...PACKS.values()])).toBeUndefined();
  });
});

function byFile(id: string): string {
  return yamlFilesUnder(builtinCasesDir()).find((f) => f.endsWith(`/${id}.yaml`))!;
}

describe('the case index and rule packs', () => {
  it('an edited pack makes the index stale', () => {
    const dir = join(tmp, 'lib');
    cpSync(join(builtinCasesDir(), 'rules'), join(dir, 'rules'), { recursive: true });
    cpSync(
      join(FIX, 'legacy', 'invoice-mail-changes-payee.yaml'),
      join(dir, 'action', 'invoice-mail-changes-payee.yaml'),
    );
    const loaded = parseCaseFiles(yamlFilesUnder(dir));
    const index = buildCaseIndex(loaded, dir);
    expect(Object.keys(index.packs).sort()).toEqual([
      'rules/generic-egress.yaml',
      'rules/generic-files.yaml',
      'rules/generic-secrets.yaml',
      'rules/generic-shell.yaml',
    ]);
    expect(staleness(index, loaded, dir)).toBeUndefined();
    const f = join(dir, 'rules', 'generic-egress.yaml');
    writeFileSync(
      f,
      readFileSync(f, 'utf8').replace('the attacker sink is never contacted', 'no sink contact'),
    );
    expect(staleness(index, loaded, dir)).toMatch(/rule packs changed/);
  });
});
