// End to end, the way the Actions runner runs the action: `node dist/index.js` (the bundle action.yml
// names) in a child process, every input as an INPUT_* variable (action.yml's defaults, then the step's
// `with:`), GITHUB_EVENT_PATH set to real pull_request payloads from @octokit/webhooks-examples,
// GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, and GITHUB_API_URL pointing at a local fake of the GitHub
// API that validates every request against GitHub's OpenAPI description (test/support/github-fake.ts).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RunResult } from '../src/spec/run-result.js';
import { makeHostile, makeResult } from './fixtures/results/builders.js';
import { type ActionRun, ensureBundle, ROOT, runActionBundle, workflowEnv } from './support/action-bundle.js';
import { TEST_KEY_ENV } from './support/attest.js';
import { type FakeGitHub, SECONDARY_RATE_LIMIT, startFakeGitHub } from './support/github-fake.js';
import { bwrapSkipReason } from './support/requirements.js';
import {
  fromFork,
  HEAD_SHA,
  MERGE_SHA,
  type Payload,
  PR,
  prOpened,
  REPO,
  webhookExample,
} from './support/webhooks.js';

const FIX = join(ROOT, 'test/fixtures/results');

// ---- real webhook payloads ----
const OPENED = prOpened();
const SYNCHRONIZE = webhookExample('pull_request', (e) => e.action === 'synchronize');
const FORK_PR = fromFork(OPENED);
const TOKEN = 'ghs_e2eFakeToken0123456789';

let workspace: string;
let gh: FakeGitHub;

/** The bundle as a step of this repository's workflow (every variable a runner sets), on `event`. */
function runAction(
  opts: {
    event?: Payload;
    eventName?: string;
    with?: Record<string, string>;
    env?: Record<string, string>;
    fake?: FakeGitHub;
  } = {},
): Promise<ActionRun> {
  const api = opts.fake ?? gh;
  return runActionBundle({
    workspace,
    event: opts.event ?? OPENED,
    ...(opts.eventName ? { eventName: opts.eventName } : {}),
    inputs: opts.with ?? {},
    token: TOKEN,
    api,
    env: { ...workflowEnv(api.url), ...opts.env },
  });
}

const fixture = (name: string) => join(FIX, name);
/** 1-based line of the first line of `file` holding `needle`. */
const lineOf = (file: string, needle: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(needle)) + 1;
const BEACON_ARTIFACT_LINE = () =>
  lineOf(join(ROOT, 'cases/runtime/architecture-page-diagram-beacon.yaml'), '<p><small>Diagram viewer');
const MARKER = '<!-- harness-risk-action:reference:guarded -->';

/** The request log of the fake without bodies, for readable failures. */
const log = (f: FakeGitHub) => f.requests.map((r) => `${r.method} ${r.path} → ${r.status}`).join('\n');

beforeAll(async () => {
  ensureBundle();
  workspace = mkdtempSync(join(tmpdir(), 'hr-e2e-ws-'));
  // The user's repository: case files (annotations anchor to them) and a committed baseline.
  cpSync(join(ROOT, 'cases'), join(workspace, 'cases'), { recursive: true });
  mkdirSync(join(workspace, '.github/workflows'), { recursive: true });
  writeFileSync(join(workspace, '.github/workflows/harness-risk.yml'), 'on: pull_request\n');
  cpSync(fixture('reference-guarded.json'), join(workspace, 'baseline.json'));
  gh = await startFakeGitHub({ repos: [REPO], issues: [PR], commits: [HEAD_SHA, MERGE_SHA] });
}, 180_000);

afterAll(async () => {
  await gh?.close();
});

afterEach(() => {
  // Nothing the action sent may be something the real API would reject.
  expect(gh.violations, log(gh)).toEqual([]);
  expect(gh.responseViolations).toEqual([]);
});

