// The sticky comment fits by design: five runs a reviewer meets (a passing 144-case run, a regression in
// two phases, all 144 cases regressed, several seeds, nothing valid) render within budget without the
// truncation path, with canaries masked and every regressed case's reproduce command.
import { describe, expect, it } from 'vitest';
import { baselineFromResult } from '../src/compare/baseline.js';
import { evaluateGate } from '../src/gate/index.js';
import { parseGateOptions } from '../src/gate/options.js';
import { failOnFrom } from '../src/gate/verdict.js';
import { upsertStickyComment } from '../src/report/comment.js';
import { buildComment, compactPhaseTable } from '../src/report/comment-body.js';
import { COMMENT_LIMIT } from '../src/report/limits.js';
import { buildReport, renderReport } from '../src/report/markdown.js';
import type { RunResult } from '../src/spec/run-result.js';
import { canaryValue, makeResult, makeStandardRun } from './fixtures/results/builders.js';

/** The gate's defaults, as action.yml gives them (one definition: INPUT_DEFAULTS). */
const gateDefaults = () => parseGateOptions(() => undefined);

const failOn = failOnFrom(['regression', 'threshold', 'invalid']);

function render(current: RunResult, baseline: RunResult | undefined) {
  const gate = evaluateGate({
    heads: [{ result: current, name: 'current.json' }],
    ...(baseline ? { baseline: baselineFromResult(baseline, 'cache:main') } : {}),
    options: { ...gateDefaults(), failOn: failOn },
  });
  const input = { ...gate, failOn, runUrl: 'https://github.com/o/r/actions/runs/1' };
  const doc = buildComment(input);
  const whole = renderReport(doc, { limit: Number.MAX_SAFE_INTEGER, unit: 'chars', marker: true });
  const body = renderReport(doc, { limit: COMMENT_LIMIT, unit: 'chars', marker: true });
  const before = renderReport(buildReport(input), { limit: COMMENT_LIMIT, unit: 'chars', marker: true });
  return { ...gate, body, whole, before };
}

const safe = makeStandardRun();
const regressedIn = (phases: string[]) => (id: string) => phases.some((p) => id.startsWith(p.slice(0, 6)));
const scenarios = {
  passing: () => render(safe, safe),
  'two-phase regression': () =>
    render(
      makeStandardRun({ unsafe: (id, i) => regressedIn(['runtime', 'action'])(id) && i % 12 === 0 }),
      safe,
    ),
  'all 144 regressed': () => render(makeStandardRun({ unsafe: () => true }), safe),
  'multi-seed': () =>
    render(
      makeStandardRun({
        seeds: 5,
        unsafe: (id, i, s) => regressedIn(['persistence'])(id) && (i % 3 === 0 || s < 4),
      }),
      makeStandardRun({ seeds: 5 }),
    ),
  'all invalid': () => render(makeStandardRun({ unsafe: () => null }), safe),
};

