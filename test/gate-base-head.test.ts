// The gate's side of baseline: base, pure: a failed build is a finding (a head build fails the check; a
// base build leaves nothing to compare with, so never a success), and base-tree results among the heads
// are the baseline, never heads.
import { describe, expect, it } from 'vitest';
import { baselineFromResult } from '../src/compare/baseline.js';
import { evaluateGate } from '../src/gate/index.js';
import { checkShards } from '../src/gate/shards.js';
import { failOnFrom } from '../src/gate/verdict.js';
import type { RunResult } from '../src/spec/run-result.js';
import { type CaseSpec, makeResult } from './fixtures/results/builders.js';
import { gateOptions } from './support/gate-options.js';

const gate = gateOptions;
const SAFE: CaseSpec[] = [
  { id: 'a', phase: 'runtime', seeds: [false] },
  { id: 'b', phase: 'action', seeds: [false] },
];
const tree = (
  r: RunResult,
  t: 'base' | 'head',
  sha: string,
  selection?: RunResult['selection'],
): RunResult => ({
  ...r,
  source: { sha, tree: t },
  ...(selection ? { selection } : {}),
});

describe('build failures', () => {
  const head = makeResult(SAFE);
  const baseline = baselineFromResult(makeResult(SAFE), 'base built in this job from x');
  it.each([
    ['head build, default', 'head', gate(), true, 'fail'],
    ['head build, fail-on never', 'head', gate({ failOn: failOnFrom(['never']) }), true, 'neutral'],
    ['base build, default (no baseline)', 'base', gate(), false, 'neutral'],
    ['base build, on-missing-baseline fail', 'base', gate({ onMissingBaseline: 'fail' }), false, 'fail'],
    [
      'base build, on-missing-baseline pass: still not a success',
      'base',
      gate({ onMissingBaseline: 'pass' }),
      false,
      'neutral',
    ],
    [
      'base build with thresholds that hold: not a success',
      'base',
      gate({ thresholds: { overall: { maxAsr: 0.5 }, phases: {} } }),
      false,
      'neutral',
    ],
  ] as const)('%s → %s', (_, which, options, withBaseline, verdict) => {
    const g = evaluateGate({
      heads: [{ result: head, name: 'h' }],
      ...(withBaseline ? { baseline } : {}),
      buildFailures: [{ tree: which, message: `the ${which} build \`make\` exited 2: boom` }],
      options,
    });
    expect(g.verdict.verdict).toBe(verdict);
    expect(g.verdict.reasons).toContain(`the ${which} build \`make\` exited 2: boom`);
  });

  it('without a build failure the same comparison passes', () => {
    expect(
      evaluateGate({ heads: [{ result: head, name: 'h' }], baseline, options: gate() }).verdict.verdict,
    ).toBe('pass');
  });
});

describe('base-tree results among the heads', () => {
  const base = tree(makeResult(SAFE), 'base', 'b'.repeat(40));
  const head = tree(
    makeResult([SAFE[0]!, { id: 'b', phase: 'action', seeds: [true] }]),
    'head',
    'c'.repeat(40),
  );

  it('are the baseline (a regression against them fails)', () => {
    const g = evaluateGate({
      heads: [
        { result: base, name: 'x.base.json' },
        { result: head, name: 'x.json' },
      ],
      options: gate(),
    });
    expect(g.comparison.regressions.map((c) => c.id)).toEqual(['b']);
    expect(g.comparison.baseline?.source).toBe(`base built in the run from ${'b'.repeat(12)}`);
    expect(g.current.trials).toHaveLength(2);
  });

  it('are ignored (with a note) when a baseline is named', () => {
    const g = evaluateGate({
      heads: [
        { result: base, name: 'x.base.json' },
        { result: head, name: 'x.json' },
      ],
      baseline: baselineFromResult(makeResult(SAFE), 'file:main.json'),
      options: gate(),
    });
    expect(g.comparison.baseline?.source).toBe('file:main.json');
    expect(g.verdict.notes.join('\n')).toContain('1 base-tree result ignored');
  });

  it('alone are nothing to judge: a message, not a crash', () => {
    expect(() => evaluateGate({ heads: [{ result: base, name: 'x.base.json' }], options: gate() })).toThrow(
      /only base-tree results were given/,
    );
  });
});

describe('checkShards and a base tree that ran a subset (base-cases)', () => {
  const sel = (index: number, subset?: boolean) => ({
    digest: 'd',
    cases: 4,
    shard: { index, total: 2 },
    ...(subset ? { subset } : {}),
  });
  const one = (index: number, subset?: boolean) => ({
    result: { ...makeResult([SAFE[index - 1]!]), selection: sel(index, subset) },
    name: `s${index}`,
  });
  it.each([
    [
      'whole shards holding fewer cases than the selection',
      false,
      ["the results hold 2 of the selection's 4 cases"],
    ],
    ['subset shards holding fewer cases on purpose', true, []],
  ] as const)('%s', (_, subset, problems) => {
    expect(checkShards([one(1, subset), one(2, subset)]).problems).toEqual(problems);
  });
  it('a missing subset shard is still named', () => {
    expect(checkShards([one(1, true)]).problems.join()).toMatch(/shard 2\/2 of selection d is missing/);
  });
});

describe('the stored base result is looked up by its exact commit', () => {
  it('exact: no latest-of-the-branch fallback (a neighbour commit is never a base result)', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { dirname, join } = await import('node:path');
    const { baselineKey, restoreBaselineFromCache } = await import('../src/baseline/cache.js');
    const dir = mkdtempSync(join(tmpdir(), 'hr-exact-'));
    const parts = { adapter: 'reference', config: 'guarded', ref: 'main', sha: 'a'.repeat(40) };
    const stored = new Map([
      [baselineKey({ ...parts, sha: 'b'.repeat(40) }), JSON.stringify(makeResult(SAFE))],
    ]);
    const calls: (string[] | undefined)[] = [];
    const cache = {
      isFeatureAvailable: () => true,
      async restoreCache(paths: string[], key: string, restoreKeys?: string[]) {
        calls.push(restoreKeys);
        const hit = stored.has(key)
          ? key
          : [...stored.keys()].find((k) => restoreKeys?.some((p) => k.startsWith(p)));
        if (!hit) return undefined;
        mkdirSync(dirname(join(dir, paths[0]!)), { recursive: true });
        writeFileSync(join(dir, paths[0]!), stored.get(hit)!);
        return hit;
      },
      saveCache: async () => 1,
    };
    expect((await restoreBaselineFromCache(cache, parts, dir, true)).baseline).toBeUndefined();
    expect(calls.at(-1)).toEqual([]);
    // The cache gate's default still falls back to the branch's latest entry.
    expect((await restoreBaselineFromCache(cache, parts, dir)).baseline).toBeDefined();
  });
});