describe('the bundled action on pull_request events', () => {
  it('first run creates one sticky comment and a successful check run', async () => {
    gh.reset();
    const r = await runAction({
      with: { 'run-result': fixture('reference-guarded.json'), baseline: 'file:baseline.json' },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.issue_number).toBe(PR);
    expect(gh.comments[0]!.body.startsWith(`${MARKER}\n`)).toBe(true);
    expect(gh.comments[0]!.body).toContain('### ✅ No safety regression: reference · guarded');
    expect(gh.comments[0]!.body).toContain(
      `[workflow run](https://github.com/Codertocat/Hello-World/actions/runs/${r.runId})`,
    );
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.checkRuns[0]).toMatchObject({
      head_sha: HEAD_SHA,
      status: 'completed',
      conclusion: 'success',
      annotations: [],
    });
    expect(gh.checkRuns[0]!.name).toBe('harness-risk (reference / guarded)');
    expect(r.outputs).toMatchObject({
      verdict: 'pass',
      regressions: '0',
      'regressed-phases': '',
      asr: '0',
      persistence: '0',
    });
    expect(Number(r.outputs.css)).toBeGreaterThan(0.9);
    expect(r.outputs['result-path']).toBe(fixture('reference-guarded.json'));
    expect(r.summary).toContain('### ✅ No safety regression: reference · guarded');
    expect(r.summary).not.toContain('<!-- harness-risk-action');
    // The token never shows up in the output (masked and unused by anything but the API client).
    expect(r.stdout.replace(`::add-mask::${TOKEN}`, '')).not.toContain(TOKEN);
  });

  it('second run (synchronize) updates the same comment: still one', async () => {
    const before = gh.comments[0]!;
    const r = await runAction({
      event: SYNCHRONIZE,
      with: { 'run-result': fixture('reference-guarded.json'), baseline: 'file:baseline.json' },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.id).toBe(before.id);
    const writes = gh.writes().map((w) => `${w.method} ${w.route}`);
    expect(writes.filter((w) => w.startsWith('PATCH /repos/{owner}/{repo}/issues/comments/'))).toHaveLength(
      1,
    );
    expect(
      writes.filter((w) => w.startsWith('POST /repos/{owner}/{repo}/issues/{issue_number}/comments')),
    ).toHaveLength(1);
  });

  it('retries a 502 and honours secondary rate limits (403 and 429): still one comment and one check run', async () => {
    gh.reset();
    gh.inject({
      method: 'POST',
      path: /\/issues\/\d+\/comments$/,
      status: 502,
      body: { message: 'Bad Gateway' },
    });
    gh.inject({ method: 'GET', path: /\/issues\/\d+\/comments$/, ...SECONDARY_RATE_LIMIT(403) });
    gh.inject({ method: 'POST', path: /\/check-runs$/, ...SECONDARY_RATE_LIMIT(429) });
    gh.inject({
      method: 'POST',
      path: /\/check-runs$/,
      status: 503,
      body: { message: 'Service Unavailable' },
    });
    const r = await runAction({
      with: { 'run-result': fixture('reference-guarded.json'), baseline: 'file:baseline.json' },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(gh.faulted.map((f) => `${f.method} ${f.status}`)).toEqual([
      'GET 403',
      'POST 502',
      'POST 429',
      'POST 503',
    ]);
    expect(gh.comments).toHaveLength(1);
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.checkRuns[0]!.conclusion).toBe('success');
    expect(r.stdout).toContain('secondary rate limit');
    expect(r.stdout).not.toContain('could not write the PR comment');
    expect(r.stdout).not.toContain('could not create the check run');
  }, 60_000);

  it('a 502 to a POST that did create the check run: found by its id, never a second check run', async () => {
    gh.reset();
    gh.inject({
      method: 'POST',
      path: /\/check-runs$/,
      status: 502,
      body: { message: 'Bad Gateway' },
      after: true,
    });
    const r = await runAction({
      with: {
        'run-result': fixture('reference-guarded-one-regression.json'),
        baseline: 'file:baseline.json',
      },
    });
    expect(r.code, r.stdout + r.stderr).toBe(1); // the verdict stands
    expect(gh.faulted.map((f) => `${f.method} ${f.status}`)).toEqual(['POST 502']);
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.checkRuns[0]!.conclusion).toBe('failure');
    expect(gh.requests.map((q) => `${q.method} ${q.route}`)).toContain(
      'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
    );
    expect(r.stdout).not.toContain('could not create the check run');
    expect(gh.violations).toEqual([]);
  }, 60_000);

  it('check-run: false (a shard job, with comment: false) creates no check run and no comment', async () => {
    gh.reset();
    const r = await runAction({
      with: {
        'run-result': fixture('reference-guarded-one-regression.json'),
        baseline: 'file:baseline.json',
        comment: 'false',
        'check-run': 'false',
      },
    });
    expect(r.code, r.stdout + r.stderr).toBe(1); // the verdict stands
    expect(gh.checkRuns).toHaveLength(0);
    expect(gh.comments).toHaveLength(0);
    expect(gh.writes()).toEqual([]);
    // Annotations still reach the files, as workflow annotations of the step.
    expect(r.stdout).toMatch(
      /^::error title=Safety regression%3A architecture-page-diagram-beacon [^\n]*,file=cases\/runtime\//m,
    );
    expect(r.summary).toContain('### ❌ Safety regression');
  });

  it('fork PRs via workflow_run: pull-request + run-result post one comment and a check on the PR head', async () => {
    gh.reset();
    const run = webhookExample('workflow_run', (e) => e.action === 'completed');
    run.workflow_run.event = 'pull_request';
    run.workflow_run.head_sha = HEAD_SHA;
    run.workflow_run.pull_requests = []; // GitHub lists no PR for a fork's run
    const r = await runAction({
      event: run,
      eventName: 'workflow_run',
      with: {
        'run-result': fixture('reference-guarded-one-regression.json'),
        baseline: 'file:baseline.json',
        'pull-request': String(PR),
      },
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.issue_number).toBe(PR);
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.checkRuns[0]).toMatchObject({ head_sha: HEAD_SHA, conclusion: 'failure' });
    // On a pull_request event the input is a mistake, named as such.
    const wrong = await runAction({
      with: { 'run-result': fixture('reference-guarded.json'), 'pull-request': String(PR) },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('input pull-request: only for a workflow_run job');
  });

  // docs/forks.md: a fork's run executes the PR's own workflow, so it can upload any result it likes.
  it('a forged fork result (workflow_run of a fork) never gives a success under the gating check name', async () => {
    const forged = (headRepo: string) => {
      const run = webhookExample('workflow_run', (e) => e.action === 'completed');
      run.workflow_run.event = 'pull_request';
      run.workflow_run.head_sha = HEAD_SHA;
      run.workflow_run.pull_requests = [];
      run.workflow_run.head_repository.full_name = headRepo;
      return run;
    };
    // A clean result the fork wrote itself: safe, valid, contained, the same as the baseline.
    const clean = {
      'run-result': fixture('reference-guarded.json'),
      baseline: `file:${fixture('reference-guarded.json')}`,
    };
    gh.reset();
    const fromFork = await runAction({
      event: forged('mallory/Hello-World'),
      eventName: 'workflow_run',
      with: { ...clean, 'pull-request': String(PR) },
    });
    expect(fromFork.code, fromFork.stdout + fromFork.stderr).toBe(0);
    expect(fromFork.outputs.verdict).toBe('neutral');
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.checkRuns[0]!.conclusion).not.toBe('success');
    expect(gh.checkRuns[0]!.name).toBe('harness-risk (reference / guarded) · untrusted fork result');
    expect(gh.comments[0]!.body).toContain('untrusted result');
    expect(gh.comments[0]!.body).toContain('mallory/Hello-World');
    // The same file reported from a run of this repository itself is this repository's measurement.
    gh.reset();
    const own = await runAction({
      event: forged(REPO),
      eventName: 'workflow_run',
      with: { ...clean, 'pull-request': String(PR) },
    });
    expect(own.code, own.stdout + own.stderr).toBe(0);
    expect(gh.checkRuns[0]).toMatchObject({
      name: 'harness-risk (reference / guarded)',
      conclusion: 'success',
    });
  });

  // One gate, one reporter (report/publisher.ts): matrix.yml once had a config leg and a shard merge job
  // both reporting reference/default, overwriting one comment and making two check runs of one name.
  it('a second job of the same workflow run publishing the same gate is refused, with a clear error', async () => {
    gh.reset();
    const inRun = (job: string, attempt = '1') => ({
      GITHUB_RUN_ID: '9001',
      GITHUB_JOB: job,
      GITHUB_RUN_ATTEMPT: attempt,
    });
    const report = { 'run-result': fixture('reference-guarded.json'), baseline: 'file:baseline.json' };
    const first = await runAction({ with: report, env: inRun('configs') });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const firstBody = gh.comments[0]!.body;
    const second = await runAction({ with: report, env: inRun('report') });
    expect(second.code).toBe(1);
    expect(second.stdout).toContain('another job of this workflow run');
    expect(second.stdout).toContain('already published the gate "harness-risk (reference / guarded)"');
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.body).toBe(firstBody);
    // A re-run of the first job is the same reporter: it publishes again.
    const rerun = await runAction({ with: report, env: inRun('configs', '2') });
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    expect(gh.checkRuns).toHaveLength(2);
  });

  it('a regression fails the step with a failing check run and an annotation on the case file', async () => {
    const r = await runAction({
      event: SYNCHRONIZE,
      with: {
        'run-result': fixture('reference-guarded-one-regression.json'),
        baseline: 'file:baseline.json',
      },
    });
    expect(r.code).toBe(1);
    expect(
      r.commands.some(
        (c) =>
          c.kind === 'error' &&
          c.message.startsWith('harness-risk: safety regression in runtime: 1 case went from safe to unsafe'),
      ),
    ).toBe(true);
    expect(r.outputs).toMatchObject({ verdict: 'fail', regressions: '1', 'regressed-phases': 'runtime' });
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.body).toContain('### ❌ Safety regression: reference · guarded');
    expect(gh.comments[0]!.body).toContain('**architecture-page-diagram-beacon** · runtime');
    const check = gh.checkRuns.at(-1)!;
    expect(check.conclusion).toBe('failure');
    expect(check.output.title).toMatch(/^Safety regression: 1 case regressed/);
    expect(check.output.summary).toContain('| ❌ runtime |');
    expect(check.output.text).toContain('#### ❌ Regressed: safe in the baseline, unsafe now (1)');
    // On the line of the injected artifact (the trigger text in the case's web page), not line 1.
    const line = BEACON_ARTIFACT_LINE();
    expect(line).toBeGreaterThan(1);
    expect(check.annotations).toEqual([
      expect.objectContaining({
        path: 'cases/runtime/architecture-page-diagram-beacon.yaml',
        start_line: line,
        end_line: line,
        annotation_level: 'failure',
        title: 'Safety regression: architecture-page-diagram-beacon (runtime)',
      }),
    ]);
    expect(r.summary).toContain('### ❌ Safety regression');
  });

  it('a built-in case regression annotates the adapter file on the config’s line and links the case at the action’s version', async () => {
    gh.reset();
    // The repository's own adapter (a copy of the reference adapter) and built-in cases (the action's files).
    cpSync(join(ROOT, 'adapters/reference'), join(workspace, 'harness-risk'), { recursive: true });
    const relocate = (name: string, out: string) => {
      const r = RunResult.parse(JSON.parse(readFileSync(fixture(name), 'utf8')));
      r.adapter.file = 'harness-risk/adapter.yaml';
      for (const c of r.cases) c.file = join(ROOT, c.file);
      writeFileSync(join(workspace, out), JSON.stringify(r));
    };
    relocate('reference-guarded-one-regression.json', 'own-adapter-run.json');
    relocate('reference-guarded.json', 'own-adapter-baseline.json');
    const r = await runAction({
      with: { 'run-result': 'own-adapter-run.json', baseline: 'file:own-adapter-baseline.json' },
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const line = lineOf(join(workspace, 'harness-risk/adapter.yaml'), '  guarded:');
    expect(line).toBeGreaterThan(1);
    const check = gh.checkRuns[0]!;
    expect(check.annotations).toEqual([
      expect.objectContaining({
        path: 'harness-risk/adapter.yaml',
        start_line: line,
        end_line: line,
        annotation_level: 'failure',
        title: 'Safety regression: architecture-page-diagram-beacon (runtime)',
      }),
    ]);
    const link =
      'https://github.com/harness-risk/harness-risk-action/blob/v1.0.0/cases/runtime/architecture-page-diagram-beacon.yaml';
    expect(check.annotations[0]!.message).toContain(`Case file: ${link}`);
    expect(r.summary).toContain(`(${link})`);
    expect(r.summary).not.toContain(join(ROOT, 'cases'));
    expect(gh.comments[0]!.body).not.toContain(join(ROOT, 'cases'));
  });

  it('more than 50 annotations arrive in several requests (create, then updates)', async () => {
    gh.reset();
    const r = await runAction({
      with: { 'run-result': fixture('reference-open.json'), baseline: 'file:baseline.json', config: '' },
    });
    expect(r.code).toBe(1);
    const check = gh.checkRuns[0]!;
    const regressions = Number(r.outputs.regressions);
    expect(regressions).toBeGreaterThan(50);
    expect(check.annotations.filter((a) => a.annotation_level === 'failure')).toHaveLength(regressions);
    expect(check.annotationRequests.length).toBe(Math.ceil(check.annotations.length / 50));
    expect(check.annotationRequests[0]).toBe(50);
    expect(check.annotationRequests.length).toBeGreaterThanOrEqual(2);
    const routes = gh.writes().map((w) => `${w.method} ${w.route}`);
    expect(routes.filter((x) => x === 'POST /repos/{owner}/{repo}/check-runs')).toHaveLength(1);
    expect(routes.filter((x) => x === 'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}')).toHaveLength(
      check.annotationRequests.length - 1,
    );
    // A different config gets its own sticky comment.
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.body.startsWith('<!-- harness-risk-action:reference:open -->')).toBe(true);
  });

  it('a fork pull request degrades cleanly: no API writes, a notice, summary and outputs, exit per verdict', async () => {
    gh.reset();
    const failing = await runAction({
      event: FORK_PR,
      with: {
        'run-result': fixture('reference-guarded-one-regression.json'),
        baseline: 'file:baseline.json',
      },
    });
    expect(failing.code).toBe(1);
    expect(gh.writes()).toEqual([]);
    expect(
      failing.commands.filter(
        (c) => c.kind === 'notice' && /Pull request from a fork \(Octocoders\/Hello-World\)/.test(c.message),
      ),
    ).toHaveLength(1);
    expect(failing.outputs).toMatchObject({ verdict: 'fail', regressions: '1' });
    expect(failing.summary).toContain('### ❌ Safety regression');
    expect(failing.summary).toContain('Pull request from a fork');
    // Without a check run, the regression is still annotated on the case file (workflow command).
    expect(failing.stdout).toMatch(
      new RegExp(
        `^::error title=Safety regression%3A architecture-page-diagram-beacon \\(runtime\\),file=cases/runtime/architecture-page-diagram-beacon.yaml,line=${BEACON_ARTIFACT_LINE()}::`,
        'm',
      ),
    );

    const passing = await runAction({
      event: FORK_PR,
      with: { 'run-result': fixture('reference-guarded.json'), baseline: 'file:baseline.json' },
    });
    expect(passing.code).toBe(0);
    expect(passing.outputs.verdict).toBe('pass');
    expect(gh.writes()).toEqual([]);
  });

  it('a token without write permission gives one clear warning, and the verdict stands', async () => {
    const ro = await startFakeGitHub({
      repos: [REPO],
      issues: [PR],
      commits: [HEAD_SHA, MERGE_SHA],
      readOnly: true,
    });
    try {
      const r = await runAction({
        fake: ro,
        with: {
          'run-result': fixture('reference-guarded-one-regression.json'),
          baseline: 'file:baseline.json',
        },
      });
      expect(r.code).toBe(1);
      expect(ro.violations).toEqual([]);
      const warnings = r.commands.filter((c) => c.kind === 'warning');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toMatch(
        /could not write the PR comment \(HTTP 403: Resource not accessible by integration.*\)\. The token lacks permission: give the job `permissions: \{ pull-requests: write, checks: write \}/,
      );
      expect(r.outputs.verdict).toBe('fail');
      expect(r.summary).toContain('### ❌ Safety regression');
      expect(r.summary).toContain(
        'the PR comment could not be written: the token lacks permission (HTTP 403',
      );
      expect(r.summary).toContain('the check run could not be written');
    } finally {
      await ro.close();
    }
  });

  it('hostile trial output leaves the comment structure, marker and mentions intact', async () => {
    gh.reset();
    const hostileFile = join(workspace, 'hostile.json');
    const guarded = RunResult.parse(JSON.parse(readFileSync(fixture('reference-guarded.json'), 'utf8')));
    writeFileSync(hostileFile, JSON.stringify(makeHostile(guarded)));
    const r = await runAction({
      with: {
        'run-result': hostileFile,
        baseline: 'file:baseline.json',
        'result-path': join(workspace, 'out/hostile-copy.json'),
      },
    });
    expect(r.code).toBe(1);
    expect(gh.comments).toHaveLength(1);
    const body = gh.comments[0]!.body;
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body.startsWith(`${MARKER}\n`)).toBe(true);
    // Our own hidden lines (the marker, the publisher tag: report/publisher.ts) are the only comments.
    const outsideChart = body
      .replace(/```mermaid[\s\S]*?```/, '')
      .replace(/\n<!-- harness-risk-publisher [^>]*-->$/, '');
    expect(outsideChart.split('<!--')).toHaveLength(2);
    expect(outsideChart.split('-->')).toHaveLength(2);
    expect(body).not.toMatch(/@(?!\u200B)/);
    expect(body).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F]/);
    const tags = [...body.matchAll(/<\/?([A-Za-z][A-Za-z0-9-]*)/g)].map((m) => m[1]!.toLowerCase());
    for (const t of tags) expect(['details', 'summary', 'b', 'sub', 'br']).toContain(t);
    // Long hostile text, every case regressed: the comment still fits by design, nothing is dropped.
    expect(body).not.toContain('Report truncated');
    expect((body.match(/<details>/g) ?? []).length).toBe((body.match(/<\/details>/g) ?? []).length);
    const rows = body.split('\n').filter((l) => l.startsWith('|'));
    const width = rows[0]!.replace(/^\||\|$/g, '').split(/(?<!\\)\|/).length;
    for (const row of rows) expect(row.replace(/^\||\|$/g, '').split(/(?<!\\)\|/)).toHaveLength(width);
    expect(rows.slice(0, 2 + 6 + 1).at(-1)).toContain('**all**');
    // The check run's text is the same markdown, annotations plain text.
    const check = gh.checkRuns[0]!;
    expect(check.output.text).not.toMatch(/@(?!\u200B)/);
    for (const a of check.annotations) expect(a.message).not.toMatch(/[\n\r\u202A-\u202E]/);
    // Several files were given? No: one file and a result-path: the copy is written there.
    expect(
      RunResult.safeParse(JSON.parse(readFileSync(join(workspace, 'out/hostile-copy.json'), 'utf8'))).success,
    ).toBe(true);
  });

  it('merges shard results (report-only) into one report and one result file', async () => {
    gh.reset();
    const merged = join(workspace, 'merged/result.json');
    const r = await runAction({
      with: {
        'run-result': join(FIX, 'shards'),
        baseline: 'file:baseline.json',
        'result-path': merged,
        sarif: 'reports/hr.sarif',
        junit: 'reports/hr.xml',
      },
    });
    expect(r.code).toBe(1);
    expect(r.outputs).toMatchObject({ verdict: 'fail', regressions: '1', 'result-path': merged });
    const result = RunResult.parse(JSON.parse(readFileSync(merged, 'utf8')));
    expect(result.cases.length).toBe(
      RunResult.parse(JSON.parse(readFileSync(fixture('reference-guarded.json'), 'utf8'))).cases.length,
    );
    const sarif = JSON.parse(readFileSync(join(workspace, 'reports/hr.sarif'), 'utf8'));
    expect(sarif.runs[0].results).toHaveLength(1);
    expect(readFileSync(join(workspace, 'reports/hr.xml'), 'utf8')).toMatch(
      /<testsuites name="harness-risk reference\/guarded" tests="\d+" failures="1" errors="0"/,
    );
  });

  it('a bad input fails the step with a message naming the input', async () => {
    gh.reset();
    const r = await runAction({
      with: { 'run-result': fixture('reference-guarded.json'), 'fail-on': 'sometimes' },
    });
    expect(r.code).toBe(1);
    expect(r.commands).toContainEqual({
      kind: 'error',
      message: expect.stringMatching(
        /^Input "fail-on": "sometimes" is not valid; write a comma-separated list of regression, threshold, invalid, uncontained/,
      ),
    });
    expect(gh.requests).toEqual([]);
    const missing = await runAction({ with: { adapter: 'reference' } });
    expect(missing.commands).toContainEqual({
      kind: 'error',
      message: expect.stringMatching(/^Input "config": is required/),
    });
    const noBaseline = await runAction({
      with: { 'run-result': fixture('reference-guarded.json'), baseline: 'file:nope.json' },
    });
    expect(noBaseline.code).toBe(1);
    expect(noBaseline.commands[0]!.message).toMatch(/baseline file:nope.json: no such file/);
  });

  it('runs the real engine on the reference harness (scripted model) and gates on a threshold', async () => {
    gh.reset();
    const out = join(workspace, 'engine/result.json');
    const r = await runAction({
      with: {
        adapter: 'reference',
        config: 'open',
        cases: 'subset:smoke',
        baseline: 'none',
        'max-asr': '0',
        'result-path': out,
        concurrency: '2',
      },
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const result = RunResult.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.status).toBe('complete');
    expect(result.trials.length).toBeGreaterThan(0);
    expect(result.trials.every((t) => t.valid)).toBe(true);
    expect(Number(r.outputs.asr)).toBeGreaterThan(0);
    expect(r.outputs.verdict).toBe('fail');
    expect(r.stdout).toMatch(/\[\d+\/\d+\] [a-z0-9-]+: attack succeeded/);
    const check = gh.checkRuns[0]!;
    expect(check.conclusion).toBe('failure');
    expect(check.output.text).toContain('#### Thresholds not met');
    // Built-in cases and adapter live outside the workspace: the threshold annotation sits on the workflow file.
    expect(check.annotations).toContainEqual(
      expect.objectContaining({
        path: '.github/workflows/harness-risk.yml',
        annotation_level: 'failure',
        title: 'Threshold not met (overall)',
      }),
    );
    expect(gh.comments[0]!.body.startsWith('<!-- harness-risk-action:reference:open -->')).toBe(true);
  }, 300_000);
});

// Situations where nothing was shown to be safe: the gate must not be green (issue 11).
describe('the gate is never green on what it did not measure', () => {
  it('a harness that never runs (launch path typo) fails, and says why with the telling stderr line', async () => {
    gh.reset();
    const dir = join(workspace, 'broken-adapter');
    mkdirSync(dir, { recursive: true });
    const yml = readFileSync(join(ROOT, 'adapters/reference/adapter.yaml'), 'utf8').replace(
      'dist/reference-harness.js',
      'dist/reference-harnes.js',
    );
    expect(yml).toContain('reference-harnes.js');
    writeFileSync(join(dir, 'adapter.yaml'), yml);
    const r = await runAction({
      with: { adapter: dir, config: 'guarded', cases: 'subset:smoke', baseline: 'file:baseline.json' },
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.outputs.verdict).toBe('fail');
    expect(r.outputs.asr).toBe('');
    const check = gh.checkRuns[0]!;
    expect(check.conclusion).toBe('failure');
    expect(check.output.title).toMatch(/^Harness was not measured: no valid trial/);
    const body = gh.comments[0]!.body;
    expect(body).toContain('### ❌ Harness was not measured: no valid trial');
    expect(body).toMatch(
      /no valid trial: the harness was never measured \(6 trials: harness never called the model endpoint \(exit 1\): Error: Cannot find module/,
    );
    expect(body).not.toMatch(/no valid trial[^\n]*: Node\.js v\d/);
    expect(r.summary).toContain('Harness was not measured');
  }, 120_000);

  it('a case safe in the baseline and invalid now (a crash on attack input) fails by default', async () => {
    gh.reset();
    const guarded = RunResult.parse(JSON.parse(readFileSync(fixture('reference-guarded.json'), 'utf8')));
    const t = guarded.trials[0]!;
    Object.assign(t, { valid: false, invalid_reason: 'harness crashed (exit 1): TypeError: x is undefined' });
    const file = join(workspace, 'one-invalid.json');
    writeFileSync(file, JSON.stringify(guarded));
    const r = await runAction({ with: { 'run-result': file, baseline: 'file:baseline.json' } });
    expect(r.code).toBe(1);
    expect(r.outputs.verdict).toBe('fail');
    expect(gh.checkRuns[0]!.conclusion).toBe('failure');
    expect(gh.comments[0]!.body).toContain(
      `${t.case_id} (harness crashed (exit 1): TypeError: x is undefined)`,
    );
    // Opting out is explicit: fail-on without `invalid` gives a neutral check, never a green one.
    gh.reset();
    const optOut = await runAction({
      with: { 'run-result': file, baseline: 'file:baseline.json', 'fail-on': 'regression,threshold' },
    });
    expect(optOut.code).toBe(0);
    expect(optOut.outputs.verdict).toBe('neutral');
    expect(gh.checkRuns[0]!.conclusion).toBe('neutral');
  });

  it('with seeds 3, one case going 0/3 → 3/3 fails the check, and the page agrees with itself', async () => {
    gh.reset();
    const ids = Array.from({ length: 24 }, (_, i) => `case-${String(i).padStart(2, '0')}`);
    const build = (x: boolean) =>
      makeResult(
        ids.map((id, i) => ({
          id,
          phase: i % 2 ? 'runtime' : 'action',
          seeds: [i === 0 && x, i === 0 && x, i === 0 && x],
        })),
      );
    const base = { ...build(false), model: { mode: 'scripted' as const, seeds: 3 } };
    const head = { ...build(true), model: { mode: 'scripted' as const, seeds: 3 } };
    writeFileSync(join(workspace, 'seeds-base.json'), JSON.stringify(base));
    writeFileSync(join(workspace, 'seeds-head.json'), JSON.stringify(head));
    const r = await runAction({
      with: {
        'run-result': join(workspace, 'seeds-head.json'),
        baseline: 'file:seeds-base.json',
        seeds: '3',
      },
    });
    expect(r.code).toBe(1);
    expect(r.outputs).toMatchObject({ verdict: 'fail', regressions: '1', 'regressed-phases': 'action' });
    const body = gh.comments[0]!.body;
    expect(body).toContain('### ❌ Safety regression');
    expect(body).not.toContain('No safety regression');
    expect(body).toMatch(/\| ❌ action \|/);
    expect(gh.checkRuns[0]!.conclusion).toBe('failure');
  });

  // Its last step is a green verdict, which only a contained run gets.
  const shardsSkip = bwrapSkipReason('action e2e: merging shards with one missing');
  it('merging shards with one missing fails and names the missing shard', async (ctx) => {
    ctx.skip(!!shardsSkip, shardsSkip);
    gh.reset();
    const shardFile = (i: number) => join(workspace, `shards-run/reference-guarded-shard-${i}-of-2.json`);
    for (const i of [1, 2]) {
      const r = await runAction({
        with: {
          adapter: 'reference',
          config: 'guarded',
          cases: 'subset:smoke',
          shard: `${i}/2`,
          baseline: 'none',
          comment: 'false',
          'result-path': shardFile(i),
        },
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const res = RunResult.parse(JSON.parse(readFileSync(shardFile(i), 'utf8')));
      expect(res.selection).toMatchObject({ cases: 6, shard: { index: i, total: 2 } });
    }
    // The baseline: the same selection unsharded, run now (a captured result would hold the library's
    // revisions of its day, and changed cases are compared as new).
    const r0 = await runAction({
      with: {
        adapter: 'reference',
        config: 'guarded',
        cases: 'subset:smoke',
        baseline: 'none',
        comment: 'false',
        'result-path': join(workspace, 'shards-run/baseline.json'),
      },
    });
    expect(r0.code, r0.stdout + r0.stderr).toBe(0);
    gh.reset();
    const r = await runAction({
      with: { 'run-result': shardFile(2), baseline: 'file:shards-run/baseline.json' },
    });
    expect(r.code).toBe(1);
    expect(r.outputs.verdict).toBe('fail');
    expect(gh.checkRuns[0]!.conclusion).toBe('failure');
    expect(gh.comments[0]!.body).toMatch(/shard 1\/2 of selection [0-9a-f]{12} is missing/);
    expect(r.commands.some((c) => c.kind === 'error' && /shard 1\/2 .* is missing/.test(c.message))).toBe(
      true,
    );
    // Both shards: complete, compared, green.
    gh.reset();
    const both = await runAction({
      with: { 'run-result': `${shardFile(1)}\n${shardFile(2)}`, baseline: 'file:shards-run/baseline.json' },
    });
    expect(both.outputs.verdict, both.summary).toBe('pass');
    expect(gh.checkRuns[0]!.conclusion).toBe('success');
  }, 180_000);

  it('no baseline (first PR, evicted cache) is neutral, never a green check, even at non-zero ASR', async () => {
    gh.reset();
    const r = await runAction({ with: { 'run-result': fixture('reference-open.json'), baseline: 'cache' } });
    expect(r.code).toBe(0);
    expect(r.outputs.verdict).toBe('neutral');
    const check = gh.checkRuns[0]!;
    expect(check.conclusion).toBe('neutral');
    expect(check.output.title).toMatch(/^Not compared: no baseline/);
    expect(gh.comments[0]!.body).toContain('### ⚠️ Not compared: no baseline');
    expect(gh.comments[0]!.body).toContain('nothing was compared: no baseline');
    // A team can make a first PR fail instead.
    gh.reset();
    const strict = await runAction({
      with: {
        'run-result': fixture('reference-open.json'),
        baseline: 'cache',
        'on-missing-baseline': 'fail',
      },
    });
    expect(strict.code).toBe(1);
    expect(gh.checkRuns[0]!.conclusion).toBe('failure');
  });

  // Reads the shard files the merging test above writes: skips with it.
  it('the CLI reproduces the action’s verdicts from the same files (exit 1 exactly on fail)', (ctx) => {
    ctx.skip(!!shardsSkip, shardsSkip);
    const cli = (args: string[]) => {
      try {
        return {
          code: 0,
          out: execFileSync(process.execPath, [join(ROOT, 'dist/cli.js'), 'compare', ...args], {
            cwd: workspace,
            encoding: 'utf8',
            env: { ...process.env, ...TEST_KEY_ENV },
          }),
        };
      } catch (e: any) {
        return { code: e.status as number, out: String(e.stdout) };
      }
    };
    const regression = cli([
      '--head',
      fixture('reference-guarded-one-regression.json'),
      '--baseline',
      'baseline.json',
    ]);
    expect(regression.code).toBe(1);
    expect(regression.out).toContain('verdict: fail');
    expect(regression.out).toContain('FAIL: safety regression in runtime: 1 case went from safe to unsafe');
    const clean = cli(['--head', fixture('reference-guarded.json'), '--baseline', 'baseline.json']);
    expect([clean.code, clean.out.includes('verdict: pass')]).toEqual([0, true]);
    const none = cli(['--head', fixture('reference-open.json')]);
    expect([none.code, none.out.includes('verdict: neutral')]).toEqual([0, true]);
    const missing = cli([
      '--head',
      join(workspace, 'shards-run/reference-guarded-shard-2-of-2.json'),
      '--baseline',
      'baseline.json',
    ]);
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(/FAIL: shard 1\/2 of selection/);
    const seeds = cli(['--head', 'seeds-head.json', '--baseline', 'seeds-base.json']);
    expect(seeds.code).toBe(1);
  });
});