describe('the comment fits by design', () => {
  const sizes: Record<string, { before: number; after: number }> = {};
  for (const [name, make] of Object.entries(scenarios)) {
    it(`${name}: within GitHub's limit without truncation, canaries masked`, () => {
      const { body, whole, before, comparison } = make();
      sizes[name] = { before: before.length, after: Buffer.byteLength(body) };
      expect(body).toBe(whole);
      expect(body).not.toContain('Report truncated');
      expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
      // No canary value reaches the comment whole; its prefix and length do.
      for (let n = 0; n < 144; n++) {
        expect(body).not.toContain(canaryValue('ghp_', n).slice(4));
        expect(body).not.toContain(canaryValue('AIza', n).slice(4));
      }
      if (comparison.regressions.length) expect(body).toContain('ghp&#95;…(36 chars)');
      // Every regressed case is named with its reproduce command.
      for (const c of comparison.regressions)
        expect(body).toContain(
          `\`harness-risk run --adapter reference --config guarded --cases id:${c.id}${c.trials.length > 1 ? ` --seeds ${c.trials.length}` : ''}\``,
        );
      // Evidence beyond the first few is collapsed.
      expect((body.match(/<details>/g) ?? []).length).toBe((body.match(/<\/details>/g) ?? []).length);
    });
  }

  it('a passing 144-case comment is under 3 KB and lists no case', () => {
    const { body, verdict } = scenarios.passing();
    expect(verdict.verdict).toBe('pass');
    expect(Buffer.byteLength(body)).toBeLessThan(3 * 1024);
    expect(body).toContain('**Passes**: no case went from safe to unsafe.');
    expect(body).toContain(
      '144 cases unchanged. Per-case detail: [job summary](https://github.com/o/r/actions/runs/1)',
    );
    expect(body).not.toContain('xychart-beta');
    expect(body).not.toContain('(±0)');
  });

  it('a two-phase regression: reason in one sentence, ❌ rows, chart, the first few cases open', () => {
    const { body, comparison } = scenarios['two-phase regression']();
    expect(comparison.regressedPhases).toEqual(['runtime', 'action']);
    expect(body).toMatch(/^### ❌ Safety regression: reference · guarded$/m);
    expect(body).toMatch(
      /^\*\*Fails\*\*: safety regression in runtime, action: 4 cases went from safe to unsafe\.$/m,
    );
    expect(body).toMatch(/^\| ❌ runtime \| 24 \| 8\.3% \(\+8\.3\) \|/m);
    expect(body).toMatch(/^\| configuration \| 24 \| 0\.0% \| 0\.980 \| \|$/m);
    expect(body).toContain('xychart-beta');
    expect(body).toContain('#### ❌ Regressed: safe in the baseline, unsafe now (4)');
    expect(body).toContain('<details><summary>1 more case</summary>');
    expect(body).toContain('140 cases unchanged');
  });

  it('all 144 regressed: every case once, one line each beyond the first few', () => {
    const { body, comparison } = scenarios['all 144 regressed']();
    expect(comparison.regressions).toHaveLength(144);
    expect(body).toContain('<details><summary>141 more cases</summary>');
    expect(body.length).toBeLessThan(50_000);
  });

  it('several seeds: statistical wording and a chart', () => {
    const { body, comparison } = scenarios['multi-seed']();
    expect(comparison.mode).toBe('statistical');
    expect(comparison.regressions.length).toBeGreaterThan(0);
    expect(body).toContain('xychart-beta');
    expect(body).toMatch(/unsafe in 0\/5 baseline trials, [45]\/5 now/);
  });

  it('all invalid: – for no valid trial (never 0%), grouped by reason', () => {
    const { body, verdict } = scenarios['all invalid']();
    expect(verdict.verdict).toBe('fail');
    expect(body).toMatch(/^\| configuration \| 24 \| – \| – \| ⚠️ 24 \|$/m);
    expect(body).toContain('- 144 cases: infrastructure: harness did not start — ');
    expect(body).not.toMatch(/\| 0\.0% \|/);
    expect(Buffer.byteLength(body)).toBeLessThan(6 * 1024);
  });

  it('prints no reproduce command for an id a shell could misread', () => {
    const hostile = makeResult([{ id: 'x;rm -rf ~', phase: 'runtime', seeds: [true] }]);
    const base = makeResult([{ id: 'x;rm -rf ~', phase: 'runtime', seeds: [false] }]);
    const { body } = render(hostile, base);
    expect(body).not.toContain('`harness-risk run');
    expect(body).toContain('reproduce: (case id not printable as a command');
  });

  it('keeps the compact table to five columns without persistence', () => {
    const { comparison } = scenarios.passing();
    const head = compactPhaseTable(comparison).split('\n')[0]!;
    expect(head).toBe('| Phase | Cases | ASR | CSS | Changes |');
  });

  it('reports its sizes', () => {
    for (const make of Object.values(scenarios)) make();
    console.log(JSON.stringify(sizes));
  });
});

describe('the sticky comment after a retried POST', () => {
  it('a 502 answered after the comment was created leaves one comment, not two', async () => {
    const comments: { id: number; body: string }[] = [];
    let next = 1;
    const api = {
      listIssueComments: async () => comments.map((c) => ({ ...c })),
      // The retry plugin's second POST after a 502 that GitHub had carried out: two comments.
      createIssueComment: async (p: { body: string }) => {
        comments.push({ id: next++, body: p.body }, { id: next++, body: p.body });
        return { id: next - 1 };
      },
      updateIssueComment: async (p: { comment_id: number }) => ({ id: p.comment_id }),
      deleteIssueComment: async (p: { comment_id: number }) => {
        comments.splice(
          comments.findIndex((c) => c.id === p.comment_id),
          1,
        );
      },
      createCheckRun: async () => ({ id: 1 }),
      updateCheckRun: async () => ({ id: 1 }),
      listCheckRunsForRef: async () => [],
    };
    const marker = '<!-- harness-risk-action:reference:guarded -->';
    const r = await upsertStickyComment(api, {
      owner: 'o',
      repo: 'r',
      issue_number: 1,
      marker,
      body: `${marker}\nx`,
    });
    expect(comments.map((c) => c.id)).toEqual([1]);
    expect(r).toMatchObject({ action: 'created', id: 1, removed: 1 });
  });
});

describe('partial comparisons and flaky cases (what the page says counts exactly that)', () => {
  const spec = (id: string, seeds: boolean[], phase: 'runtime' | 'action' = 'runtime') => ({
    id,
    phase,
    seeds,
  });
  // The base ran a smaller selection (base-cases): 3 shared cases, all safe on both sides; head holds 7
  // more, 2 of them unsafe.
  const shared = [spec('s1', [false]), spec('s2', [false]), spec('s3', [false], 'action')];
  const extra = Array.from({ length: 7 }, (_, i) => spec(`x${i}`, [i < 2], i % 2 ? 'action' : 'runtime'));
  it('no baseline: no case is "not run on base"; each says its state now', () => {
    const r = render(makeResult([...shared, ...extra]), undefined);
    // The comment and the full report (`before`: what --markdown writes).
    for (const page of [r.whole, r.before]) expect(page).not.toContain('not run on base');
    expect(r.before).toMatch(/💥 unsafe: <b>x0<\/b>/);
  });

  it('a smaller base selection: no "new", no drop on unchanged cases, the rest counted apart', () => {
    const r = render(makeResult([...shared, ...extra]), makeResult(shared));
    for (const row of [...r.comparison.phases, r.comparison.overall]) {
      expect(row.asr.delta, row.phase).toBe(0);
      expect(row.css.delta, row.phase).toBe(0);
    }
    expect(r.comparison.onlyHere).toBe(7);
    expect(r.comparison.regressions).toEqual([]);
    expect(r.whole).toContain('not run on base: 7');
    expect(r.whole).toContain('changes over the 3 cases both runs hold');
    expect(r.whole).not.toMatch(/\bnew case|New cases|🆕 new\b/);
    // The title keeps this run's own numbers, without a delta.
    const own = makeResult([...shared, ...extra]).summary.overall;
    expect(r.verdict.verdict).toBe('pass');
    expect(buildReport({ ...r, failOn }).title).toContain(`ASR ${(own.asr * 100).toFixed(1)}%`);
  });

  it('seeds 3, unsafe in 1 of 3: a flaky line with its evidence; still-unsafe counts only cases unsafe before', () => {
    const base = makeResult([
      spec('f', [false, false, false]),
      spec('u', [true, true, true]),
      spec('k', [false, false, false]),
    ]);
    const head = makeResult([
      spec('f', [false, true, false]),
      spec('u', [true, true, true]),
      spec('k', [false, false, false]),
    ]);
    const r = render(head, base);
    expect(r.verdict.verdict).toBe('pass');
    expect(r.whole).toContain('🎲 Flaky: unsafe in some seeds, never in the baseline (1)');
    // Its evidence: the unsafe seed's executed attacker call.
    const flakyBlock = r.whole.slice(r.whole.indexOf('🎲 Flaky'));
    expect(flakyBlock).toContain('curl');
    expect(r.whole).toContain('🎲 1 flaky');
    // "still unsafe" counts u (unsafe before and now), not f (never unsafe in the baseline).
    expect(r.whole).toMatch(/unchanged \(1 still unsafe\)/);
    // fail-on flaky gates it.
    const gated = evaluateGate({
      heads: [{ result: head, name: 'h.json' }],
      baseline: baselineFromResult(base, 'cache:main'),
      options: { ...gateDefaults(), failOn: failOnFrom(['regression', 'flaky']) },
    });
    expect(gated.verdict.verdict).toBe('fail');
    expect(gated.verdict.gating.join(' ')).toContain('flaky');
  });
});
