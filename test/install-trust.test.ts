// Who chooses what runs outside the sandbox: a harness install (npm install with the package's scripts)
// runs before any trial sandbox. (a) On an event that runs with the base's privileges on a fork's tree
// (pull_request_target), the checked-out tree's .npmrc never picks the registry; on pull_request it does.
// (b) The install runs in bubblewrap: its scripts cannot read the workspace or the action's
// /proc/PID/environ, nor write outside the install prefix, and the install still succeeds.
// Real npm, real bwrap, local registries (test/support/npm-registry.ts), the action's run() in-process.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkTreeReason, readActionContext } from '../src/action/context.js';
import type { CoreApi, RunDeps } from '../src/action/deps.js';
import { run } from '../src/action/run.js';
import { ensureInstalled } from '../src/adapters/install.js';
import type { Adapter } from '../src/adapters/schema.js';
import type { CacheApi } from '../src/baseline/cache.js';
import { hostInstallSandbox } from '../src/engine/run/install.js';
import { INPUT_DEFAULTS } from '../src/front/inputs.js';
import type { GitHubApi } from '../src/report/github.js';
import { planHost } from '../src/runner/contain/host.js';
import { installSandboxOf } from '../src/runner/contain/install-sandbox.js';
import { RunResult } from '../src/spec/run-result.js';
import { type LocalRegistry, startLocalRegistry } from './support/npm-registry.js';
import { bwrapSkipReason } from './support/requirements.js';
import { fromFork, prOpened } from './support/webhooks.js';

const ROOT = join(import.meta.dirname, '..');
const PKG = 'trust-probe';
const probe = (script: string) => ({
  [PKG]: {
    '1.0.0': {
      'package.json': JSON.stringify({
        name: PKG,
        version: '1.0.0',
        files: ['probe.js'],
        // npm 11 runs a package's own install scripts only once approved; older npm runs them.
        scripts: { postinstall: 'node probe.js' },
      }),
      'probe.js': script,
    },
  },
});

/** An adapter folder: the reference harness, installed (pinned) from npm as trust-probe 1.0.0. */
function probeAdapter(root: string): string {
  const dir = join(root, 'adapter');
  cpSync(join(ROOT, 'test/fixtures/adapters/literal-guard'), dir, { recursive: true });
  const file = join(dir, 'adapter.yaml');
  const text = readFileSync(file, 'utf8').replace(
    /^harness:\n(?: {2}.*\n)+/m,
    `install:\n  npm: { package: ${PKG}, version: 1.0.0 }\n`,
  );
  writeFileSync(file, text);
  return dir;
}

/** run() of the action as a step on `eventName` with `payload`, the real engine, fakes for GitHub. */
function actionDeps(workspace: string, eventName: string, payload: unknown, inputs: Record<string, string>) {
  const eventPath = join(workspace, '..', `${eventName}.json`);
  writeFileSync(eventPath, JSON.stringify(payload));
  const log: string[] = [];
  const summaries: string[] = [];
  const failed: string[] = [];
  const all: Record<string, string> = {
    ...INPUT_DEFAULTS,
    'github-token': 'tok',
    concurrency: '1',
    seeds: '1',
    model: 'scripted',
    runner: 'process',
    baseline: 'none',
    comment: 'false',
    'check-run': 'false',
    ...inputs,
  };
  const core: CoreApi = {
    getInput: (n) => all[n] ?? '',
    setOutput: () => {},
    setFailed: (m) => failed.push(m),
    setSecret: () => {},
    info: (m) => log.push(`info ${m}`),
    debug: () => {},
    notice: (m) => log.push(`notice ${m}`),
    warning: (m) => log.push(`warning ${m}`),
    error: (m) => log.push(`error ${m}`),
    startGroup: () => {},
    endGroup: () => {},
    writeSummary: async (md) => {
      summaries.push(md);
      return true;
    },
  };
  const cache: CacheApi = {
    isFeatureAvailable: () => false,
    restoreCache: async () => undefined,
    saveCache: async () => 0,
  };
  const api = new Proxy({} as GitHubApi, {
    get: (_t, name: string) => async () => (name.startsWith('list') ? [] : { id: 1 }),
  });
  const deps: Partial<RunDeps> = {
    core,
    cwd: workspace,
    cache,
    github: () => api,
    env: {
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_EVENT_NAME: eventName,
      GITHUB_REPOSITORY: 'Codertocat/Hello-World',
      GITHUB_SHA: '2222222222222222222222222222222222222222',
      GITHUB_REF: 'refs/pull/2/merge',
      GITHUB_WORKSPACE: workspace,
      'INPUT_GITHUB-TOKEN': 'tok',
    },
  };
  return { deps, log, summaries, failed };
}

