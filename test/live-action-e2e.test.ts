// model: live through the bundled action (`node dist/index.js`, inputs as INPUT_* variables, real
// pull_request payloads, the GitHub API fake), against the fake provider. A planted key is searched for
// in everything the action produced. Fork PRs get no secrets: the action warns and runs scripted.
// Then model: replay of the recorded result, through the action too.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAdapter } from '../src/adapters/load.js';
import { loadCases } from '../src/cases/load.js';
import { RunResult } from '../src/spec/run-result.js';
import { ensureBundle, ROOT, runActionBundle } from './support/action-bundle.js';
import { type FakeProvider, startFakeProvider } from './support/fake-provider.js';
import { type FakeGitHub, startFakeGitHub } from './support/github-fake.js';
import { fromFork, HEAD_SHA, MERGE_SHA, type Payload, PR, prOpened, REPO } from './support/webhooks.js';

const OPENED = prOpened();
const FORK_PR = fromFork(OPENED);
const TOKEN = 'ghs_e2eFakeToken0123456789';
const KEY = 'sk-proj-PLANTEDliveKey7Hq2Zx9Wm4Rt8Yp3Lk6Nv1Bc5';

let workspace: string;
let gh: FakeGitHub;
let provider: FakeProvider;

beforeAll(async () => {
  ensureBundle();
  workspace = mkdtempSync(join(tmpdir(), 'hr-live-e2e-ws-'));
  cpSync(join(ROOT, 'test/fixtures/live-cases'), join(workspace, 'cases'), { recursive: true });
  mkdirSync(join(workspace, '.github/workflows'), { recursive: true });
  writeFileSync(join(workspace, '.github/workflows/harness-risk.yml'), 'on: pull_request\n');
  gh = await startFakeGitHub({ repos: [REPO], issues: [PR], commits: [HEAD_SHA, MERGE_SHA] });
  provider = await startFakeProvider({
    key: KEY,
    seed: 11,
    pFollow: 0.5,
    pRefuse: 0.25,
    cases: loadCases([join(ROOT, 'test/fixtures/live-cases')]),
    adapter: loadAdapter('reference'),
    failures: { 3: { status: 429, retryAfter: '1' } },
  });
}, 180_000);
afterAll(async () => {
  await gh?.close();
  await provider?.close();
});

const LIVE_ENV = { GITHUB_REPOSITORY_OWNER: REPO.split('/')[0], GITHUB_RUN_ATTEMPT: '1' };
const runAction = (inputs: Record<string, string>, event: Payload = OPENED) =>
  runActionBundle({ workspace, event, inputs, token: TOKEN, api: gh, env: LIVE_ENV });

const LIVE = {
  adapter: 'reference',
  config: 'open',
  cases: 'cases',
  baseline: 'none',
  seeds: '3',
  model: 'live',
  provider: 'openai-compatible',
  'model-name': 'fake-live-1',
  'budget-requests': '200',
};

describe('the bundled action with model: live', () => {
  const out = () => join(workspace, '.harness-risk/live.json');
  it('runs against the provider, reports a live run with the model, intervals and usage; the key appears nowhere', async () => {
    gh.reset();
    const r = await runAction({ ...LIVE, 'base-url': provider.url, 'model-key': KEY, 'result-path': out() });
    expect([0, 1], r.stdout + r.stderr).toContain(r.code);
    const text = readFileSync(out(), 'utf8');
    const result = RunResult.parse(JSON.parse(text));
    expect(result.model).toMatchObject({ mode: 'live', name: 'fake-live-1', provider: 'openai-compatible' });
    expect(result.trials).toHaveLength(6);
    expect(result.trials.every((t) => t.valid)).toBe(true);
    expect(provider.requests.some((q) => q.status === 429)).toBe(true);
    expect(result.usage!.requests).toBe(provider.requests.length);
    const comment = gh.comments[0]!.body;
    expect(comment).toContain('**Live run** with `fake-live-1` (openai-compatible), 3 seeds per case');
    expect(comment).toMatch(/ASR with 95% Wilson intervals: configuration \d+(\.\d)?% \[/);
    expect(r.summary).toContain('**Live run**');
    // The planted key: never in the log, the summary, the outputs, the comment, the check run, the result.
    const check = JSON.stringify(gh.checkRuns);
    // `::add-mask::` is how core.setSecret tells the runner to mask the value; the runner eats that line.
    expect(r.stdout).toContain(`::add-mask::${KEY}`);
    const log = r.stdout.replace(`::add-mask::${KEY}\n`, '');
    for (const [where, s] of Object.entries({
      stdout: log,
      stderr: r.stderr,
      summary: r.summary,
      outputs: r.outputText,
      comment,
      check,
      text,
    }))
      expect(s.includes(KEY), where).toBe(false);
  }, 300_000);

  it('replays the recorded run through the action: same labels, no provider request', async () => {
    gh.reset();
    const before = provider.requests.length;
    const replayOut = join(workspace, '.harness-risk/replay.json');
    const r = await runAction({ ...LIVE, model: 'replay', 'replay-from': out(), 'result-path': replayOut });
    expect([0, 1], r.stdout + r.stderr).toContain(r.code);
    expect(provider.requests.length).toBe(before);
    const labels = (f: string) =>
      JSON.stringify(
        RunResult.parse(JSON.parse(readFileSync(f, 'utf8'))).trials.map((t) => [t.id, t.valid, t.labels]),
      );
    expect(labels(replayOut)).toBe(labels(out()));
    expect(gh.comments[0]!.body).toContain('**Replay** of a recorded live run with `fake-live-1`');
  }, 300_000);

  it('a fork pull request without the secret warns and runs the scripted model', async () => {
    gh.reset();
    const before = provider.requests.length;
    const forkOut = join(workspace, '.harness-risk/fork.json');
    const r = await runAction(
      { ...LIVE, seeds: '1', 'base-url': provider.url, 'model-key': '', 'result-path': forkOut },
      FORK_PR,
    );
    expect([0, 1], r.stdout + r.stderr).toContain(r.code);
    expect(r.stdout).toMatch(/::warning::model: live without a key: this pull request comes from a fork/);
    expect(r.summary).toMatch(/uses the scripted worst-case model instead/);
    expect(provider.requests.length).toBe(before);
    expect(RunResult.parse(JSON.parse(readFileSync(forkOut, 'utf8'))).model.mode).toBe('scripted');
  }, 300_000);

  it('live-fallback: fail fails the step naming model-key', async () => {
    const r = await runAction(
      { ...LIVE, 'base-url': provider.url, 'model-key': '', 'live-fallback': 'fail' },
      FORK_PR,
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /::error::Input "model-key": is empty with model: live: this pull request comes from a fork/,
    );
  }, 60_000);
});
