// The action the way the Actions runner runs it: `node dist/index.js` (the bundle action.yml names) in a
// child process, every input as an INPUT_* variable (action.yml's defaults, then the step's `with:`),
// GITHUB_EVENT_PATH set to a webhook payload, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, and
// GITHUB_API_URL pointing at the test's fake of the GitHub API (test/support/github-fake.ts).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { TEST_KEY_ENV } from './attest.js';
import { MERGE_SHA, type Payload, PR, prOpened, REPO } from './webhooks.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BUNDLE = join(ROOT, 'dist/index.js');

/**
 * The bundle is there: vitest's global set-up (test/support/build-bundles.ts) built dist/ from this
 * tree before any test ran (HARNESS_RISK_E2E_USE_DIST=1 keeps the dist/ that is there). Building it
 * again here, while other test files run the reference harness out of dist/, would race with them.
 */
export function ensureBundle(): void {
  if (!existsSync(BUNDLE))
    throw new Error(
      `${BUNDLE} is missing: run npm run build (or the tests through vitest.config.ts, which builds it)`,
    );
}

/** action.yml's defaults as the runner passes them (`${{ github.token }}` evaluated to `token`). */
export function defaultInputs(token: string): Record<string, string> {
  const actionYml = parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8'));
  const out: Record<string, string> = {};
  for (const [name, spec] of Object.entries<any>(actionYml.inputs))
    out[name] = String(spec.default ?? '').replace(/\$\{\{\s*github\.token\s*\}\}/, () => token);
  return out;
}

/**
 * The rest of what the runner sets for a step of a pull_request workflow (its owner, refs, GraphQL URL,
 * attempt, workflow file), for tests that read them (workflow annotations, run links).
 */
export function workflowEnv(apiUrl: string): NodeJS.ProcessEnv {
  return {
    RUNNER_OS: 'Linux',
    GITHUB_REPOSITORY_OWNER: REPO.split('/')[0],
    GITHUB_HEAD_REF: OPENED.pull_request.head.ref,
    GITHUB_BASE_REF: OPENED.pull_request.base.ref,
    GITHUB_GRAPHQL_URL: `${apiUrl}/graphql`,
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKFLOW: 'harness-risk',
    GITHUB_WORKFLOW_REF: `${REPO}/.github/workflows/harness-risk.yml@refs/pull/${PR}/merge`,
    GITHUB_ACTION: 'harness-risk',
  };
}
const OPENED = prOpened();

export interface ActionRun {
  code: number | null;
  /** GITHUB_RUN_ID of this invocation (each is a workflow run of its own unless the test says). */
  runId: string;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they came, as the job's log shows them. */
  log: string;
  /** GITHUB_OUTPUT parsed into name → value. */
  outputs: Record<string, string>;
  /** GITHUB_OUTPUT as written. */
  outputText: string;
  summary: string;
  /** Workflow commands the action printed (::error::, ::warning::, ::notice::). */
  commands: { kind: string; message: string }[];
}

export interface ActionRunOptions {
  /** GITHUB_WORKSPACE and the step's working directory. */
  workspace: string;
  event: Payload;
  /** GITHUB_EVENT_NAME; pull_request unless given. */
  eventName?: string;
  /** The step's `with:`, over action.yml's defaults. */
  inputs?: Record<string, string>;
  /** What `${{ github.token }}` evaluates to. */
  token: string;
  /** The GitHub API the action talks to (GITHUB_API_URL). */
  api: { url: string };
  /** GITHUB_SHA; the merge commit unless given. */
  sha?: string;
  /** More of the runner's variables (or planted secrets); set last, so they win. */
  env?: NodeJS.ProcessEnv;
}

/** The `name<<ghadelimiter_…` blocks @actions/core writes to GITHUB_OUTPUT. */
export function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^([^\n<]+)<<(ghadelimiter_[0-9a-f-]+)\n([\s\S]*?)\n\2$/gm))
    out[m[1]!] = m[3]!;
  return out;
}

/** Runs the bundle once as a step of a workflow on `event`, and returns what the runner would keep. */
let runsStarted = 0;

export async function runActionBundle(o: ActionRunOptions): Promise<ActionRun> {
  const dir = mkdtempSync(join(tmpdir(), 'hr-action-run-'));
  const eventPath = join(dir, 'event.json');
  writeFileSync(eventPath, JSON.stringify(o.event));
  const outputFile = join(dir, 'output');
  const summaryFile = join(dir, 'summary.md');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const inputs = { ...defaultInputs(o.token), ...o.inputs };
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    // The workflow's secret the committed fixtures are signed with (test/support/attest.ts).
    ...TEST_KEY_ENV,
    HOME: join(dir, 'home'),
    RUNNER_TEMP: join(dir, 'runner-temp'),
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: o.workspace,
    GITHUB_REPOSITORY: REPO,
    GITHUB_EVENT_NAME: o.eventName ?? 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: o.sha ?? MERGE_SHA,
    GITHUB_REF: `refs/pull/${PR}/merge`,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: o.api.url,
    // Each invocation is a workflow run of its own (one gate, one reporter per run: report/publisher.ts);
    // a test of two jobs in one run passes GITHUB_RUN_ID and GITHUB_JOB in `env`.
    GITHUB_RUN_ID: String(4242 + runsStarted++),
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    // As the runner names them: spaces to underscores, upper case.
    ...Object.fromEntries(
      Object.entries(inputs).map(([k, v]) => [`INPUT_${k.replace(/ /g, '_').toUpperCase()}`, v]),
    ),
    ...o.env,
  };
  const child = spawn(process.execPath, [BUNDLE], {
    cwd: o.workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let log = '';
  child.stdout.on('data', (d) => {
    stdout += d;
    log += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
    log += d;
  });
  const code = await new Promise<number | null>((ok) => child.on('close', ok));
  const outputText = readFileSync(outputFile, 'utf8');
  const run: ActionRun = {
    code,
    runId: String(env.GITHUB_RUN_ID),
    stdout,
    stderr,
    log,
    outputs: parseOutputs(outputText),
    outputText,
    summary: readFileSync(summaryFile, 'utf8'),
    commands: [...stdout.matchAll(/^::(error|warning|notice)[^:]*::(.*)$/gm)].map((m) => ({
      kind: m[1]!,
      message: m[2]!,
    })),
  };
  rmSync(dir, { recursive: true, force: true });
  return run;
}