describe('whose .npmrc a harness install applies, in the action', () => {
  const skip = bwrapSkipReason('the fork-trust install tests');
  let forkRegistry: LocalRegistry;
  let userRegistry: LocalRegistry;
  const saved = { ...process.env };
  let root: string;

  beforeAll(async () => {
    const record = "require('fs').writeFileSync(require('path').join(__dirname, 'ran'), 'x');\n";
    forkRegistry = await startLocalRegistry(probe(record));
    userRegistry = await startLocalRegistry(probe(record));
    root = mkdtempSync(join(tmpdir(), 'hr-trust-'));
    // The user's .npmrc: the workflow's own steps wrote it (setup-node registry-url).
    const userrc = join(root, 'user.npmrc');
    writeFileSync(userrc, `registry=${userRegistry.url}\n`);
    process.env.npm_config_userconfig = userrc;
  }, 120_000);
  afterAll(async () => {
    process.env = saved;
    await forkRegistry?.close();
    await userRegistry?.close();
  });

  /** A workspace holding the PR's tree: its .npmrc names the fork's registry. */
  function workspaceOf(name: string): { ws: string; adapter: string } {
    const base = join(root, name);
    const ws = join(base, 'ws');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'package.json'), '{"name":"tree-under-test","private":true}\n');
    writeFileSync(join(ws, '.npmrc'), `registry=${forkRegistry.url}\n`);
    // Each run installs afresh: its own cache.
    process.env.HARNESS_RISK_CACHE = join(base, 'cache');
    return { ws, adapter: probeAdapter(base) };
  }
  const inputsOf = (adapter: string) => ({
    adapter,
    config: 'literal',
    cases: join(ROOT, 'cases/runtime/architecture-page-diagram-beacon.yaml'),
    'result-path': 'result.json',
  });

  it.skipIf(skip)(
    'pull_request_target of a fork: the fork’s .npmrc is not used, and the notice names it',
    async () => {
      const { ws, adapter } = workspaceOf('target');
      forkRegistry.requests.length = 0;
      userRegistry.requests.length = 0;
      const a = actionDeps(ws, 'pull_request_target', fromFork(prOpened()), inputsOf(adapter));
      await run(a.deps);
      expect(a.failed, a.log.join('\n')).toEqual([]);
      expect(forkRegistry.requests).toEqual([]);
      expect(userRegistry.requests.some((r) => r.includes(PKG))).toBe(true);
      const warning = a.log.filter((l) => l.startsWith('warning ') && l.includes('.npmrc'));
      expect(warning).toHaveLength(1);
      expect(warning[0]).toMatch(
        /^warning \.npmrc is not used for the harness install: this pull_request_target job runs with the privileges of .* \(a fork\)/,
      );
      expect(warning[0]).toContain('registry-url');
      expect(a.summaries.join('\n')).toContain('.npmrc is not used for the harness install');
      const result = RunResult.parse(JSON.parse(readFileSync(join(ws, 'result.json'), 'utf8')));
      expect(result.install).toMatchObject({ installed_now: true, containment: 'bubblewrap' });
      expect(result.install?.npmrc_ignored).toContain('.npmrc');
    },
    300_000,
  );

  it.skipIf(skip)(
    'pull_request (the fork’s own workflow, a read-only token): the tree’s .npmrc applies, as npm does',
    async () => {
      const { ws, adapter } = workspaceOf('pr');
      forkRegistry.requests.length = 0;
      userRegistry.requests.length = 0;
      const a = actionDeps(ws, 'pull_request', fromFork(prOpened()), inputsOf(adapter));
      await run(a.deps);
      expect(a.failed, a.log.join('\n')).toEqual([]);
      expect(forkRegistry.requests.some((r) => r.includes(PKG))).toBe(true);
      expect(userRegistry.requests).toEqual([]);
      expect(a.log.filter((l) => l.includes('is not used for the harness install'))).toEqual([]);
    },
    300_000,
  );
});

describe('forkTreeReason', () => {
  const ctxOf = (eventName: string, payload: unknown) => {
    const dir = mkdtempSync(join(tmpdir(), 'hr-trust-ctx-'));
    writeFileSync(join(dir, 'e.json'), JSON.stringify(payload));
    return readActionContext({
      GITHUB_EVENT_PATH: join(dir, 'e.json'),
      GITHUB_EVENT_NAME: eventName,
      GITHUB_REPOSITORY: 'Codertocat/Hello-World',
    });
  };
  const deletedHead = () => {
    const p = fromFork(prOpened());
    p.pull_request.head.repo = null;
    return p;
  };
  it.each([
    ['pull_request_target', fromFork(prOpened()), true],
    ['pull_request_target', deletedHead(), true],
    ['pull_request_review', fromFork(prOpened()), true],
    ['pull_request_target', prOpened(), false],
    ['pull_request', fromFork(prOpened()), false],
    ['workflow_run', { workflow_run: { head_repository: { full_name: 'fork/Hello-World' } } }, true],
    ['workflow_run', { workflow_run: { head_repository: { full_name: 'Codertocat/Hello-World' } } }, false],
    ['issue_comment', { issue: { number: 2, pull_request: { url: 'x' } } }, true],
    ['issue_comment', { issue: { number: 2 } }, false],
    ['push', { ref: 'refs/heads/main' }, false],
  ])('%s (#%#): the verdict on whether the tree may be a fork’s', (event, payload, fork) => {
    expect(!!forkTreeReason(ctxOf(event, payload))).toBe(fork);
  });
});

