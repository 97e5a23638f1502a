// run() in-process with fakes for @actions/core, the cache, the engine and the GitHub API: the parts
// the end-to-end test cannot reach (the Actions cache, what the engine receives, non-gating verdicts).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CoreApi, RunDeps } from '../src/action/deps.js';
import { run } from '../src/action/run.js';
import type { CacheApi } from '../src/baseline/cache.js';
import type { RunOptions } from '../src/engine/options.js';
import { INPUT_DEFAULTS } from '../src/front/inputs.js';
import type { GitHubApi } from '../src/report/github.js';
import { resultBytes } from '../src/result/integrity.js';
import { RunResult } from '../src/spec/run-result.js';
import { prOpened, webhookExample } from './support/webhooks.js';

const FIX = join(import.meta.dirname, 'fixtures/results');
const fixture = (name: string) => RunResult.parse(JSON.parse(readFileSync(join(FIX, name), 'utf8')));
const PR_OPENED = prOpened();
const PUSH_MAIN = webhookExample('push', (e) => e.ref === 'refs/heads/master');
PUSH_MAIN.before = '1111111111111111111111111111111111111111';
// A merge queue's group (real payload), queued onto the repository of the push above.
const MERGE_GROUP = webhookExample('merge_group');
MERGE_GROUP.merge_group.base_ref = 'refs/heads/master';
MERGE_GROUP.merge_group.base_sha = '2222222222222222222222222222222222222222';
MERGE_GROUP.repository = PUSH_MAIN.repository;
/** What a run on a push to master, or on the pull request, is started with (event, its name, GITHUB_REF). */
const ON_PUSH = { event: PUSH_MAIN, eventName: 'push', ref: 'refs/heads/master' };
const ON_PR = { event: PR_OPENED, eventName: 'pull_request', ref: 'refs/pull/2/merge' };

interface Harness {
  deps: Partial<RunDeps>;
  outputs: Record<string, string>;
  failed: string[];
  log: string[];
  summaries: string[];
  engineCalls: RunOptions[];
  cacheCalls: unknown[][];
  apiCalls: string[];
  env: NodeJS.ProcessEnv;
}

function harness(opts: {
  inputs: Record<string, string>;
  event: any;
  eventName: string;
  ref: string;
  engineResult?: RunResult;
  cacheStore?: Map<string, string>;
}): Harness {
  const dir = mkdtempSync(join(tmpdir(), 'hr-run-'));
  const eventPath = join(dir, 'event.json');
  writeFileSync(eventPath, JSON.stringify(opts.event));
  const h: Harness = {
    deps: {},
    outputs: {},
    failed: [],
    log: [],
    summaries: [],
    engineCalls: [],
    cacheCalls: [],
    apiCalls: [],
    env: {},
  };
  h.env = {
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_EVENT_NAME: opts.eventName,
    GITHUB_REPOSITORY: 'Codertocat/Hello-World',
    GITHUB_SHA: '2222222222222222222222222222222222222222',
    GITHUB_REF: opts.ref,
    GITHUB_WORKSPACE: dir,
    'INPUT_GITHUB-TOKEN': 'tok',
  };
  const inputs: Record<string, string> = {
    // action.yml's defaults, as the runner passes them (then the test's own).
    ...INPUT_DEFAULTS,
    'github-token': 'tok',
    concurrency: '2',
    seeds: '1',
    model: 'scripted',
    runner: 'process',
    baseline: 'cache',
    'save-baseline': 'auto',
    'fail-on': 'regression,threshold',
    alpha: '0.05',
    'min-effect': '0.1',
    comment: 'true',
    annotations: 'true',
    ...opts.inputs,
  };
  const core: CoreApi = {
    getInput: (n) => inputs[n] ?? '',
    setOutput: (n, v) => {
      h.outputs[n] = v;
    },
    setFailed: (m) => h.failed.push(m),
    setSecret: () => {},
    info: (m) => h.log.push(`info ${m}`),
    debug: () => {},
    notice: (m) => h.log.push(`notice ${m}`),
    warning: (m) => h.log.push(`warning ${m}`),
    error: (m) => h.log.push(`error ${m}`),
    startGroup: () => {},
    endGroup: () => {},
    writeSummary: async (md) => {
      h.summaries.push(md);
      return true;
    },
  };
  const store = opts.cacheStore ?? new Map<string, string>();
  const cache: CacheApi = {
    isFeatureAvailable: () => true,
    async restoreCache(paths, key, restoreKeys) {
      h.cacheCalls.push(['restore', paths, key, restoreKeys]);
      const hit = store.has(key)
        ? key
        : [...store.keys()].find((k) => restoreKeys?.some((p) => k.startsWith(p)));
      if (!hit) return undefined;
      mkdirSync(dirname(join(dir, paths[0]!)), { recursive: true });
      writeFileSync(join(dir, paths[0]!), store.get(hit)!);
      return hit;
    },
    async saveCache(paths, key) {
      h.cacheCalls.push(['save', paths, key]);
      store.set(key, readFileSync(join(dir, paths[0]!), 'utf8'));
      return 7;
    },
  };
  const api = new Proxy({} as GitHubApi, {
    get: (_t, name: string) => async () => {
      h.apiCalls.push(name);
      return name.startsWith('list') ? [] : { id: 1 };
    },
  });
  const engineResult = opts.engineResult ?? fixture('reference-guarded.json');
  h.deps = {
    core,
    env: h.env,
    cwd: dir,
    cache,
    github: () => api,
    engine: async (o) => {
      h.engineCalls.push(o);
      mkdirSync(dirname(o.out), { recursive: true });
      // As the engine writes it: the action checks the file still holds these exact bytes.
      writeFileSync(o.out, resultBytes(engineResult));
      return engineResult;
    },
  };
  return h;
}

