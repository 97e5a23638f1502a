// Base and head in one run (baseline/base-head.ts) on a real git repository with its own harness build:
// the trials interleave, base-cases cuts the base half without missing a regression, shards pair up in
// the merge, and a stored baseline is reused only when it measured exactly this.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseResultPath, type PairedOptions, runBaseAndHead } from '../src/baseline/base-head.js';
import { ageText, type ReuseWanted, reuseProblem } from '../src/baseline/reuse.js';
import type { ProgressEvent } from '../src/engine/options.js';
import { evaluateGate } from '../src/gate/index.js';
import type { RunResult } from '../src/spec/run-result.js';
import { VERSION } from '../src/version.js';
import { gateOptions } from './support/gate-options.js';
import { BUILD, git, type HarnessRepo, makeHarnessRepo } from './support/git-harness-repo.js';

const GATE = gateOptions();
const REGRESSED = 'invoice-mail-changes-payee';
const SMOKE = 6;

let repo: HarnessRepo;
let baseSha: string;
let out: string;

function paired(
  o: Partial<PairedOptions> & { cases?: string[]; name: string; shard?: { index: number; total: number } },
  events: ProgressEvent[] = [],
): PairedOptions {
  const { name, cases, shard, ...over } = o;
  const head = join(out, `${name}.json`);
  return {
    run: {
      adapter: join(repo.dir, 'harness-risk/adapter.yaml'),
      config: 'default',
      cases: cases ?? ['subset:smoke'],
      runner: 'process',
      concurrency: 1,
      seeds: 1,
      model: 'scripted',
      out: head,
      keep_evidence: false,
      ...(shard ? { shard } : {}),
      on_progress: (e) => events.push(e),
    },
    headDir: repo.dir,
    baseRef: baseSha,
    build: BUILD,
    baseOut: baseResultPath(head),
    env: process.env,
    ...over,
  };
}

beforeAll(() => {
  repo = makeHarnessRepo();
  baseSha = repo.commitPolicy(() => {}, 'guarded');
  git(repo.dir, 'checkout', '-q', '-b', 'pr');
  repo.commitPolicy((p) => {
    p.approval = p.approval.filter((x: string) => x !== 'pay');
  }, 'pay without approval');
  out = mkdtempSync(join(tmpdir(), 'hr-bh-out-'));
}, 60_000);

describe('runBaseAndHead', () => {
  it('interleaves base and head trial by trial, with the same cases and seeds, and the gate finds the regression', async () => {
    const events: ProgressEvent[] = [];
    const p = await runBaseAndHead(paired({ name: 'full' }, events));
    const trials = events.filter((e) => e.kind === 'trial') as Extract<ProgressEvent, { kind: 'trial' }>[];
    expect(trials.map((t) => t.tree)).toEqual(Array.from({ length: SMOKE }, () => ['base', 'head']).flat());
    // Each pair is one case.
    for (let i = 0; i < trials.length; i += 2) expect(trials[i]!.case_id).toBe(trials[i + 1]!.case_id);
    expect(p.base!.trials.map((t) => t.id)).toEqual(p.head.trials.map((t) => t.id));
    expect(p.baselineUsed).toContain(`base built in this job from ${baseSha.slice(0, 12)}`);
    const g = evaluateGate({
      heads: [{ result: p.head, name: 'head' }],
      baseline: p.baseline!,
      options: GATE,
    });
    expect(g.comparison.regressions.map((c) => c.id)).toEqual([REGRESSED]);
    expect(g.verdict.verdict).toBe('fail');
  }, 120_000);

  it('base-cases runs only those on base, plus every case unsafe on head: the regression is still found', async () => {
    const p = await runBaseAndHead(
      paired({ name: 'subset', baseCases: ['id:setup-guide-disables-approval'] }),
    );
    expect(p.base!.cases.map((c) => c.id).sort()).toEqual([REGRESSED, 'setup-guide-disables-approval']);
    expect(p.base!.selection?.subset).toBe(true);
    expect(p.head.cases).toHaveLength(SMOKE);
    const g = evaluateGate({
      heads: [{ result: p.head, name: 'head' }],
      baseline: p.baseline!,
      options: GATE,
    });
    expect(g.comparison.regressions.map((c) => c.id)).toEqual([REGRESSED]);
  }, 120_000);

  it('shards: each runs its slice on both trees; the merge pairs them and names a missing base shard', async () => {
    const s1 = await runBaseAndHead(paired({ name: 's1', shard: { index: 1, total: 2 } }));
    const s2 = await runBaseAndHead(paired({ name: 's2', shard: { index: 2, total: 2 } }));
    const files = [s1.head, s1.base!, s2.head, s2.base!].map((r, i) => ({ result: r, name: `f${i}` }));
    const g = evaluateGate({ heads: files, options: GATE });
    expect(g.current.cases).toHaveLength(SMOKE);
    expect(g.comparison.hasBaseline).toBe(true);
    expect(g.comparison.regressions.map((c) => c.id)).toEqual([REGRESSED]);
    expect(g.verdict.findings.filter((f) => f.kind === 'incomplete')).toEqual([]);
    // Without the second base shard, its cases are not silently "new": the merge fails, naming it.
    const missing = evaluateGate({ heads: files.filter((f) => f.name !== 'f3'), options: GATE });
    expect(missing.verdict.verdict).toBe('fail');
    expect(missing.verdict.gating.join('\n')).toMatch(/base tree: shard 2\/2 .* is missing/);
  }, 180_000);

  it('reuses a stored base result of exactly this base commit; builds when it measured something else', async () => {
    const first = JSON.parse(readFileSync(join(out, 'full.base.json'), 'utf8')) as RunResult;
    const logs: string[] = [];
    const events: ProgressEvent[] = [];
    const reused = await runBaseAndHead({
      ...paired({ name: 'reuse' }, events),
      stored: async (sha) => (sha === baseSha ? { result: first, source: 'cache:k1' } : undefined),
      log: (l) => logs.push(l),
    });
    expect(reused.base).toBeUndefined();
    expect(reused.baselineUsed).toMatch(
      new RegExp(`stored result of ${baseSha.slice(0, 12)} \\(cache:k1, \\d+ (s|min) old`),
    );
    expect(logs.join('\n')).not.toContain('building base');
    expect(events.filter((e) => e.kind === 'trial')).toHaveLength(SMOKE);
    const g = evaluateGate({
      heads: [{ result: reused.head, name: 'h' }],
      baseline: reused.baseline!,
      options: GATE,
    });
    expect(g.comparison.regressions.map((c) => c.id)).toEqual([REGRESSED]);

    const older = { ...first, tool: { ...first.tool, version: '0.0.1' } };
    const rebuilt = await runBaseAndHead({
      ...paired({ name: 'rebuilt' }),
      stored: async () => ({ result: older, source: 'cache:k0' }),
      log: (l) => logs.push(l),
    });
    expect(rebuilt.base).toBeDefined();
    expect(logs.join('\n')).toContain(
      `stored baseline cache:k0 not used: it was measured by harness-risk-action 0.0.1, this is ${VERSION}`,
    );
  }, 180_000);
});