describe('a contained harness install', () => {
  const skip = bwrapSkipReason('the contained install tests');
  let registry: LocalRegistry;
  let root: string;
  let workspace: string;
  let outside: string;
  let rootOnly: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hr-install-box-'));
    workspace = join(root, 'workspace');
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'secret.txt'), 'workspace-secret\n');
    outside = join(root, 'outside.txt');
    // A file only root may read, in a folder the sandbox shows read-only.
    rootOnly = '/etc/shadow';
    // The script records, into its own prefix, what it could do: each attempt's outcome.
    const script = `const fs = require('fs'), path = require('path');
const tries = {
  workspace: () => fs.readFileSync(${JSON.stringify(join(workspace, 'secret.txt'))}, 'utf8'),
  environ: () => fs.readFileSync('/proc/${process.pid}/environ', 'utf8'),
  write: () => fs.writeFileSync(${JSON.stringify(outside)}, 'escaped'),
  rootOnly: () => fs.readFileSync(${JSON.stringify(rootOnly)}, 'utf8'),
};
const out = {};
for (const [k, f] of Object.entries(tries)) {
  try { f(); out[k] = 'ok'; } catch (e) { out[k] = e.code || String(e); }
}
fs.writeFileSync(path.join(__dirname, 'tries.json'), JSON.stringify(out));
`;
    registry = await startLocalRegistry(probe(script));
  }, 120_000);
  afterAll(async () => registry?.close());

  // install.command runs the same script: the step npm 11 runs whatever it decides about postinstall.
  const adapter = {
    name: 'probe',
    install: { npm: { package: PKG, version: '1.0.0' }, command: `node node_modules/${PKG}/probe.js` },
  } as unknown as Adapter;
  const installWith = async (contained: boolean) => {
    // Its own folder: in the sandbox, the folders above the prefix exist (read-only, or in its private /tmp).
    const cacheDir = join(mkdtempSync(join(tmpdir(), 'hr-install-cache-')), contained ? 'contained' : 'host');
    const home = join(root, 'home');
    mkdirSync(home, { recursive: true });
    const userrc = join(home, '.npmrc');
    writeFileSync(userrc, `registry=${registry.url}\n`);
    const plan = await planHost({ setup: false });
    const sandbox = contained ? installSandboxOf(plan) : undefined;
    if (contained) expect(sandbox, plan.contained ? '' : plan.reason).toBeDefined();
    const env = {
      ...process.env,
      HOME: home,
      npm_config_userconfig: userrc,
      npm_config_cache: join(home, '.npm'),
    };
    const info = await ensureInstalled(adapter, cacheDir, {
      env,
      projectDir: workspace,
      ...(sandbox ? { sandbox } : {}),
    });
    expect(info.installed).toBe(true);
    // The install is the engine's user's again, whatever uid ran its steps.
    expect(statSync(join(cacheDir, 'probe-1.0.0', 'node_modules', PKG, 'probe.js')).uid).toBe(
      process.getuid?.(),
    );
    const tries = join(cacheDir, 'probe-1.0.0', 'node_modules', PKG, 'tries.json');
    return JSON.parse(readFileSync(tries, 'utf8')) as Record<string, string>;
  };

  it.skipIf(skip)(
    'its scripts cannot read the workspace or the action’s environ, nor write outside the prefix',
    async () => {
      const seen = await installWith(true);
      expect(seen.workspace).toBe('ENOENT');
      expect(seen.environ).toBe('ENOENT');
      expect(seen.write).not.toBe('ok');
      expect(existsSync(outside)).toBe(false);
      // As root, the step ran as the trials' unprivileged uid: root's own files stay closed to it.
      if (existsSync(rootOnly)) expect(seen.rootOnly).toBe('EACCES');
    },
    180_000,
  );

  it.skipIf(skip)(
    'the same install on the host (no sandbox) can do all three',
    async () => {
      const seen = await installWith(false);
      expect(seen).toMatchObject({ workspace: 'ok', environ: 'ok', write: 'ok' });
      if (existsSync(rootOnly) && process.getuid?.() === 0) expect(seen.rootOnly).toBe('ok');
      expect(readFileSync(outside, 'utf8')).toBe('escaped');
    },
    180_000,
  );
});

describe('without bubblewrap', () => {
  it('installs run on the host and say why (the reason the host plan gives)', async () => {
    const plan = Promise.resolve({
      contained: false as const,
      reason: 'bwrap not found: install bubblewrap',
      notes: [],
    });
    expect(await hostInstallSandbox(plan)).toEqual({ reason: 'bwrap not found: install bubblewrap' });
  });
});
