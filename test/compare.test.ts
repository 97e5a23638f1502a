import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  baselineCachePath,
  baselineKey,
  baselineKeyPrefix,
  type CacheApi,
  restoreBaselineFromCache,
  saveBaselineToCache,
} from '../src/baseline/cache.js';
import { loadBaselineFile } from '../src/baseline/file.js';
import { baselineFromResult, parseBaseline } from '../src/compare/baseline.js';
import { compareRuns } from '../src/compare/compare.js';
import { mergeRunResults } from '../src/compare/merge.js';
import { fisherGreater, logFactorial } from '../src/compare/stats.js';
import { evaluateThresholds, type Thresholds } from '../src/gate/thresholds.js';
import { RunResult } from '../src/spec/run-result.js';
import { type CaseSpec, makeResult } from './fixtures/results/builders.js';

const FIX = join(import.meta.dirname, 'fixtures/results');
const fixture = (name: string) => RunResult.parse(JSON.parse(readFileSync(join(FIX, name), 'utf8')));
const base = (r: RunResult) => baselineFromResult(r, 'file:test');

// Exact hypergeometric tail with BigInt binomials: an independent check of the log-factorial version.
function choose(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let r = 1n;
  for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
  return r;
}
function exactGreater(kA: number, nA: number, kB: number, nB: number): number {
  const N = nA + nB;
  const K = kA + kB;
  let num = 0n;
  for (let x = kB; x <= Math.min(K, nB); x++) num += choose(K, x) * choose(N - K, nB - x);
  const den = choose(N, nB);
  // Scale to keep 15 significant digits.
  return Number((num * 10n ** 15n) / den) / 1e15;
}

describe("Fisher's exact test (one-sided, log-factorials)", () => {
  it('log-factorial matches known values', () => {
    expect(logFactorial(0)).toBe(0);
    expect(logFactorial(1)).toBe(0);
    expect(Math.exp(logFactorial(10))).toBeCloseTo(3_628_800, 3);
    expect(logFactorial(170)).toBeCloseTo(706.5730622457874, 8);
  });

  it.each([
    // [baseline k, n, now k, n, p] — known values
    [1, 4, 3, 4, 17 / 70], // lady tasting tea: [[3,1],[1,3]], one-sided p = 0.2429
    [1, 12, 9, 12, 0.0013797], // Wikipedia's example (men 1/12, women 9/12 studying): 0.001346 + 0.0000336
    [0, 5, 5, 5, 1 / 252], // all safe → all unsafe over 5 seeds
    [0, 5, 2, 5, 0.2222222], // 0/5 → 2/5 is not significant
    [0, 10, 3, 10, 0.1052632], // 0/10 → 3/10
    [0, 50, 5, 50, 0.02818], // pooled phase: 0/50 → 5/50
    [3, 3, 0, 3, 1], // decrease: p = 1
  ])('baseline %i/%i → now %i/%i gives p ≈ %f', (kA, nA, kB, nB, p) => {
    expect(fisherGreater(kA, nA, kB, nB)).toBeCloseTo(p, p < 0.01 ? 5 : 4);
  });

  it('agrees with an exact BigInt computation on every table up to 12 × 12', () => {
    for (let nA = 1; nA <= 12; nA++)
      for (let nB = 1; nB <= 12; nB++)
        for (let kA = 0; kA <= nA; kA += 3)
          for (let kB = 0; kB <= nB; kB++) {
            expect(fisherGreater(kA, nA, kB, nB)).toBeCloseTo(exactGreater(kA, nA, kB, nB), 10);
          }
  });

  it('is 1 for empty groups and rejects impossible counts', () => {
    expect(fisherGreater(0, 0, 3, 3)).toBe(1);
    expect(fisherGreater(0, 3, 0, 0)).toBe(1);
    expect(() => fisherGreater(4, 3, 0, 3)).toThrow(/group A/);
    expect(() => fisherGreater(0, 3, -1, 3)).toThrow(/group B/);
  });

  it('handles large counts without overflow', () => {
    const p = fisherGreater(10, 5000, 60, 5000);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(1e-8);
  });
});

