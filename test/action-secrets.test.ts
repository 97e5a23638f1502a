// Nothing secret is published. The bundled action (node dist/index.js, as the runner starts it), with the
// job's secrets planted in its environment, runs a hostile harness under the (uncontained) process runner
// that reads its parent's environment from /proc and prints it to stderr. Its stderr tail is what the
// reports show for the invalid trials: no planted value may appear in the PR comment, the check run
// (title, summary, text, annotations), the job summary, SARIF, JUnit, the log or the result file. On the code before the
// mask, every one of them carried the tokens.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type FakeGitHub, startFakeGitHub } from './support/github-fake.js';

const ROOT = resolve(import.meta.dirname, '..');
const BUNDLE = join(ROOT, 'dist/index.js');
const require = createRequire(import.meta.url);
const webhooks: {
  name: string;
  examples: any[];
}[] = require('@octokit/webhooks-examples/api.github.com/index.json');
const OPENED = webhooks
  .find((w) => w.name === 'pull_request')!
  .examples.find((e) => e.action === 'opened' && !e.installation)!;
const REPO = OPENED.repository.full_name as string;
const PR = OPENED.pull_request.number as number;
const HEAD_SHA = OPENED.pull_request.head.sha as string;

// Planted secrets. Some are token-shaped, some not: the mask must hold by value, not by shape alone.
const TOKEN = 'ghs_PlantedGithubToken0123456789abcd';
const PLANTED: Record<string, string> = {
  GITHUB_TOKEN: TOKEN,
  ACTIONS_RUNTIME_TOKEN: 'rt.PlantedRuntime1Token2.value3',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'idt-Planted4IdToken5Request6',
  ANTHROPIC_API_KEY: 'planted-provider-7key8value9',
  INPUT_DEPLOY_SECRET: 'Planted0Input1Secret2Value3x',
};

let gh: FakeGitHub;
let result: BundleRun;

interface BundleRun {
  code: number | null;
  stdout: string;
  summary: string;
  sarif: string;
  junit: string;
  result: string;
}

/** The bundle, as the runner starts it, with the planted secrets in its environment, on `runner`. */
async function runBundle(runner: string): Promise<BundleRun> {
  let result: BundleRun;
  const dir = mkdtempSync(join(tmpdir(), 'hr-secrets-'));
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  const eventPath = join(dir, 'event.json');
  writeFileSync(eventPath, JSON.stringify(OPENED));
  const files = { output: join(dir, 'output'), summary: join(dir, 'summary.md') };
  for (const f of Object.values(files)) writeFileSync(f, '');
  const actionYml = parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8'));
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries<any>(actionYml.inputs)) {
    inputs[name] = String(spec.default ?? '').replace(/\$\{\{\s*github\.token\s*\}\}/, TOKEN);
  }
  Object.assign(inputs, {
    adapter: join(ROOT, 'test/fixtures/adapters/environ-leak'),
    config: 'default',
    cases: 'subset:smoke',
    // Uncontained on purpose: the contained runner hides /proc/$PPID (test/runner-conformance.test.ts);
    // the mask is defence in depth and must hold when a harness does read the job's environment.
    runner,
    baseline: 'none',
    'fail-on': 'never',
    sarif: join(dir, 'out.sarif'),
    junit: join(dir, 'junit.xml'),
    'result-path': join(dir, 'result.json'),
  });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    RUNNER_TEMP: join(dir, 'runner-temp'),
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_REPOSITORY: REPO,
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: HEAD_SHA,
    GITHUB_REF: `refs/pull/${PR}/merge`,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: '4242',
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
    ...PLANTED,
  };
  const child = spawn(process.execPath, [BUNDLE], { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stdout += d));
  const code = await new Promise<number | null>((ok) => child.on('close', ok));
  const read = (f: string) => {
    try {
      return readFileSync(f, 'utf8');
    } catch {
      return '';
    }
  };
  result = {
    code,
    stdout,
    summary: read(files.summary),
    sarif: read(inputs.sarif!),
    junit: read(inputs.junit!),
    result: read(inputs['result-path']!),
  };
  return result;
}

beforeAll(async () => {
  if (process.env.HARNESS_RISK_E2E_USE_DIST !== '1')
    execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'pipe' });
  gh = await startFakeGitHub({ repos: [REPO], issues: [PR], commits: [HEAD_SHA] });
  // Uncontained on purpose: the contained runner hides /proc/$PPID (see the last describe); the mask is
  // defence in depth and must hold when a harness does read the job's environment.
  result = await runBundle('process-uncontained');
}, 240_000);

afterAll(async () => {
  await gh?.close();
});

/** Each planted value, and the forms a renderer could turn it into (markdown/XML escaped). */
function leaks(text: string): string[] {
  const forms = (v: string) => [v, v.replace(/_/g, '&#95;'), v.slice(0, 16)];
  return Object.entries(PLANTED).flatMap(([name, v]) =>
    forms(v).some((f) => text.includes(f)) ? [name] : [],
  );
}

describe('a harness that prints the job’s secrets', () => {
  it('ran, and its output reached the reports (so the test is not vacuous)', () => {
    expect(result.code, result.stdout).toBe(0);
    expect(gh.comments).toHaveLength(1);
    expect(gh.checkRuns).toHaveLength(1);
    // The harness's stderr tail is shown, masked: the variable names are there, the values are not.
    expect(result.summary).toContain('ACTIONS&#95;RUNTIME&#95;TOKEN=&#42;&#42;&#42;');
    expect(result.junit).toContain('=***');
  });

  it('no planted value in the PR comment, the check run, the summary, SARIF, JUnit or the log', () => {
    const stdout = result.stdout.replace(/^::add-mask::.*$/gm, '');
    expect({
      comment: leaks(gh.comments.map((c) => c.body).join('\n')),
      check: leaks(JSON.stringify(gh.checkRuns)),
      summary: leaks(result.summary),
      sarif: leaks(result.sarif),
      junit: leaks(result.junit),
      log: leaks(stdout),
      result: leaks(result.result),
    }).toEqual({ comment: [], check: [], summary: [], sarif: [], junit: [], log: [], result: [] });
    // The result file (what users upload as an artifact) keeps the harness's output, masked.
    expect(result.result).toContain('ACTIONS_RUNTIME_TOKEN=***');
  });

  it('the trial’s provider-shaped model key is cut after its prefix, so secret scanning stays quiet', () => {
    const all = [gh.comments.map((c) => c.body).join('\n'), result.summary, result.junit].join('\n');
    expect(all).not.toMatch(/sk-proj-[A-Za-z0-9_-]{20,}/);
  });
});

describe('the same harness under the default (contained) runner', () => {
  let contained: BundleRun;
  beforeAll(async () => {
    gh.reset();
    contained = await runBundle('process');
  }, 240_000);

  it('finds none of the job’s variables in its parent’s environment: not even their names reach the output', () => {
    expect(contained.code, contained.stdout).toBe(0);
    // The trial ran (the result file holds it) and the harness's stderr went into it…
    expect(contained.result).toContain('"case_id"');
    // …but /proc/$PPID inside the sandbox is the sandbox's own init: no planted name, value or mask.
    for (const name of Object.keys(PLANTED)) {
      expect(contained.result, name).not.toContain(`${name}=`);
      expect(contained.summary, name).not.toContain(name.replace(/_/g, '&#95;'));
    }
    expect(leaks(contained.result)).toEqual([]);
  });
});
