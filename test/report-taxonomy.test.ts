// The taxonomy in the reports: SARIF output against the official SARIF 2.1.0 JSON schema (draft-04, shipped
// by @microsoft/jest-sarif) with tags, helpUri, run taxonomies and rule relationships; the job summary's
// table of unsafe cases by taxonomy id.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Ajv, Options } from 'ajv';
import { describe, expect, it } from 'vitest';
import { defaultTaxonomy } from '../src/cases/taxonomy.js';
import { baselineFromResult } from '../src/compare/baseline.js';
import { compareRuns } from '../src/compare/compare.js';
import { evaluateGate } from '../src/gate/index.js';
import { failOnFrom } from '../src/gate/verdict.js';
import { buildReport, renderReport } from '../src/report/markdown.js';
import { toSarif } from '../src/report/sarif.js';
import { unsafeByTaxonomy } from '../src/report/taxonomy-table.js';
import { RunResult } from '../src/spec/run-result.js';
import { builtinTaxon, type Taxon } from '../src/spec/taxonomy.js';
import { makeHostile } from './fixtures/results/builders.js';
import { gateOptions } from './support/gate-options.js';

const require = createRequire(import.meta.url);
// Both CommonJS with a default export; loaded the CommonJS way (as test/support/github-fake.ts).
const addFormats: (ajv: Ajv) => Ajv = require('ajv-formats');
const AjvDraft04: new (opts: Options) => Ajv = require('ajv-draft-04');
const schema = JSON.parse(
  readFileSync(require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8'),
);
// Without the u flag: the official schema's `language` pattern is not a valid unicode-mode regex.
const ajv = new AjvDraft04({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);
const errorsOf = (doc: unknown) =>
  validate(doc)
    ? []
    : (validate.errors ?? []).map(
        (e: { instancePath: string; message?: string }) => `${e.instancePath} ${e.message}`,
      );

const FIX = join(import.meta.dirname, 'fixtures/results');
const fixture = (name: string) => RunResult.parse(JSON.parse(readFileSync(join(FIX, name), 'utf8')));
const TEAM: Taxon = {
  framework: 'acme-threats',
  id: 'ACME-T1',
  name: 'Deploy without a ticket',
  helpUri: 'https://wiki.acme.example/threats/t1',
};

/** The fixture's cases with the taxonomy a run writes now; the first also with a team entry. */
function withTaxonomy(r: RunResult): RunResult {
  const copy = structuredClone(r);
  copy.cases.forEach((c, i) => {
    c.taxonomy = [...defaultTaxonomy(c).map((id) => builtinTaxon(id)!), ...(i === 0 ? [TEAM] : [])];
  });
  return copy;
}

describe('SARIF with the taxonomy', () => {
  const guarded = fixture('reference-guarded.json');
  const current = withTaxonomy(fixture('reference-open.json'));
  const ctx = { workspace: process.cwd(), cwd: process.cwd() };
  const sarif = toSarif(current, compareRuns(current, baselineFromResult(guarded, 'file:b')), ctx) as any;
  const run = sarif.runs[0];

  it('validates against the SARIF 2.1.0 schema', () => {
    expect(run.results.length).toBeGreaterThan(5);
    expect(errorsOf(sarif)).toEqual([]);
  });

  it('rules carry the ids as tags, a helpUri and relationships that resolve into run.taxonomies', () => {
    for (const rule of run.tool.driver.rules) {
      const info = current.cases.find((c) => c.id === rule.id)!;
      expect(rule.properties.tags).toEqual(
        expect.arrayContaining(['security', ...info.taxonomy!.map((t) => t.id)]),
      );
      expect(rule.helpUri).toMatch(/^https:\/\/github\.com\/.+\/blob\/.+\/cases\//);
      expect(rule.relationships).toHaveLength(info.taxonomy!.length);
      for (const rel of rule.relationships) {
        const component = run.taxonomies[rel.target.toolComponent.index];
        expect(component.name).toBe(rel.target.toolComponent.name);
        expect(component.taxa[rel.target.index].id).toBe(rel.target.id);
      }
    }
    const names = run.taxonomies.map((t: { name: string }) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['owasp-llm-2025', 'owasp-agentic-2026', 'mitre-atlas', 'acme-threats']),
    );
    expect(run.tool.driver.supportedTaxonomies).toHaveLength(names.length);
    const llm01 = run.taxonomies
      .find((t: { name: string }) => t.name === 'owasp-llm-2025')
      .taxa.find((x: { id: string }) => x.id === 'LLM01');
    expect(llm01).toEqual({
      id: 'LLM01',
      name: 'Prompt Injection',
      shortDescription: { text: 'Prompt Injection' },
      helpUri: 'https://genai.owasp.org/llmrisk/llm01-prompt-injection/',
    });
  });

  it('a case outside the built-in library links its first taxonomy entry', () => {
    const team = structuredClone(current);
    const info = team.cases.find((c) => c.id === run.tool.driver.rules[0].id)!;
    info.file = 'team/cases/x.yaml';
    info.taxonomy = [TEAM];
    const doc = toSarif(team, compareRuns(team, baselineFromResult(guarded, 'file:b')), ctx) as typeof sarif;
    const rule = doc.runs[0].tool.driver.rules.find((r: { id: string }) => r.id === info.id);
    expect(rule.helpUri).toBe(TEAM.helpUri);
    expect(rule.properties.tags).toContain('ACME-T1');
    expect(errorsOf(doc)).toEqual([]);
  });

  it('hostile case text and an older result without taxonomy still validate', () => {
    const hostile = withTaxonomy(makeHostile(guarded));
    expect(
      errorsOf(toSarif(hostile, compareRuns(hostile, baselineFromResult(guarded, 'file:b')), ctx)),
    ).toEqual([]);
    const old = fixture('reference-open.json');
    const doc = toSarif(old, compareRuns(old, baselineFromResult(guarded, 'file:b')), ctx) as typeof sarif;
    expect(doc.runs[0].taxonomies).toBeUndefined();
    expect(errorsOf(doc)).toEqual([]);
  });

  it('the schema check fails on a broken document', () => {
    const broken = structuredClone(sarif);
    broken.runs[0].results[0].level = 'fatal';
    broken.runs[0].taxonomies[0].taxa[0].helpUri = 'not a uri';
    delete broken.runs[0].tool.driver.name;
    const errors = errorsOf(broken);
    expect(errors.join('\n')).toMatch(/\/runs\/0\/results\/0\/level/);
    expect(errors.join('\n')).toMatch(/\/runs\/0\/taxonomies\/0\/taxa\/0\/helpUri/);
    expect(errors.join('\n')).toMatch(/\/runs\/0\/tool\/driver .*name/);
  });
});

/** The taxonomy section alone: its heading and its table. */
const sectionOf = (text: string) =>
  text.slice(text.indexOf('#### Unsafe cases by taxonomy')).split('\n\n').slice(0, 2).join('\n\n');

describe('the report groups unsafe cases by taxonomy', () => {
  const guarded = fixture('reference-guarded.json');
  const failOn = failOnFrom(['regression']);
  const md = (current: RunResult) => {
    const g = evaluateGate({
      heads: [{ result: current, name: 'current.json' }],
      baseline: baselineFromResult(guarded, 'file:b'),
      options: gateOptions({ failOn }),
    });
    return {
      cmp: g.comparison,
      text: renderReport(buildReport({ ...g, current, failOn }), {
        limit: Number.MAX_SAFE_INTEGER,
        unit: 'chars',
      }),
    };
  };

  it('one row per id, counts of unsafe and regressed cases, built-in ids linked', () => {
    const current = withTaxonomy(fixture('reference-open.json'));
    const { cmp, text } = md(current);
    const unsafe = cmp.cases.filter((c) => c.now && c.now.counts.unsafe > 0);
    const section = sectionOf(text);
    expect(section.length).toBeGreaterThan(0);
    const row = section.split('\n').find((l) => l.includes('[LLM01]'))!;
    expect(row).toContain('(https://genai.owasp.org/llmrisk/llm01-prompt-injection/) Prompt Injection');
    const cells = row.split('|').map((x) => x.trim());
    expect(cells[2]).toBe(String(unsafe.length));
    expect(cells[3]).toBe(String(unsafe.filter((c) => c.status === 'regression').length));
    expect(cells[4]).toMatch(/\+\d+ more$/);
    const rows = unsafeByTaxonomy(cmp);
    expect(rows[0]!.taxon.id).toBe('LLM01');
    const llm10 = rows.find((r) => r.taxon.id === 'LLM10');
    if (llm10) expect(llm10.cases.every((c) => c.info!.effect === 'exhaustion')).toBe(true);
  });

  it("a team entry's text is escaped and never linked", () => {
    const current = withTaxonomy(fixture('reference-open.json'));
    const hostile: Taxon = {
      framework: 'x|y',
      id: 'ACME-<b>',
      name: '<img src=x onerror=alert(1)> | pipe',
      helpUri: 'javascript:alert(1)',
    };
    for (const c of current.cases) c.taxonomy = [hostile];
    const { text } = md(current);
    const section = sectionOf(text);
    expect(section).not.toMatch(/<img|<b>|javascript:/);
    const row = section.split('\n')[4]!;
    expect(row.split(/(?<!\\)\|/).length).toBe(6);
  });

  it('an older result without taxonomy: no section', () => {
    expect(md(fixture('reference-open.json')).text).not.toContain('Unsafe cases by taxonomy');
  });
});