const S = (
  id: string,
  phase: CaseSpec['phase'],
  seeds: (boolean | null)[],
  extra: Partial<CaseSpec> = {},
): CaseSpec => ({ id, phase, seeds, ...extra });

describe('per-case comparison (single seed: exact)', () => {
  const baseline = makeResult([
    S('safe-safe', 'runtime', [false]),
    S('safe-unsafe', 'runtime', [false]),
    S('unsafe-safe', 'action', [true]),
    S('unsafe-unsafe', 'action', [true]),
    S('changed-rev', 'runtime', [false], { revision: 'aaaaaaaaaaaa' }),
    S('changed-phase', 'extension', [false]),
    S('removed', 'recovery', [false]),
    S('invalid-now', 'persistence', [false]),
    S('invalid-before', 'persistence', [null]),
  ]);
  const current = makeResult([
    S('safe-safe', 'runtime', [false]),
    S('safe-unsafe', 'runtime', [true]),
    S('unsafe-safe', 'action', [false]),
    S('unsafe-unsafe', 'action', [true]),
    S('changed-rev', 'runtime', [true], { revision: 'bbbbbbbbbbbb' }),
    S('changed-phase', 'configuration', [true]),
    S('new-case', 'recovery', [true]),
    S('invalid-now', 'persistence', [null]),
    S('invalid-before', 'persistence', [true]),
  ]);
  const cmp = compareRuns(current, base(baseline));
  const status = (id: string) => cmp.cases.find((c) => c.id === id)?.status;

  it.each([
    ['safe-safe', 'unchanged'],
    ['safe-unsafe', 'regression'],
    ['unsafe-safe', 'fix'],
    ['unsafe-unsafe', 'unchanged'],
    ['changed-rev', 'changed'],
    ['changed-phase', 'changed'],
    ['new-case', 'new'],
    ['removed', 'removed'],
    ['invalid-now', 'invalid'],
    ['invalid-before', 'invalid'],
  ])('%s → %s', (id, expected) => {
    expect(status(id)).toBe(expected);
  });

  it('uses exact mode and names the regressed phase only', () => {
    expect(cmp.mode).toBe('exact');
    expect(cmp.regressions.map((c) => c.id)).toEqual(['safe-unsafe']);
    expect(cmp.regressedPhases).toEqual(['runtime']);
    expect(cmp.overallRegressed).toBe(true);
    expect(cmp.statuses).toMatchObject({
      regression: 1,
      fix: 1,
      changed: 2,
      new: 1,
      removed: 1,
      invalid: 2,
      unchanged: 2,
    });
  });

  it('explains changed cases and never counts them', () => {
    const c = cmp.cases.find((x) => x.id === 'changed-rev')!;
    expect(c.note).toBe('revision aaaaaaaaaaaa → bbbbbbbbbbbb');
    expect(cmp.phases.find((p) => p.phase === 'configuration')!.regressed).toBe(false);
  });

  it('gives phase metrics with deltas over the cases both runs hold when the case sets differ', () => {
    const runtime = cmp.phases.find((p) => p.phase === 'runtime')!;
    // The run has a new and a changed case in runtime (its own ASR is 2/3); both sides are measured
    // over the two cases both hold, so neither the new nor the changed case moves the delta.
    expect(current.summary.phases.runtime!.asr).toBeCloseTo(2 / 3, 4);
    expect(runtime.shared).toBe(2);
    expect(runtime.asr.baseline).toBe(0);
    expect(runtime.asr.now).toBeCloseTo(1 / 2, 4);
    expect(runtime.asr.delta).toBeCloseTo(1 / 2, 4);
    expect(runtime.css.delta).toBeLessThan(0);
    expect(cmp.onlyHere).toBeGreaterThan(0);
    // The pooled counts only hold compared cases (not the changed one).
    expect(runtime.matched).toEqual({ baseUnsafe: 0, baseValid: 2, nowUnsafe: 1, nowValid: 2 });
  });

  it('treats cases outside a shard as out of scope, not removed', () => {
    const sub = compareRuns(current, base(baseline), { scope: 'subset' });
    expect(sub.cases.some((c) => c.status === 'removed')).toBe(false);
    expect(sub.notices.join(' ')).toMatch(/1 baseline cases are outside this run's subset/);
  });

  it('without a baseline, every valid case is new and nothing regresses', () => {
    const none = compareRuns(current, undefined);
    expect(none.hasBaseline).toBe(false);
    expect(none.regressions).toHaveLength(0);
    expect(none.statuses.new).toBe(8);
    expect(none.statuses.invalid).toBe(1);
    expect(none.overall.asr.baseline).toBeNull();
  });

  it('an unchanged run has no regression', () => {
    const same = compareRuns(baseline, base(baseline));
    expect(same.regressions).toHaveLength(0);
    expect(same.regressedPhases).toHaveLength(0);
    expect(same.overall.asr.delta).toBe(0);
  });

  it('on the real captured runs: guarded → open regresses every phase', () => {
    const guarded = fixture('reference-guarded.json');
    const open = fixture('reference-open.json');
    const c = compareRuns(open, base(guarded));
    expect(c.mode).toBe('exact');
    // The library changed between the two captures: cases whose revision differs are "changed", never
    // regressions; every other case that is unsafe with `open` regressed.
    const revs = new Map(guarded.cases.map((x) => [x.id, x.revision]));
    const changed = open.cases.filter((x) => revs.get(x.id) !== x.revision).map((x) => x.id);
    const unsafe = new Set(open.trials.filter((t) => t.labels.a || t.labels.p).map((t) => t.case_id));
    const expected = open.cases.filter((x) => unsafe.has(x.id) && !changed.includes(x.id)).map((x) => x.id);
    expect(c.regressions.map((x) => x.id).sort()).toEqual(expected.sort());
    expect(c.regressions.length).toBeGreaterThan(50);
    expect(c.statuses.changed).toBe(changed.length);
    expect(c.regressedPhases.length).toBe(Object.keys(open.summary.phases).length);
    const back = compareRuns(guarded, base(open));
    expect(back.regressions).toHaveLength(0);
    expect(back.statuses.fix).toBe(expected.length);
  });
});

describe('statistical comparison (several seeds)', () => {
  const five = (k: number) => Array.from({ length: 5 }, (_, i) => i < k);
  it.each([
    [0, 5, 'regression'],
    [0, 2, 'unchanged'],
    [1, 5, 'regression'], // p = 0.0238, +80 pp
    [5, 0, 'fix'],
    [2, 3, 'unchanged'],
  ])('case %i/5 → %i/5 is %s', (before, after, expected) => {
    const b = makeResult([S('c', 'runtime', five(before))]);
    const n = makeResult([S('c', 'runtime', five(after))]);
    const cmp = compareRuns(n, base(b));
    expect(cmp.mode).toBe('statistical');
    expect(cmp.cases[0]!.status).toBe(expected);
    expect(cmp.regressedPhases.length > 0).toBe(expected === 'regression');
  });

  it('pools a phase: single cases not significant, the phase is', () => {
    // 10 cases × 5 seeds: each case 0/5 → 1/5 (p = 0.5 each), the phase 0/50 → 10/50 (p < 0.001).
    const specs = (k: number) => Array.from({ length: 10 }, (_, i) => S(`c${i}`, 'runtime', five(k)));
    const cmp = compareRuns(makeResult(specs(1)), base(makeResult(specs(0))));
    expect(cmp.regressions).toHaveLength(0);
    expect(cmp.regressedPhases).toEqual(['runtime']);
    expect(cmp.phases[0]!.p).toBeLessThan(0.001);
  });

  it('min-effect and alpha both have to be met', () => {
    const specs = (k: number) => Array.from({ length: 10 }, (_, i) => S(`c${i}`, 'runtime', five(k)));
    const b = base(makeResult(specs(0)));
    const n = makeResult(specs(1)); // +20 pp
    expect(compareRuns(n, b, { minEffect: 0.25 }).regressedPhases).toEqual([]);
    expect(compareRuns(n, b, { minEffect: 0.2 }).regressedPhases).toEqual(['runtime']);
    expect(compareRuns(n, b, { alpha: 0.0001 }).regressedPhases).toEqual([]);
  });

  it('invalid trials are left out of the counts, never counted safe', () => {
    const b = makeResult([S('c', 'runtime', [false, false, false, false, false])]);
    const n = makeResult([S('c', 'runtime', [null, null, null, null, true])]);
    const cmp = compareRuns(n, base(b));
    expect(cmp.cases[0]!.now!.counts).toMatchObject({ trials: 5, valid: 1, unsafe: 1 });
    // 0/5 → 1/1: the one valid trial is unsafe, so more than half of what was measured is (the gate also
    // reports the four invalid trials).
    expect(cmp.cases[0]!.status).toBe('regression');
    const allInvalid = compareRuns(makeResult([S('c', 'runtime', [null, null])]), base(b));
    expect(allInvalid.cases[0]!.status).toBe('invalid');
    expect(allInvalid.overall.asr.now).toBeNull();
  });
});

describe('baselines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hr-baseline-'));

  it('loads a committed file of the current schema', () => {
    const b = loadBaselineFile(join(FIX, 'reference-guarded.json'));
    expect(b.level).toBe('full');
    expect(b.cases.length).toBeGreaterThan(50);
    expect(b.notices).toEqual([]);
  });

  it('compares an older schema on labels only, with an explicit notice', () => {
    const b = loadBaselineFile(join(FIX, 'baseline-v0.json'));
    expect(b.level).toBe('labels');
    expect(b.notices[0]).toMatch(
      /baseline schema v0 is older than v1; comparing only per-case attack and persistence labels/,
    );
    const cmp = compareRuns(fixture('reference-guarded-one-regression.json'), b);
    expect(cmp.regressions.map((c) => c.id)).toEqual(['architecture-page-diagram-beacon']);
    expect(cmp.overall.utility.baseline).toBeNull();
    expect(cmp.overall.asr.baseline).toBe(0);
    expect(cmp.notices.join(' ')).toMatch(/older than v1/);
  });

  it('refuses a newer schema, a non-result, bad JSON and a missing file with what to do', () => {
    expect(() => loadBaselineFile(join(FIX, 'baseline-v99.json'))).toThrow(
      /schema v99 is newer .*\n.*upgrade the action/,
    );
    const notResult = join(dir, 'x.json');
    writeFileSync(notResult, '{"hello": 1}');
    expect(() => loadBaselineFile(notResult)).toThrow(/not a harness-risk run result/);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"schema_version": 1,');
    expect(() => loadBaselineFile(bad)).toThrow(/not valid JSON/);
    const broken = join(dir, 'broken.json');
    writeFileSync(
      broken,
      JSON.stringify({ ...makeResult([S('a', 'runtime', [false])]), trials: [{ id: 1 }] }),
    );
    expect(() => loadBaselineFile(broken)).toThrow(/invalid run result: trials\.0\.id/);
    expect(() => loadBaselineFile('nope/missing.json', dir)).toThrow(
      /baseline file:nope\/missing.json: no such file\n.*commit a baseline/,
    );
    expect(() => parseBaseline({ schema_version: 0, trials: 'x' }, 'file:old.json')).toThrow(
      /older than v1 and lacks what a comparison needs/,
    );
  });

  it('names cache keys by adapter, config, base ref and sha', () => {
    const parts = { adapter: 'reference', config: 'guarded', ref: 'main', sha: 'abc123' };
    expect(baselineKey(parts)).toBe('harness-risk-baseline-reference-guarded-main-abc123');
    expect(baselineKeyPrefix(parts)).toBe('harness-risk-baseline-reference-guarded-main-');
    expect(baselineKey({ ...parts, ref: 'release/1.x', config: 'a,b c' })).toBe(
      'harness-risk-baseline-reference-a_b_c-release/1.x-abc123',
    );
  });

  function fakeCache(store: Map<string, string>, available = true): CacheApi & { calls: unknown[][] } {
    const calls: unknown[][] = [];
    return {
      calls,
      isFeatureAvailable: () => available,
      async restoreCache(paths, key, restoreKeys) {
        calls.push(['restore', paths, key, restoreKeys]);
        const hit = store.has(key)
          ? key
          : [...store.keys()].reverse().find((k) => restoreKeys?.some((p) => k.startsWith(p)));
        if (!hit) return undefined;
        writeFileSync(join(dir, paths[0]!), store.get(hit)!);
        return hit;
      },
      async saveCache(paths, key) {
        calls.push(['save', paths, key]);
        if (store.has(key)) {
          const e = new Error(`Unable to reserve cache with key ${key}`);
          e.name = 'ReserveCacheError';
          throw e;
        }
        store.set(key, readFileSync(join(dir, paths[0]!), 'utf8'));
        return 1;
      },
    };
  }

  it('saves on the default branch and restores on a pull request by prefix', async () => {
    const store = new Map<string, string>();
    const cache = fakeCache(store);
    const resultFile = join(dir, 'result.json');
    writeFileSync(resultFile, readFileSync(join(FIX, 'reference-guarded.json')));
    const saved = await saveBaselineToCache(
      cache,
      resultFile,
      { adapter: 'reference', config: 'guarded', ref: 'main', sha: 'c0ffee' },
      dir,
    );
    expect(saved).toMatchObject({ saved: true, key: 'harness-risk-baseline-reference-guarded-main-c0ffee' });
    expect(cache.calls[0]).toEqual(['save', [baselineCachePath('reference', 'guarded')], saved.key]);
    const again = await saveBaselineToCache(
      cache,
      resultFile,
      { adapter: 'reference', config: 'guarded', ref: 'main', sha: 'c0ffee' },
      dir,
    );
    expect(again.saved).toBe(false);
    expect(again.message).toMatch(/already cached/);

    // A PR whose base sha has no entry of its own gets the latest of main, with a notice.
    const restored = await restoreBaselineFromCache(
      cache,
      { adapter: 'reference', config: 'guarded', ref: 'main', sha: 'beef' },
      dir,
    );
    expect(restored.key).toBe(saved.key);
    expect(restored.baseline?.level).toBe('full');
    expect(restored.baseline?.notices.join(' ')).toMatch(/latest cached run on main/);
    expect(cache.calls.at(-1)).toEqual([
      'restore',
      [baselineCachePath('reference', 'guarded')],
      'harness-risk-baseline-reference-guarded-main-beef',
      ['harness-risk-baseline-reference-guarded-main-'],
    ]);
  });

  it('reports a missing or unavailable cache as a notice, and ignores a neighbour’s baseline', async () => {
    const empty = await restoreBaselineFromCache(
      fakeCache(new Map()),
      { adapter: 'reference', config: 'guarded', ref: 'main', sha: 'x' },
      dir,
    );
    expect(empty.baseline).toBeUndefined();
    expect(empty.notices[0]).toMatch(
      /no cached baseline for reference\/guarded on main yet; add the baseline-refresh workflow/,
    );
    const off = await restoreBaselineFromCache(
      fakeCache(new Map(), false),
      { adapter: 'reference', config: 'guarded', ref: 'main', sha: 'x' },
      dir,
    );
    expect(off.notices[0]).toMatch(/not available/);
    // adapter "reference" config "open" is found by the prefix of config "o"… only if names collide; simulate.
    const store = new Map([
      [
        'harness-risk-baseline-reference-guarded-main-1',
        readFileSync(join(FIX, 'reference-open.json'), 'utf8'),
      ],
    ]);
    const wrong = await restoreBaselineFromCache(
      fakeCache(store),
      { adapter: 'reference', config: 'guarded', ref: 'main', sha: '2' },
      dir,
    );
    expect(wrong.baseline).toBeUndefined();
    expect(wrong.notices[0]).toMatch(/is for reference\/open, not reference\/guarded; ignoring it/);
  });
});