describe('run() with the Actions cache', () => {
  it('on a push to the default branch: compares with the previous commit’s baseline, then saves its own', async () => {
    const store = new Map<string, string>();
    const h = harness({
      inputs: { adapter: 'reference', config: 'guarded' },
      ...ON_PUSH,
      cacheStore: store,
    });
    await run(h.deps);
    expect(h.failed).toEqual([]);
    expect(h.cacheCalls[0]).toEqual([
      'restore',
      ['.harness-risk/baseline/reference-guarded.json'],
      'harness-risk-baseline-reference-guarded-master-1111111111111111111111111111111111111111',
      ['harness-risk-baseline-reference-guarded-master-'],
    ]);
    expect(h.cacheCalls[1]).toEqual([
      'save',
      ['.harness-risk/baseline/reference-guarded.json'],
      'harness-risk-baseline-reference-guarded-master-2222222222222222222222222222222222222222',
    ]);
    expect(h.log).toContain(
      'info baseline saved to the Actions cache as harness-risk-baseline-reference-guarded-master-2222222222222222222222222222222222222222',
    );
    expect(h.summaries[0]).toContain('no cached baseline for reference/guarded on master yet');
    expect(h.apiCalls).toEqual(['createCheckRun']); // no PR: no comment

    // The pull request then restores it by its base ref and finds the regression.
    const pr = harness({
      inputs: { adapter: 'reference', config: 'guarded' },
      ...ON_PR,
      cacheStore: store,
      engineResult: fixture('reference-guarded-one-regression.json'),
    });
    await run(pr.deps);
    expect(pr.cacheCalls[0]).toEqual([
      'restore',
      ['.harness-risk/baseline/reference-guarded.json'],
      `harness-risk-baseline-reference-guarded-master-${PR_OPENED.pull_request.base.sha}`,
      ['harness-risk-baseline-reference-guarded-master-'],
    ]);
    expect(pr.cacheCalls.filter((c) => c[0] === 'save')).toEqual([]);
    expect(pr.outputs).toMatchObject({ verdict: 'fail', regressions: '1' });
    expect(pr.failed[0]).toMatch(/^harness-risk: safety regression in runtime/);
    // After creating, the comments are listed once more: a retried POST may have created two.
    expect(pr.apiCalls).toEqual([
      'listIssueComments',
      'createIssueComment',
      'listIssueComments',
      // The PR's changed files: annotations on the lines it changed.
      'listPullRequestFiles',
      'createCheckRun',
    ]);
  });

  it('in a merge queue (merge_group): compares with the queue base, checks the group commit, saves nothing', async () => {
    const store = new Map<string, string>();
    const main = harness({
      inputs: { adapter: 'reference', config: 'guarded' },
      event: PUSH_MAIN,
      eventName: 'push',
      ref: 'refs/heads/master',
      cacheStore: store,
    });
    await run(main.deps);
    const q = harness({
      inputs: { adapter: 'reference', config: 'guarded' },
      event: MERGE_GROUP,
      eventName: 'merge_group',
      ref: MERGE_GROUP.merge_group.head_ref,
      cacheStore: store,
      engineResult: fixture('reference-guarded-one-regression.json'),
    });
    q.env.GITHUB_SHA = MERGE_GROUP.merge_group.head_sha;
    await run(q.deps);
    // The base the queue merges into, at the commit the group was made on: the baseline main just saved.
    expect(q.cacheCalls[0]).toEqual([
      'restore',
      ['.harness-risk/baseline/reference-guarded.json'],
      'harness-risk-baseline-reference-guarded-master-2222222222222222222222222222222222222222',
      ['harness-risk-baseline-reference-guarded-master-'],
    ]);
    expect(q.cacheCalls.filter((c) => c[0] === 'save')).toEqual([]);
    expect(q.outputs).toMatchObject({ verdict: 'fail', regressions: '1' });
    expect(q.apiCalls).toEqual(['createCheckRun']); // no pull request: no comment
  });

  it('never saves a single shard, and save-baseline: false never saves', async () => {
    const shard = harness({
      inputs: { adapter: 'reference', config: 'guarded', shard: '1/2' },
      ...ON_PUSH,
    });
    await run(shard.deps);
    expect(shard.cacheCalls.filter((c) => c[0] === 'save')).toEqual([]);
    expect(shard.log.some((l) => l.startsWith('notice baseline not saved from a single shard'))).toBe(true);
    expect(shard.engineCalls[0]!.shard).toEqual({ index: 1, total: 2 });
    const off = harness({
      inputs: { adapter: 'reference', config: 'guarded', 'save-baseline': 'false' },
      ...ON_PUSH,
    });
    await run(off.deps);
    expect(off.cacheCalls.filter((c) => c[0] === 'save')).toEqual([]);
  });
});

