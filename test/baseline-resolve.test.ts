// resolveBaseline(): which baseline a run is compared with (or why none), for every baseline source the
// action and the CLI can ask for, and the gate input both front ends build from it.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PairedOutcome } from '../src/baseline/base-head.js';
import { baselineCachePath, baselineKey, type CacheApi } from '../src/baseline/cache.js';
import { type BaselineFacts, gateInput, loadEarly, resolveBaseline } from '../src/baseline/resolve.js';
import { type BaselineSource, parseBaselineSource } from '../src/baseline/source.js';
import { baselineFromResult } from '../src/compare/baseline.js';
import { RunResult } from '../src/spec/run-result.js';
import { gateOptions } from './support/gate-options.js';

const FIX = join(import.meta.dirname, 'fixtures/results');
const fixtureText = readFileSync(join(FIX, 'reference-guarded.json'), 'utf8');
const result = RunResult.parse(JSON.parse(fixtureText));
const { name: adapter, config } = result.adapter;

/** A cache holding `store` (key → file text); restores write the file where the action reads it. */
function fakeCache(dir: string, store: Map<string, string>, available = true): CacheApi {
  return {
    isFeatureAvailable: () => available,
    async restoreCache(paths, key, restoreKeys) {
      const hit = store.has(key)
        ? key
        : [...store.keys()].find((k) => restoreKeys?.some((p) => k.startsWith(p)));
      if (!hit) return undefined;
      writeFileSync(join(dir, paths[0]!), store.get(hit)!);
      return hit;
    },
    async saveCache() {
      return 1;
    },
  };
}

function cacheFacts(
  entries: Record<string, string>,
  over: Partial<NonNullable<BaselineFacts['cache']>> = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'hr-resolve-'));
  mkdirSync(join(dir, '.harness-risk', 'baseline'), { recursive: true });
  expect(baselineCachePath(adapter, config).startsWith('.harness-risk/baseline/')).toBe(true);
  return {
    api: fakeCache(dir, new Map(Object.entries(entries))),
    cwd: dir,
    adapter,
    config,
    branch: 'main',
    sha: 'abc',
    ...over,
  };
}

const paired = (over: Partial<PairedOutcome>): PairedOutcome => ({
  head: result,
  baseSha: 'b'.repeat(40),
  baselineUsed: '',
  baselineNotes: [],
  builds: [],
  ...over,
});

const FILE = baselineFromResult(result, 'file:base.json');
const BASE = baselineFromResult(result, 'base built in this job from bbbbbbbbbbbb');