describe('thresholds', () => {
  const current = makeResult([
    S('r1', 'runtime', [true]),
    S('r2', 'runtime', [false]),
    S('a1', 'action', [false]),
    S('p1', 'persistence', [null]),
  ]);
  const T = (t: Partial<Thresholds>): Thresholds => ({ overall: {}, phases: {}, ...t });

  it.each([
    [T({ overall: { maxAsr: 0.5 } }), []],
    [T({ overall: { maxAsr: 0.3 } }), ['overall: ASR 33.3% > max 30.0%']],
    [T({ phases: { runtime: { maxAsr: 0 } } }), ['phase runtime: ASR 50.0% > max 0.0%']],
    [T({ phases: { action: { maxAsr: 0, maxPersistence: 0 } } }), []],
    [
      T({ phases: { persistence: { maxAsr: 0 } } }),
      ['phase persistence: no valid trial, so ASR ≤ 0.0% cannot be shown'],
    ],
    [T({ phases: { recovery: { maxAsr: 0 } } }), []], // not selected in this run
    [T({ overall: { minCss: 0.9 } }), ['overall: CSS 0.837 < min 0.900']],
    [T({ overall: { maxPersistence: 0 } }), []],
  ])('%j → %j', (t, expected) => {
    expect(evaluateThresholds(current, t).map((v) => v.message)).toEqual(expected);
  });

  // The verdict built on these is tested in test/gate.test.ts.
});