describe('run() and the engine', () => {
  it('passes the inputs as RunOptions, and keeps the token away from the engine', async () => {
    const h = harness({
      inputs: {
        adapter: 'reference',
        config: 'open',
        cases: 'phase:runtime\ntag:mcp',
        timeout: '90',
        concurrency: '3',
        baseline: 'none',
      },
      ...ON_PR,
    });
    let envAtEngine: NodeJS.ProcessEnv = {};
    const engine = h.deps.engine!;
    h.deps.engine = async (o) => {
      envAtEngine = { ...h.env };
      return engine(o);
    };
    await run(h.deps);
    const o = h.engineCalls[0]!;
    expect(o).toMatchObject({
      adapter: 'reference',
      config: 'open',
      cases: ['phase:runtime', 'tag:mcp'],
      runner: 'process',
      concurrency: 3,
      timeout_s: 90,
      seeds: 1,
      model: 'scripted',
      keep_evidence: false,
    });
    expect(o.out).toBe(join(h.env.GITHUB_WORKSPACE!, '.harness-risk/reference-open.json'));
    expect(o.source).toEqual({
      repository: 'Codertocat/Hello-World',
      sha: PR_OPENED.pull_request.head.sha,
      ref: 'refs/pull/2/merge',
    });
    expect(JSON.stringify(o)).not.toContain('tok');
    expect(Object.keys(envAtEngine).some((k) => /TOKEN/i.test(k))).toBe(false);
    expect(h.outputs['result-path']).toBe(o.out);
  });

  it('reports engine user errors as the step’s failure message', async () => {
    const h = harness({
      inputs: { adapter: 'nope', config: 'x', baseline: 'none' },
      ...ON_PR,
    });
    const { UserError } = await import('../src/errors.js');
    h.deps.engine = async () => {
      throw new UserError('unknown adapter "nope"', 'use a built-in adapter name or a path');
    };
    const outcome = await run(h.deps);
    expect(h.failed).toEqual(['unknown adapter "nope"\n  → use a built-in adapter name or a path']);
    expect(outcome.error).toBe(h.failed[0]);
    expect(h.apiCalls).toEqual([]);
  });
});