describe('resolveBaseline: the baseline of each source', () => {
  const cases: {
    name: string;
    source: BaselineSource;
    facts: () => BaselineFacts;
    baseline?: string;
    notes: string[];
    notices: RegExp[];
    builds?: number;
  }[] = [
    {
      name: 'none, chosen',
      source: { kind: 'none' },
      facts: () => ({ reportOnly: false }),
      notes: ['baseline: none'],
      notices: [/^baseline: none, so only absolute numbers and thresholds are reported$/],
    },
    {
      name: 'none, because no flag named one (the CLI)',
      source: { kind: 'none', unset: 'no --baseline given' },
      facts: () => ({ reportOnly: true }),
      notes: ['no --baseline given'],
      notices: [],
    },
    {
      name: 'file, loaded before the run',
      source: { kind: 'file', path: 'base.json' },
      facts: () => ({ reportOnly: false, file: FILE }),
      baseline: 'file:base.json',
      notes: [],
      notices: [],
    },
    {
      name: 'base: the base tree built in this job',
      source: { kind: 'base' },
      facts: () => ({ reportOnly: false, paired: paired({ baseline: BASE }) }),
      baseline: BASE.source,
      notes: [],
      notices: [],
    },
    {
      name: 'base: the base build failed',
      source: { kind: 'base', ref: 'origin/main' },
      facts: () => ({
        reportOnly: false,
        paired: paired({
          baselineNotes: ['the base build failed, so the base bbbbbbbbbbbb could not be measured'],
          builds: [
            {
              tree: 'base',
              command: 'make',
              outcome: { ok: false, code: 2, timedOut: false, tail: 'boom', durationMs: 1 },
            },
          ],
        }),
      }),
      notes: ['the base build failed, so the base bbbbbbbbbbbb could not be measured'],
      notices: [],
      builds: 1,
    },
    {
      name: 'base in report-only mode: the base-tree results among the heads (found by the gate)',
      source: { kind: 'base' },
      facts: () => ({ reportOnly: true }),
      notes: ['baseline: base, but no base-tree result (x.base.json) is among the run results'],
      notices: [],
    },
    {
      name: 'cache: no base branch known',
      source: { kind: 'cache' },
      facts: () => ({ reportOnly: false, cache: cacheFacts({}, { branch: undefined }) }),
      notes: ['no cached baseline of the base branch for this adapter and configuration'],
      notices: [/^no base branch is known for this event/],
    },
    {
      name: 'cache: nothing cached yet',
      source: { kind: 'cache' },
      facts: () => ({ reportOnly: false, cache: cacheFacts({}) }),
      notes: ['no cached baseline of the base branch for this adapter and configuration'],
      notices: [/^no cached baseline for reference\/guarded on main yet/],
    },
    {
      name: 'cache: the entry of the base commit',
      source: { kind: 'cache' },
      facts: () => ({
        reportOnly: false,
        cache: cacheFacts({ [baselineKey({ adapter, config, ref: 'main', sha: 'abc' })]: fixtureText }),
      }),
      baseline: `cache:${baselineKey({ adapter, config, ref: 'main', sha: 'abc' })}`,
      notes: [],
      notices: [],
    },
    {
      name: 'cache: without a base commit, the branch’s latest entry',
      source: { kind: 'cache' },
      facts: () => ({
        reportOnly: false,
        cache: cacheFacts(
          { [baselineKey({ adapter, config, ref: 'main', sha: 'older' })]: fixtureText },
          { sha: undefined },
        ),
      }),
      baseline: `cache:${baselineKey({ adapter, config, ref: 'main', sha: 'older' })}`,
      notes: [],
      notices: [],
    },
  ];

  it.each(cases)('$name', async (c) => {
    const r = await resolveBaseline(c.source, c.facts());
    expect(r.baseline?.source).toBe(c.baseline);
    expect(r.notes).toEqual(c.notes);
    expect(r.notices).toHaveLength(c.notices.length);
    for (const [i, re] of c.notices.entries()) expect(r.notices[i]).toMatch(re);
    expect(r.buildFailures).toHaveLength(c.builds ?? 0);
  });

  it('a cache hit says which key it came from', async () => {
    const key = baselineKey({ adapter, config, ref: 'main', sha: 'abc' });
    const r = await resolveBaseline(
      { kind: 'cache' },
      { reportOnly: false, cache: cacheFacts({ [key]: fixtureText }) },
    );
    expect(r.restoredKey).toBe(key);
  });

  it('a named file that is missing fails before the run, naming it and what to do', () => {
    expect(() => loadEarly({ kind: 'file', path: 'no/such.json' }, tmpdir())).toThrow(
      /baseline file:no\/such\.json: no such file/,
    );
    expect(loadEarly({ kind: 'cache' })).toBeUndefined();
  });
});

describe('parseBaselineSource: the action’s baseline input', () => {
  it.each([
    ['none', { kind: 'none' }],
    ['', { kind: 'none' }],
    ['cache', { kind: 'cache' }],
    ['base', { kind: 'base' }],
    ['file: results/main.json', { kind: 'file', path: 'results/main.json' }],
    ['file:', undefined],
    ['main', undefined],
  ])('%j → %j', (v, want) => {
    expect(parseBaselineSource(v)).toEqual(want);
  });
});

describe('gateInput: the one assembly of the gate input', () => {
  const heads = [{ result, name: 'r.json' }];
  it('a baseline, no notes; a build failure passed on', () => {
    const g = gateInput({
      heads,
      resolved: {
        baseline: BASE,
        notes: ['ignored when there is a baseline'],
        notices: [],
        buildFailures: [{ tree: 'head', message: 'm' }],
      },
      options: gateOptions(),
      scope: 'shard',
    });
    expect(g).toEqual({
      heads,
      baseline: BASE,
      baselineNotes: [],
      buildFailures: [{ tree: 'head', message: 'm' }],
      options: gateOptions(),
      scope: 'shard',
    });
  });
  it('no baseline: the notes say why; no untrusted reason unless given', () => {
    const g = gateInput({
      heads,
      resolved: { notes: ['baseline: none'], notices: [], buildFailures: [] },
      options: gateOptions(),
      untrusted: 'a fork',
    });
    expect(g).toEqual({
      heads,
      baselineNotes: ['baseline: none'],
      options: gateOptions(),
      untrusted: 'a fork',
    });
  });
});