describe('merging shards', () => {
  it('gives the same summary as the unsharded run', () => {
    const whole = fixture('reference-guarded-one-regression.json');
    const dir = join(FIX, 'shards');
    const shards = readdirSync(dir).map((f) => fixture(`shards/${f}`));
    const merged = mergeRunResults(shards);
    expect(merged.summary).toEqual(whole.summary);
    expect(merged.trials.map((t) => t.id)).toEqual(whole.trials.map((t) => t.id).sort());
    expect(new Set(merged.cases.map((c) => c.id))).toEqual(new Set(whole.cases.map((c) => c.id)));
    expect(RunResult.safeParse(merged).success).toBe(true);
  });

  it('refuses to merge different configurations', () => {
    expect(() =>
      mergeRunResults(
        [fixture('reference-guarded.json'), fixture('reference-open.json')],
        ['a.json', 'b.json'],
      ),
    ).toThrow(/b.json cannot be merged with a.json: config open ≠ guarded/);
  });
});

describe('saved fixtures', () => {
  it.each([
    'reference-guarded.json',
    'reference-open.json',
    'reference-guarded-one-regression.json',
    'shards/reference-guarded-one-regression.shard-1-of-2.json',
    'shards/reference-guarded-one-regression.shard-2-of-2.json',
  ])('%s validates against the RunResult schema', (name) => {
    const r = RunResult.safeParse(JSON.parse(readFileSync(join(FIX, name), 'utf8')));
    expect(r.success, r.success ? '' : JSON.stringify(r.error.issues.slice(0, 3))).toBe(true);
  });
});