describe('run() gates', () => {
  it('fail-on never: a regression is reported, neutral, the step passes', async () => {
    const h = harness({
      inputs: {
        'run-result': join(FIX, 'reference-guarded-one-regression.json'),
        baseline: `file:${join(FIX, 'reference-guarded.json')}`,
        'fail-on': 'never',
      },
      ...ON_PR,
    });
    const outcome = await run(h.deps);
    expect(h.failed).toEqual([]);
    expect(outcome.verdict).toMatchObject({ verdict: 'neutral', conclusion: 'neutral' });
    expect(h.outputs).toMatchObject({ verdict: 'neutral', regressions: '1' });
    // The fixture is not signed by this engine: its containment is unverified, named first.
    expect(h.log).toContainEqual(
      expect.stringMatching(
        /^info harness-risk: not gating: .*safety regression in runtime: 1 case went from safe to unsafe/,
      ),
    );
  });

  it('release gate: absolute thresholds, no baseline', async () => {
    const h = harness({
      inputs: {
        'run-result': join(FIX, 'reference-open.json'),
        baseline: 'none',
        'phase-thresholds': 'runtime: {max-asr: 0}',
        'fail-on': 'threshold',
      },
      event: PR_OPENED,
      eventName: 'release',
      ref: 'refs/tags/v1.0.0',
    });
    await run(h.deps);
    expect(h.failed).toEqual(['harness-risk: threshold: phase runtime: ASR 100.0% > max 0.0%']);
    expect(h.outputs.regressions).toBe('0');
  });
});

// Results are the engine's alone (issue 12): the action trusts neither a result file that changed after
// the engine wrote it, nor the summary stored in a run result it is given.
describe('run() and the integrity of results', () => {
  it('a result file rewritten after the engine’s last write fails the step, naming the file', async () => {
    const h = harness({
      inputs: { adapter: 'reference', config: 'open', baseline: 'none' },
      ...ON_PR,
      engineResult: fixture('reference-open.json'),
    });
    const engine = h.deps.engine!;
    h.deps.engine = async (o) => {
      const result = await engine(o);
      // What a daemon a trial left behind did: ASR 0, every attack "resisted".
      const forged = structuredClone(result);
      for (const t of forged.trials) t.labels.a = false;
      forged.summary.overall.asr = 0;
      writeFileSync(o.out, resultBytes(forged));
      return result;
    };
    const outcome = await run(h.deps);
    const out = h.engineCalls[0]!.out;
    expect(h.failed).toHaveLength(1);
    expect(h.failed[0]).toContain(`${out}: sha256`);
    expect(h.failed[0]).toContain('changed after harness-risk wrote it');
    expect(outcome.error).toBeDefined();
    // Nothing was reported from it.
    expect(h.apiCalls).toEqual([]);
    expect(h.summaries).toEqual([]);
  });

  it('report-only: a forged summary (ASR 0 while the trials say a: true) reports the real numbers', async () => {
    const real = fixture('reference-open.json');
    const forged = structuredClone(real);
    for (const s of [forged.summary.overall, ...Object.values(forged.summary.phases)]) {
      s!.asr = 0;
      s!.css = 1;
    }
    const dir = mkdtempSync(join(tmpdir(), 'hr-forged-'));
    const file = join(dir, 'forged.json');
    writeFileSync(file, JSON.stringify(forged));
    const h = harness({
      inputs: { 'run-result': file, baseline: 'none', 'max-asr': '0.5', 'fail-on': 'threshold' },
      ...ON_PR,
    });
    await run(h.deps);
    expect(real.summary.overall.asr).toBeGreaterThan(0.9);
    expect(h.outputs.asr).toBe(String(real.summary.overall.asr));
    expect(h.outputs.css).toBe(String(real.summary.overall.css));
    const realAsr = `${(real.summary.overall.asr * 100).toFixed(1)}%`;
    expect(h.failed).toEqual([`harness-risk: threshold: overall: ASR ${realAsr} > max 50.0%`]);
  });
});

describe('run() checks its output paths before the first trial', () => {
  it.each([
    ['sarif', (d: string) => d],
    ['junit', (d: string) => d],
    [
      'result-path',
      (d: string) => {
        writeFileSync(join(d, 'file'), 'x');
        return join(d, 'file', 'r.json');
      },
    ],
  ])(
    '%s pointing at a folder or under a file fails the step naming the input; no trial runs',
    async (input, make) => {
      const h = harness({
        inputs: { adapter: 'reference', config: 'guarded' },
        ...ON_PUSH,
      });
      const target = make(mkdtempSync(join(tmpdir(), 'hr-out-')));
      (h.deps.core as CoreApi).getInput = (
        (orig) => (n: string) =>
          n === input ? target : orig(n)
      )((h.deps.core as CoreApi).getInput);
      await run(h.deps);
      expect(h.engineCalls).toEqual([]);
      expect(h.failed.join('\n')).toContain(`${input}: "${target}"`);
      expect(h.failed.join('\n')).not.toMatch(/EISDIR|ENOTDIR|\n\s+at /);
    },
  );
});