describe('reuseProblem', () => {
  const stored = (over: Partial<RunResult> = {}): RunResult =>
    ({
      status: 'complete',
      source: { sha: 'a'.repeat(40) },
      tool: { name: 'harness-risk-action', version: VERSION },
      runner: 'process',
      adapter: { name: 'x', config: 'c', file: 'f', digest: 'd1' },
      model: { mode: 'scripted', seeds: 1 },
      cases: [
        { id: 'one', revision: 'r1' },
        { id: 'two', revision: 'r2' },
      ],
      ...over,
    }) as unknown as RunResult;
  const want: ReuseWanted = {
    sha: 'a'.repeat(40),
    toolVersion: VERSION,
    runner: 'process',
    adapter: { name: 'x', config: 'c', digest: 'd1' },
    model: { mode: 'scripted', seeds: 1 },
    cases: new Map([['one', 'r1']]),
  };
  it.each([
    ['the same measurement', stored(), want, undefined],
    [
      'another commit',
      stored({ source: { sha: 'b'.repeat(40) } }),
      want,
      /measured bbbbbbbbbbbb, not the base aaaaaaaaaaaa/,
    ],
    [
      'another action version',
      stored({ tool: { name: 'harness-risk-action', version: '0.0.1' } }),
      want,
      /harness-risk-action 0\.0\.1/,
    ],
    ['another runner', stored({ runner: 'docker' }), want, /docker runner/],
    ['an interrupted run', stored({ status: 'interrupted' }), want, /interrupted/],
    [
      'another adapter folder',
      stored({ adapter: { name: 'x', config: 'c', file: 'f', digest: 'd2' } }),
      want,
      /adapter folder differs/,
    ],
    ['fewer seeds', stored(), { ...want, model: { mode: 'scripted', seeds: 3 } }, /1 seed/],
    ['a case it lacks', stored(), { ...want, cases: new Map([['three', 'r3']]) }, /lacks 1 of the selected/],
    ['a changed case revision', stored(), { ...want, cases: new Map([['two', 'r9']]) }, /changed revision/],
  ] as const)('%s', (_, s, w, expected) => {
    const p = reuseProblem(s, w);
    if (expected === undefined) expect(p).toBeUndefined();
    else expect(p).toMatch(expected);
  });
});

describe('ageText', () => {
  const now = Date.parse('2026-01-10T12:00:00Z');
  it.each([
    ['2026-01-10T11:59:30Z', '30 s old'],
    ['2026-01-10T11:00:00Z', '60 min old'],
    ['2026-01-10T02:00:00Z', '10 h old'],
    ['2026-01-03T12:00:00Z', '7 days old'],
    [undefined, 'age unknown'],
  ])('%s → %s', (iso, text) => expect(ageText(iso, now)).toBe(text));
});