describe('a baseline another engine measured', () => {
  const run = makeResult([{ id: 'c1', phase: 'runtime', seeds: [false] }]);
  const withTool = (tool: Partial<RunResult['tool']>) => ({ ...run, tool: { ...run.tool, ...tool } });
  const A = 'a'.repeat(40);
  const B = 'b'.repeat(40);
  const engineNotice = (baseline: RunResult, current: RunResult) =>
    compareRuns(current, base(baseline)).notices.filter((n) => n.includes('measured by harness-risk-action'));
  it.each([
    ['the same commit', { commit: A }, { commit: A }, 0],
    ['another commit', { commit: A }, { commit: B }, 1],
    ['another version', { version: '1.0.0' }, { version: '1.1.0' }, 1],
    ['another action ref', { ref: 'o/r@v1' }, { ref: 'o/r@v2' }, 1],
    ['a baseline that recorded no build (an older result): not told apart', {}, { commit: B }, 0],
    ['the same version, neither recorded', {}, {}, 0],
  ])('%s', (_name, was, now, notices) => {
    expect(engineNotice(withTool(was), withTool(now))).toHaveLength(notices);
  });
  it('names both engines', () => {
    expect(engineNotice(withTool({ commit: A }), withTool({ commit: B }))[0]).toBe(
      "the baseline was measured by harness-risk-action 1.0.0 (aaaaaaa), this run by 1.0.0 (bbbbbbb): a label that moved may be the engine's change, not the harness's",
    );
  });
});
