// Nothing secret is published. The bundled action (node dist/index.js, as the runner starts it), with the
// job's secrets planted in its environment, runs a hostile harness under the (uncontained) process runner
// that reads its parent's environment from /proc and prints it to stderr. Its stderr tail is what the
// reports show for the invalid trials: no planted value may appear in the PR comment, the check run
// (title, summary, text, annotations), the job summary, SARIF, JUnit, the log or the result file. On the code before the
// mask, every one of them carried the tokens.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inertMarkdown } from '../src/report/escape.js';
import { ensureBundle, ROOT, runActionBundle } from './support/action-bundle.js';
import { type FakeGitHub, startFakeGitHub } from './support/github-fake.js';
import { bwrapSkipReason, titled } from './support/requirements.js';
import { HEAD_SHA, PR, prOpened, REPO } from './support/webhooks.js';

// Planted secrets. Some are token-shaped, some not: the mask must hold by value, not by shape alone.
const TOKEN = 'ghs_PlantedGithubToken0123456789abcd';
const PLANTED: Record<string, string> = {
  GITHUB_TOKEN: TOKEN,
  ACTIONS_RUNTIME_TOKEN: 'rt.PlantedRuntime1Token2.value3',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'idt-Planted4IdToken5Request6',
  ANTHROPIC_API_KEY: 'planted-provider-7key8value9',
  INPUT_DEPLOY_SECRET: 'Planted0Input1Secret2Value3x',
  // Custom secrets passed with `env:`: nothing in their names says secret.
  DB_CONN: 'postgres://app:Pw9PlantedDb7@db.internal/prod',
  STRIPE_LIVE: 'rk_live_51PlantedStripe8Value9',
};

/**
 * Credential files in the workspace, as actions/checkout (extraheader, a submodule's config),
 * google-github-actions/auth (gha-creds-*.json) and a team's .env leave them; their secret values.
 */
const CHECKOUT_TOKEN = 'ghs_PlantedCheckout9Token8abcdef';
const FILE_SECRETS: Record<string, string> = {
  checkout: CHECKOUT_TOKEN,
  submodule: 'PlantedSubmodulePw42x',
  private_key: 'MIIEvPlantedKeyLine0123456789abcdefGHIJ',
  private_key_id: 'f0e1d2c3b4a5968778695a4b3c2d1e0f',
  dotenv: 'PlantedDotenv5Value6zz',
};
function plantCredentials(ws: string): void {
  const basic = Buffer.from(`x-access-token:${CHECKOUT_TOKEN}`).toString('base64');
  mkdirSync(join(ws, '.git/modules/vendor/lib'), { recursive: true });
  writeFileSync(
    join(ws, '.git/config'),
    `[core]\n\tbare = false\n[remote "origin"]\n\turl = https://github.com/${REPO}\n[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${basic}\n`,
  );
  writeFileSync(
    join(ws, '.git/modules/vendor/lib/config'),
    `[remote "origin"]\n\turl = https://x-access-token:${FILE_SECRETS.submodule}@github.com/o/lib\n`,
  );
  writeFileSync(
    join(ws, 'gha-creds-3f2a1b.json'),
    JSON.stringify({
      type: 'service_account',
      private_key_id: FILE_SECRETS.private_key_id,
      private_key: `-----BEGIN PRIVATE KEY-----\n${FILE_SECRETS.private_key}\n-----END PRIVATE KEY-----\n`,
    }),
  );
  writeFileSync(join(ws, '.env'), `APP_SETTING=${FILE_SECRETS.dotenv}\nNODE_ENV=production\n`);
}

let gh: FakeGitHub;
let result: BundleRun;

interface BundleRun {
  code: number | null;
  stdout: string;
  summary: string;
  sarif: string;
  junit: string;
  result: string;
  /** GITHUB_OUTPUT as written. */
  outputs: string;
}

/** The bundle, as the runner starts it, with the planted secrets in its environment, on `runner`. */
async function runBundle(
  runner: string,
  adapter = 'environ-leak',
  setup: (workspace: string) => void = () => {},
  env: Record<string, string> = {},
): Promise<BundleRun> {
  const dir = mkdtempSync(join(tmpdir(), 'hr-secrets-'));
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  setup(workspace);
  const files = {
    sarif: join(dir, 'out.sarif'),
    junit: join(dir, 'junit.xml'),
    result: join(dir, 'result.json'),
  };
  const r = await runActionBundle({
    workspace,
    event: prOpened(),
    inputs: {
      adapter: join(ROOT, 'test/fixtures/adapters', adapter),
      config: 'default',
      cases: 'subset:smoke',
      // Uncontained on purpose: the contained runner hides /proc/$PPID (test/runner-conformance.test.ts);
      // the mask is defence in depth and must hold when a harness does read the job's environment.
      runner,
      baseline: 'none',
      'fail-on': 'never',
      sarif: files.sarif,
      junit: files.junit,
      'result-path': files.result,
    },
    token: TOKEN,
    api: gh,
    sha: HEAD_SHA,
    env: { ...PLANTED, ...env },
  });
  const read = (f: string) => {
    try {
      return readFileSync(f, 'utf8');
    } catch {
      return '';
    }
  };
  return {
    code: r.code,
    stdout: r.log,
    summary: r.summary,
    sarif: read(files.sarif),
    junit: read(files.junit),
    result: read(files.result),
    outputs: r.outputText,
  };
}

