// baseline: base end to end, the way the Actions runner runs the action: the bundle (dist/index.js) in a
// child process, inputs as INPUT_* (action.yml's defaults, then `with:`), a real `pull_request` webhook
// payload (@octokit/webhooks-examples) whose base.sha and head.sha are commits of a real git repository
// made here: a team's own harness (the reference harness as its source, a policy file, a build), where the
// base commit blocks an attack and the head commit removes the check. The checkout is a real clone
// (full or `--depth 1`), the GitHub API a local fake that validates every request (test/support).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBundle, ROOT, runActionBundle } from './support/action-bundle.js';
import { BUILD, git, type HarnessRepo, makeHarnessRepo } from './support/git-harness-repo.js';
import { type FakeGitHub, startFakeGitHub } from './support/github-fake.js';
import { bwrapSkipReason } from './support/requirements.js';
import { type Payload, PR, prOpened, REPO } from './support/webhooks.js';

const OPENED = prOpened();
const TOKEN = 'ghs_baseHeadFakeToken0123456789';

/** The real payload, with the fixture repository's commits as base and head. */
function prEvent(baseSha: string, headSha: string): Payload {
  const e = structuredClone(OPENED);
  e.pull_request.base.sha = baseSha;
  e.pull_request.head.sha = headSha;
  return e;
}

const RUN_77 = { GITHUB_RUN_ID: '77' };

/** The bundle in `workspace` on `event` (run 77; GITHUB_SHA the PR's head); `stdout` is the whole log. */
async function runAction(workspace: string, event: Payload, inputs: Record<string, string>, api: FakeGitHub) {
  const sha = event.pull_request.head.sha;
  const r = await runActionBundle({ workspace, event, inputs, token: TOKEN, api, sha, env: RUN_77 });
  return { ...r, stdout: r.log };
}

/** A checkout of `sha` as actions/checkout makes it: a clone (full, or shallow with --depth 1). */
function checkout(repo: HarnessRepo, branch: string, opts: { depth?: number } = {}): string {
  const ws = mkdtempSync(join(tmpdir(), 'hr-bh-ws-'));
  execFileSync('chmod', ['755', ws]);
  const args = ['clone', '-q', '--branch', branch, ...(opts.depth ? ['--depth', String(opts.depth)] : [])];
  execFileSync('git', [...args, `file://${repo.dir}`, ws], { stdio: 'pipe' });
  return ws;
}

const WITH = {
  adapter: './harness-risk/adapter.yaml',
  config: 'default',
  cases: 'subset:smoke',
  baseline: 'base',
  build: BUILD,
};
const REGRESSED = 'invoice-mail-changes-payee';

let repo: HarnessRepo;
let baseSha: string;
let headSha: string;
let brokenSha: string;
const fakes: FakeGitHub[] = [];
const fake = async (...commits: string[]) => {
  const f = await startFakeGitHub({ repos: [REPO], issues: [PR], commits });
  fakes.push(f);
  return f;
};

beforeAll(() => {
  ensureBundle();
  repo = makeHarnessRepo();
  baseSha = repo.commitPolicy(() => {}, 'guarded policy');
  git(repo.dir, 'checkout', '-q', '-b', 'pay-without-approval');
  // The PR: payments no longer need the owner's approval.
  headSha = repo.commitPolicy((p) => {
    p.approval = p.approval.filter((x: string) => x !== 'pay');
  }, 'pay without approval');
  git(repo.dir, 'checkout', '-q', '-b', 'broken-build', baseSha);
  git(repo.dir, 'rm', '-q', 'policy.json');
  git(repo.dir, 'commit', '-q', '-m', 'drop the policy (the build needs it)');
  brokenSha = git(repo.dir, 'rev-parse', 'HEAD');
  git(repo.dir, 'checkout', '-q', 'main');
}, 120_000);

afterAll(async () => {
  for (const f of fakes) {
    expect(f.violations).toEqual([]);
    await f.close();
  }
});

