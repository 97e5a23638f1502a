// model: live through the bundled action (`node dist/index.js`, inputs as INPUT_* variables, real
// pull_request payloads, the GitHub API fake), against the fake provider. A planted key is searched for
// in everything the action produced. Fork PRs get no secrets: the action warns and runs scripted.
// Then model: replay of the recorded result, through the action too.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadAdapter } from '../src/adapters/load.js';
import { loadCases } from '../src/cases/load.js';
import { RunResult } from '../src/result/schema.js';
import { type FakeProvider, startFakeProvider } from './support/fake-provider.js';
import { type FakeGitHub, startFakeGitHub } from './support/github-fake.js';

const ROOT = resolve(import.meta.dirname, '..');
const BUNDLE = join(ROOT, 'dist/index.js');
const require = createRequire(import.meta.url);
type Payload = Record<string, any>;
const webhooks: {
  name: string;
  examples: Payload[];
}[] = require('@octokit/webhooks-examples/api.github.com/index.json');
const OPENED = webhooks
  .find((w) => w.name === 'pull_request')!
  .examples.find((e) => e.action === 'opened' && !e.installation)!;
const FORKEE = webhooks.find((w) => w.name === 'fork')!.examples[0]!.forkee;
const FORK_PR: Payload = structuredClone(OPENED);
FORK_PR.pull_request.head.repo = FORKEE;
FORK_PR.pull_request.head.user = FORKEE.owner;
const REPO = OPENED.repository.full_name as string;
const PR = OPENED.pull_request.number as number;
const HEAD_SHA = OPENED.pull_request.head.sha as string;
const MERGE_SHA = 'c0ffee0000000000000000000000000000000002';
const TOKEN = 'ghs_e2eFakeToken0123456789';
const KEY = 'sk-proj-PLANTEDliveKey7Hq2Zx9Wm4Rt8Yp3Lk6Nv1Bc5';
const actionYml = parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8'));

let workspace: string;
let gh: FakeGitHub;
let provider: FakeProvider;

beforeAll(async () => {
  if (process.env.HARNESS_RISK_E2E_USE_DIST !== '1' || !existsSync(BUNDLE))
    execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'pipe' });
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

async function runAction(withInputs: Record<string, string>, event: Payload = OPENED) {
  const dir = mkdtempSync(join(tmpdir(), 'hr-live-e2e-run-'));
  const eventPath = join(dir, 'event.json');
  writeFileSync(eventPath, JSON.stringify(event));
  const outputFile = join(dir, 'output');
  const summaryFile = join(dir, 'summary.md');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries<any>(actionYml.inputs))
    inputs[name] = String(spec.default ?? '').replace(/\$\{\{\s*github\.token\s*\}\}/, TOKEN);
  Object.assign(inputs, withInputs);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    RUNNER_TEMP: join(dir, 'runner-temp'),
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_REPOSITORY: REPO,
    GITHUB_REPOSITORY_OWNER: REPO.split('/')[0],
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: MERGE_SHA,
    GITHUB_REF: `refs/pull/${PR}/merge`,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: '4242',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    ...Object.fromEntries(
      Object.entries(inputs).map(([k, v]) => [`INPUT_${k.replace(/ /g, '_').toUpperCase()}`, v]),
    ),
  };
  const child = spawn(process.execPath, [BUNDLE], { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((ok) => child.on('close', ok));
  return {
    code,
    stdout,
    stderr,
    outputs: readFileSync(outputFile, 'utf8'),
    summary: readFileSync(summaryFile, 'utf8'),
  };
}

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
      outputs: r.outputs,
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