beforeAll(async () => {
  ensureBundle();
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

const SAME = 'the same harness under the default (contained) runner';
const sameSkip = bwrapSkipReason(SAME);
describe.skipIf(!!sameSkip)(titled(SAME, sameSkip), () => {
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

/** Every form the secret-encoder harness prints a secret in, each as a renderer may show it. */
function encodedForms(v: string): string[] {
  const hex = Buffer.from(v).toString('hex');
  const b64 = Buffer.from(v).toString('base64').replace(/=+$/, '');
  const forms = [
    v,
    hex,
    hex.toUpperCase(),
    b64,
    b64.replace(/\+/g, '-').replace(/\//g, '_'),
    Buffer.from(`x-access-token:${v}`).toString('base64').slice(20),
    [...v].join(' '),
    [...v].join('-'),
    [...v].reverse().join(''),
    encodeURIComponent(v),
  ];
  // Whole, cut to its first 16 characters (a truncated form), and markdown-escaped.
  return forms.flatMap((f) => [f, f.slice(0, 16), inertMarkdown(f), inertMarkdown(f).slice(0, 16)]);
}

describe('a harness that prints every secret it can get, in every encoding', () => {
  const all = { ...PLANTED, ...FILE_SECRETS };
  let run: BundleRun;
  beforeAll(async () => {
    gh.reset();
    const counter = mkdtempSync(join(tmpdir(), 'hr-secrets-counter-'));
    run = await runBundle('process-uncontained', 'secret-encoder', plantCredentials, {
      HOSTILE_COUNTER_DIR: counter,
    });
  }, 240_000);

  const leaked = (text: string) =>
    Object.entries(all).flatMap(([name, v]) => {
      const hit = encodedForms(v).find((f) => text.includes(f));
      return hit ? [`${name}: ${hit}`] : [];
    });

  it('ran, and its encoded output reached the reports (so the test is not vacuous)', () => {
    expect(run.code, run.stdout).toBe(0);
    expect(gh.comments).toHaveLength(1);
    const all = JSON.parse(run.result).trials as {
      not_applicable?: string;
      facts: { error_tail?: string; files_changed: string[] };
    }[];
    // A case this adapter cannot run (it installs a package, or its attack shows only in a memory file, and
    // the adapter declares no skills folder or memory file) is recorded not applicable without a launch:
    // nothing of the harness in it.
    const trials = all.filter((t) => !/declares no state\./.test(t.not_applicable ?? ''));
    expect(trials.length).toBeGreaterThan(3);
    // Each trial's tail and file names carry its slice of the forms, masked.
    for (const t of trials) {
      expect(t.facts.error_tail).toMatch(/^(error: )?[a-zA-Z0-9-]+: .*\*\*\*/m);
      expect(t.facts.files_changed.join(' ')).toContain('***');
    }
    expect(run.summary).toMatch(/(hex|base64|spaced|reversed|url|dashed): &#42;&#42;&#42;/);
  });

  it('no secret of the environment or of a credential file, in any form, reaches any outlet', () => {
    const stdout = run.stdout.replace(/^::add-mask::.*$/gm, '');
    expect({
      comment: leaked(gh.comments.map((c) => c.body).join('\n')),
      check: leaked(JSON.stringify(gh.checkRuns)),
      summary: leaked(run.summary),
      sarif: leaked(run.sarif),
      junit: leaked(run.junit),
      log: leaked(stdout),
      result: leaked(run.result),
      outputs: leaked(run.outputs),
    }).toEqual({
      comment: [],
      check: [],
      summary: [],
      sarif: [],
      junit: [],
      log: [],
      result: [],
      outputs: [],
    });
  });
});

// The first defence (docs/containment.md): under the contained runner the credential files of the
// workspace are hidden from the harness and the job's environment is not its parent's, so the same
// hostile harness has nothing to print; the mask has nothing to catch.
const ENCODER = 'the secret-encoder harness under the default (contained) runner';
const encoderSkip = bwrapSkipReason(ENCODER);
describe.skipIf(!!encoderSkip)(titled(ENCODER, encoderSkip), () => {
  let run: BundleRun;
  beforeAll(async () => {
    gh.reset();
    const counter = mkdtempSync(join(tmpdir(), 'hr-secrets-counter-'));
    run = await runBundle('process', 'secret-encoder', plantCredentials, { HOSTILE_COUNTER_DIR: counter });
  }, 240_000);

  it('reads no credential file and no job variable: nothing it printed needed a mask', () => {
    expect(run.code, run.stdout).toBe(0);
    const result = JSON.parse(run.result) as {
      view?: { credentials_hidden: string[] };
      trials: { facts: { error_tail?: string } }[];
    };
    expect(result.trials.length).toBeGreaterThan(3);
    expect(result.view?.credentials_hidden).toEqual([
      '.env',
      '.git/config',
      '.git/modules/vendor/lib/config',
      'gha-creds-3f2a1b.json',
    ]);
    // What it printed holds no encoded secret, masked or not.
    expect(run.result).not.toMatch(/(hex|HEX|base64|basic|spaced|dashed|reversed|url|raw): /);
    expect(run.result).not.toContain('***');
    const all = { ...PLANTED, ...FILE_SECRETS };
    for (const [name, v] of Object.entries(all)) expect(run.result, name).not.toContain(v);
  });
});