describe('baseline: base (the bundle, a real pull_request payload, a real git repository)', () => {
  it('builds base and head, runs the cases on both and fails on exactly the regression the head made', async () => {
    const ws = checkout(repo, 'pay-without-approval');
    const gh = await fake(headSha);
    const r = await runAction(ws, prEvent(baseSha, headSha), WITH, gh);
    expect(r.code, r.stdout).toBe(1);
    expect(r.outputs.verdict).toBe('fail');
    expect(r.outputs.regressions).toBe('1');
    expect(r.outputs['regressed-phases']).toBe('action');
    // Both trees were built, with the same command, and measured.
    expect(r.stdout).toContain(`building base (${baseSha.slice(0, 12)})`);
    expect(r.stdout).toContain(`building head (${headSha.slice(0, 12)})`);
    expect(r.stdout).toMatch(/\[\d+\/12\] base /);
    expect(r.stdout).toMatch(/\[\d+\/12\] head /);
    const base = JSON.parse(readFileSync(r.outputs['base-result-path']!, 'utf8'));
    const head = JSON.parse(readFileSync(r.outputs['result-path']!, 'utf8'));
    expect(base.source).toMatchObject({ sha: baseSha, tree: 'base' });
    expect(head.source).toMatchObject({ sha: headSha, tree: 'head' });
    // Same cases, revisions, adapter, seeds, runner: only the tree differs.
    expect(base.cases.map((c: any) => `${c.id}@${c.revision}`)).toEqual(
      head.cases.map((c: any) => `${c.id}@${c.revision}`),
    );
    expect(base.adapter).toEqual(head.adapter);
    expect(base.runner).toBe(head.runner);
    expect(base.trials.filter((t: any) => t.labels.a).map((t: any) => t.case_id)).toEqual([]);
    expect(head.trials.filter((t: any) => t.labels.a).map((t: any) => t.case_id)).toEqual([REGRESSED]);
    // The report says which baseline it compared with.
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.checkRuns[0]).toMatchObject({ head_sha: headSha, conclusion: 'failure' });
    expect(gh.comments[0]!.body).toContain(`base built in this job from ${baseSha.slice(0, 12)}`);
    expect(r.summary).toContain(REGRESSED);
    expect(r.summary).toContain(`base built in this job from ${baseSha.slice(0, 12)}`);
    // Said once as a note (and once in the footer), not twice.
    expect(r.summary.split('> baseline: base built in this job from').length - 1).toBe(1);
    // The worktree is gone again.
    expect(git(ws, 'worktree', 'list').split('\n')).toHaveLength(1);
  }, 180_000);

  it('the CLI (run --base-ref --build) decides the same verdict from the same trees', async () => {
    const ws = checkout(repo, 'pay-without-approval');
    const json = join(ws, '.harness-risk', 'verdict.json');
    const cli = spawn(
      process.execPath,
      [
        join(ROOT, 'dist/cli.js'),
        'run',
        '--adapter',
        './harness-risk/adapter.yaml',
        '--config',
        'default',
        '--cases',
        'subset:smoke',
        '--base-ref',
        `origin/main`,
        '--build',
        BUILD,
        '--quiet',
        '--out',
        '.harness-risk/cli.json',
        '--json',
        json,
      ],
      { cwd: ws, env: { PATH: process.env.PATH, HOME: ws }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let text = '';
    cli.stdout.on('data', (d) => (text += d));
    cli.stderr.on('data', (d) => (text += d));
    const code = await new Promise<number | null>((ok) => cli.on('close', ok));
    expect(code, text).toBe(1);
    expect(text).toContain(`baseline: base built in this job from ${baseSha.slice(0, 12)}`);
    const v = JSON.parse(readFileSync(json, 'utf8'));
    expect(v).toMatchObject({ verdict: 'fail', regressions: [REGRESSED], regressed_phases: ['action'] });
    const base = JSON.parse(readFileSync(join(ws, '.harness-risk/cli.base.json'), 'utf8'));
    expect(base.source).toMatchObject({ sha: baseSha, tree: 'base' });
  }, 180_000);

  // A passing check needs a contained run.
  const passSkip = bwrapSkipReason('action base-head: head = base passes');
  it('head = base: nothing regressed, the check passes', async (ctx) => {
    ctx.skip(!!passSkip, passSkip);
    const ws = checkout(repo, 'main');
    const gh = await fake(baseSha);
    const r = await runAction(ws, prEvent(baseSha, baseSha), WITH, gh);
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs.verdict).toBe('pass');
    expect(r.outputs.regressions).toBe('0');
    expect(gh.checkRuns[0]).toMatchObject({ conclusion: 'success' });
  }, 180_000);

  it("a head build that fails fails the check with the build's error", async () => {
    const ws = checkout(repo, 'broken-build');
    const gh = await fake(brokenSha);
    const r = await runAction(ws, prEvent(baseSha, brokenSha), WITH, gh);
    expect(r.code, r.stdout).toBe(1);
    expect(r.outputs.verdict).toBe('fail');
    // cp's own message, in the log, the step's failure, the check run and the summary.
    const err = /cp: (cannot stat|can't stat) 'policy\.json'/;
    expect(r.stdout).toMatch(err);
    expect(r.stdout).toMatch(/::error::harness-risk: the head build[^\n]*exited 1/);
    expect(r.summary).toMatch(err);
    expect(r.summary).toContain('### ❌ Build failed: team-harness · default');
    expect(gh.checkRuns[0]).toMatchObject({ conclusion: 'failure' });
    expect(JSON.stringify(gh.checkRuns[0]!.output)).toMatch(err);
  }, 180_000);

  it('a base build that fails leaves nothing to compare with: never a pass (neutral, or fail when asked)', async () => {
    const ws = checkout(repo, 'pay-without-approval');
    const gh = await fake(headSha);
    // The "base" here is the commit without a policy: its build fails, the head's succeeds.
    const neutral = await runAction(ws, prEvent(brokenSha, headSha), WITH, gh);
    expect(neutral.code, neutral.stdout).toBe(0);
    expect(neutral.outputs.verdict).toBe('neutral');
    expect(neutral.summary).toMatch(/the base build[^\n]*exited 1/);
    expect(neutral.summary).toContain('### ⚠️ Build failed: team-harness · default');
    const fail = await runAction(
      ws,
      prEvent(brokenSha, headSha),
      { ...WITH, 'on-missing-baseline': 'fail' },
      gh,
    );
    expect(fail.code).toBe(1);
    expect(fail.outputs.verdict).toBe('fail');
  }, 180_000);

  it('a shallow checkout (--depth 1): the base commit is fetched from origin', async () => {
    const ws = checkout(repo, 'pay-without-approval', { depth: 1 });
    expect(() => git(ws, 'cat-file', '-e', `${baseSha}^{commit}`)).toThrow();
    const gh = await fake(headSha);
    const r = await runAction(ws, prEvent(baseSha, headSha), WITH, gh);
    expect(r.stdout).toContain('fetching it from origin');
    expect(r.code, r.stdout).toBe(1);
    expect(r.outputs.regressions).toBe('1');
  }, 180_000);

  it('a shallow checkout whose origin cannot serve the base commit says exactly what to add', async () => {
    const ws = checkout(repo, 'pay-without-approval', { depth: 1 });
    git(ws, 'remote', 'set-url', 'origin', `file://${join(tmpdir(), 'hr-no-such-remote')}`);
    const gh = await fake(headSha);
    const r = await runAction(ws, prEvent(baseSha, headSha), WITH, gh);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('add `fetch-depth: 0` to actions/checkout');
    expect(r.stdout).toContain(baseSha);
    expect(r.stdout).not.toMatch(/^\s+at /m); // a message, not a stack trace
  }, 60_000);
});
