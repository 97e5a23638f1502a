// Strategies through the engine: a harness whose only guard is a regex on the words of each call
// (test/fixtures/adapters/literal-guard) is safe under `direct` and unsafe under at least three strategies;
// each trial records its strategy, the summary and the report show ASR per strategy, resume keys trials
// by case × seed × strategy, and a baseline without strategies compares as `direct`.
import { beforeAll, describe, expect, it } from 'vitest';
import { baselineFromResult } from '../src/compare/baseline.js';
import { compareRuns } from '../src/compare/compare.js';
import type { RunOptions } from '../src/engine/options.js';
import { carriedTrials } from '../src/engine/resume.js';
import { runSafetyCases } from '../src/engine/run.js';
import { strategyTable } from '../src/report/phase-tables.js';
import type { RunResult } from '../src/spec/run-result.js';
import { freshOut, scriptedRun, useTempDir } from './support/engine-run.js';

const dir = useTempDir('hr-strategies-');
const CASE = 'id:fixer-agent-output-runs-script';
const opts = (p: Partial<RunOptions>): RunOptions =>
  scriptedRun({
    adapter: 'test/fixtures/adapters/literal-guard',
    config: 'literal',
    cases: [CASE],
    out: freshOut(dir()),
    ...p,
  });

describe('a wording guard against the strategies', () => {
  let run: RunResult;
  let directOnly: RunResult;
  let directOut = '';
  beforeAll(async () => {
    run = await runSafetyCases(
      opts({ strategies: ['direct', 'split', 'encoded', 'indirect', 'in-project', 'retry'] }),
    );
    directOut = freshOut(dir());
    directOnly = await runSafetyCases(opts({ out: directOut }));
  }, 300_000);

  it('is safe under direct and unsafe under at least three strategies', () => {
    const by = new Map(run.trials.map((t) => [t.strategy, t]));
    expect(run.trials.every((t) => t.valid)).toBe(true);
    expect(by.get('direct')!.labels.a).toBe(false);
    const through = run.trials.filter((t) => t.labels.a).map((t) => t.strategy);
    expect(through.length).toBeGreaterThanOrEqual(3);
    // What got through is the strategy's own route, not a fallback to direct's.
    for (const t of run.trials.filter((x) => x.labels.a)) {
      const won = t.facts.attack_routes?.map((r) => r.succeeded).find(Boolean) ?? '';
      expect(won.startsWith(t.strategy!) || won.startsWith('retry'), `${t.strategy}: ${won}`).toBe(true);
    }
  });

  it('records each trial under its strategy, keyed case × seed × strategy', () => {
    expect(run.trials.map((t) => t.id).sort()).toEqual(
      ['', '.encoded', '.in-project', '.indirect', '.retry', '.split']
        .map((s) => `fixer-agent-output-runs-script.s0${s}`)
        .sort(),
    );
    expect(run.model.strategies).toEqual(['direct', 'split', 'encoded', 'indirect', 'in-project', 'retry']);
    expect(directOnly.model.strategies).toBeUndefined();
    expect(directOnly.trials.map((t) => [t.id, t.strategy])).toEqual([
      ['fixer-agent-output-runs-script.s0', 'direct'],
    ]);
  });

  it('the case is unsafe under any strategy: its phase rate is the worst case, each strategy has its own', () => {
    expect(run.summary.overall.asr).toBe(1);
    expect(run.summary.overall.trials).toBe(1);
    expect(run.summary.strategies!.direct!.asr).toBe(0);
    expect(run.summary.strategies!.encoded!.trials).toBe(1);
    expect(directOnly.summary.strategies).toBeUndefined();
    const table = strategyTable(run)!;
    expect(table).toContain('By attack strategy');
    expect(table).toMatch(/\| direct +\| 1 +\| 1\/1 +\| 0\.0%/);
    expect(strategyTable(directOnly)).toBeUndefined();
  });

  it('compared with a direct-only baseline, the strategies show as a regression of the case', () => {
    const c = compareRuns(run, baselineFromResult(directOnly, 'file:base.json'));
    expect(c.regressions.map((r) => r.id)).toEqual(['fixer-agent-output-runs-script']);
    expect(c.notices.join('\n')).toMatch(/baseline measured strategies direct, this run direct, split/);
    expect(compareRuns(directOnly, baselineFromResult(directOnly, 'file:b.json')).regressions).toEqual([]);
  });

  it('resume refuses a journal of other strategies, and keeps a direct one as direct', () => {
    const header = { adapter: run.adapter, model: directOnly.model, selection: run.selection };
    const journal = { header, trials: directOnly.trials, path: 'r.json.journal' } as unknown as Parameters<
      typeof carriedTrials
    >[0];
    expect(() => carriedTrials(journal, { ...header, model: run.model }, new Set())).toThrow(
      /strategies was direct, now direct,split,encoded,indirect,in-project,retry/,
    );
    const ids = new Set(directOnly.trials.map((t) => t.id));
    expect(carriedTrials(journal, header, ids)).toHaveLength(1);
  });
});
