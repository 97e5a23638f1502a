// A Dependabot pull request that bumps a team's harness package, end to end through the bundle: a real
// `pull_request` payload shaped as Dependabot sends it, a real git repository whose package-lock.json
// moves acme-agent 1.0.0 → 1.5.0, and acme-agent published to a local npm registry on 127.0.0.1 (real npm
// protocol: packuments, tarballs from `npm pack`; the repository's own .npmrc points `npm ci` and the
// bisect's packument fetch and installs at it, no npm_config_registry in the job's environment). From
// 1.3.0 on the package's policy pays without the owner's approval. `baseline: base` with `build: npm ci`
// measures both pins; `bisect: true` installs the releases in between and names 1.3.0. The same bump
// with the harness pinned by the adapter (install.npm, as the built-in adapters pin theirs) and moved only
// by the lockfile: each tree is measured at the release it pins, and the bisect names 1.3.0 too.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { ensureBundle, ROOT, runActionBundle } from './support/action-bundle.js';
import { GUARDED, git } from './support/git-harness-repo.js';
import { type FakeGitHub, startFakeGitHub } from './support/github-fake.js';
import { type LocalRegistry, startLocalRegistry } from './support/npm-registry.js';
import { type Payload, PR, prOpened, REPO } from './support/webhooks.js';

const exec = promisify(execFile);
const PKG = 'acme-agent';
const FIRST_BAD = '1.3.0';
const REGRESSED = 'invoice-mail-changes-payee';
const TOKEN = 'ghs_bisectFakeToken0123456789';

/** acme-agent at `version`: the reference harness as its program, a policy that stops asking before paying from FIRST_BAD on. */
function release(version: string): Record<string, string> {
  const policy = GUARDED();
  const [maj, min] = version.split('.').map(Number);
  if (maj! > 1 || min! >= 3) policy.approval = policy.approval.filter((x: string) => x !== 'pay');
  return {
    'harness.js': readFileSync(join(ROOT, 'dist/reference-harness.js'), 'utf8'),
    'policy.json': JSON.stringify(policy, null, 2),
  };
}

/** The team's adapter: the reference adapter launching the harness installed in the repository. */
function adapterYaml(): string {
  const ref = parseYaml(readFileSync(join(ROOT, 'adapters/reference/adapter.yaml'), 'utf8'));
  const dir = `{{repo}}/node_modules/${PKG}`;
  return stringify({
    ...ref,
    name: PKG,
    description: 'The team harness, installed from npm by the repository lockfile.',
    harness: { package: PKG, package_json: `${dir}/package.json` },
    launch: {
      ...ref.launch,
      command: ['node', `${dir}/harness.js`, '--policy', `${dir}/policy.json`, '--prompt', '{{prompt}}'],
    },
    configs: { default: { description: 'The policy the package ships.' } },
  });
}

/**
 * The team's adapter pinning the harness as the built-in adapters do (install.npm, installed into the
 * harness cache); the pull request moves only the lockfile, never this file.
 */
function pinnedAdapterYaml(): string {
  const ref = parseYaml(readFileSync(join(ROOT, 'adapters/reference/adapter.yaml'), 'utf8'));
  const dir = `{{cache}}/${PKG}-1.0.0/node_modules/${PKG}`;
  return stringify({
    ...ref,
    name: PKG,
    description: 'The team harness, pinned by the adapter and installed into the harness cache.',
    install: { npm: { package: PKG, version: '1.0.0' } },
    launch: {
      ...ref.launch,
      command: ['node', `${dir}/harness.js`, '--policy', `${dir}/policy.json`, '--prompt', '{{prompt}}'],
    },
    configs: { default: { description: 'The policy the package ships.' } },
  });
}

/** Dependabot's pull request: its user, branch and title on the real `opened` payload. */
function dependabotEvent(baseSha: string, headSha: string, from: string, to: string): Payload {
  const e = structuredClone(prOpened());
  const bot = { ...e.pull_request.user, login: 'dependabot[bot]', id: 49699333, type: 'Bot' };
  e.pull_request.user = bot;
  e.sender = bot;
  e.pull_request.title = `Bump ${PKG} from ${from} to ${to}`;
  e.pull_request.head.ref = `dependabot/npm_and_yarn/${PKG}-${to}`;
  e.pull_request.head.label = `${e.repository.owner.login}:${e.pull_request.head.ref}`;
  e.pull_request.base.sha = baseSha;
  e.pull_request.head.sha = headSha;
  return e;
}

interface BumpRepo {
  dir: string;
  baseSha: string;
  headSha: string;
}

let registry: LocalRegistry;
let repo: BumpRepo;
let pinnedRepo: BumpRepo;
const fakes: FakeGitHub[] = [];

beforeAll(async () => {
  ensureBundle();
  const versions = ['1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.4.1-beta.0', '1.5.0', '2.0.0'];
  registry = await startLocalRegistry({ [PKG]: Object.fromEntries(versions.map((v) => [v, release(v)])) });
  repo = await bumpRepo(adapterYaml());
  pinnedRepo = await bumpRepo(pinnedAdapterYaml());
}, 180_000);

/** A repository on acme-agent 1.0.0 and Dependabot's branch moving its lockfile to 1.5.0. */
async function bumpRepo(adapter: string): Promise<BumpRepo> {
  const repoDir = mkdtempSync(join(tmpdir(), 'hr-bisect-repo-'));
  chmodSync(repoDir, 0o755);
  // Asynchronous: the registry answers from this process, so a synchronous npm would wait on itself.
  const npm = (...args: string[]) =>
    exec('npm', [...args, '--registry', registry.url, '--no-audit', '--no-fund'], {
      cwd: repoDir,
      env: { ...process.env, npm_config_cache: `${repoDir}-npm` },
    });
  writeFileSync(
    join(repoDir, 'package.json'),
    JSON.stringify({ name: 'acme-app', version: '0.0.0', private: true }),
  );
  writeFileSync(join(repoDir, '.gitignore'), 'node_modules/\n.harness-risk/\n');
  // The registry as a team configures it: the repository's .npmrc (read by npm ci, and by the action for the
  // releases in between and the bisect's installs, which run in the harness cache).
  writeFileSync(join(repoDir, '.npmrc'), `registry=${registry.url}\n`);
  execFileSync('mkdir', ['-p', join(repoDir, 'harness-risk')]);
  writeFileSync(join(repoDir, 'harness-risk/adapter.yaml'), adapter);
  await npm('install', '--package-lock-only', '--save-exact', `${PKG}@1.0.0`);
  git(repoDir, 'init', '-q', '-b', 'main');
  git(repoDir, 'add', '-A');
  git(repoDir, 'commit', '-q', '-m', 'acme-agent 1.0.0');
  const baseSha = git(repoDir, 'rev-parse', 'HEAD');
  git(repoDir, 'checkout', '-q', '-b', `dependabot/npm_and_yarn/${PKG}-1.5.0`);
  await npm('install', '--package-lock-only', '--save-exact', `${PKG}@1.5.0`);
  git(repoDir, 'commit', '-q', '-am', `Bump ${PKG} from 1.0.0 to 1.5.0`);
  return { dir: repoDir, baseSha, headSha: git(repoDir, 'rev-parse', 'HEAD') };
}

/** Dependabot's branch of `r`, cloned as the job checks it out, and a fresh harness cache. */
function checkout(r: BumpRepo): { ws: string; cache: string } {
  const ws = mkdtempSync(join(tmpdir(), 'hr-bisect-ws-'));
  chmodSync(ws, 0o755);
  execFileSync('git', [
    'clone',
    '-q',
    '--branch',
    `dependabot/npm_and_yarn/${PKG}-1.5.0`,
    `file://${r.dir}`,
    ws,
  ]);
  const cache = mkdtempSync(join(tmpdir(), 'hr-bisect-cache-'));
  chmodSync(cache, 0o755);
  return { ws, cache };
}

afterAll(async () => {
  for (const f of fakes) {
    expect(f.violations).toEqual([]);
    await f.close();
  }
  await registry?.close();
});

describe('a Dependabot bump of the harness package, bisected (the bundle, a local npm registry)', () => {
  it('names the bump, measures both pins, and names the first bad version in the check, the comment and the outputs', async () => {
    const { baseSha, headSha } = repo;
    const { ws, cache } = checkout(repo);
    const gh = await startFakeGitHub({ repos: [REPO], issues: [PR], commits: [headSha] });
    fakes.push(gh);
    const r = await runActionBundle({
      workspace: ws,
      event: dependabotEvent(baseSha, headSha, '1.0.0', '1.5.0'),
      inputs: {
        adapter: './harness-risk/adapter.yaml',
        config: 'default',
        cases: 'subset:smoke',
        baseline: 'base',
        build: 'npm ci --no-audit --no-fund',
        bisect: 'true',
      },
      token: TOKEN,
      api: gh,
      sha: headSha,
      env: { HARNESS_RISK_CACHE: cache },
    });
    expect(r.code, r.log).toBe(1);
    expect(r.outputs.regressions).toBe('1');
    expect(r.outputs['harness-bump']).toBe(`${PKG} 1.0.0 → 1.5.0`);
    expect(r.outputs['first-bad-version']).toBe(FIRST_BAD);
    // Both pins measured and attested: the base tree ran 1.0.0, the head 1.5.0.
    const head = JSON.parse(readFileSync(r.outputs['result-path']!, 'utf8'));
    const base = JSON.parse(readFileSync(r.outputs['base-result-path']!, 'utf8'));
    expect(base.harness).toMatchObject({ package: PKG, version: '1.0.0' });
    expect(head.harness).toMatchObject({ package: PKG, version: '1.5.0' });
    // The check names the first bad version in its title.
    const check = gh.checkRuns[0]!;
    expect(check.conclusion).toBe('failure');
    expect(check.output.title).toContain(`harness ${PKG} 1.0.0 → 1.5.0: first bad version ${FIRST_BAD}`);
    // The comment: the bump at the top with the releases npm publishes in between (no pre-release, nothing
    // outside the range), the first bad version with its npm page and the trials that show it.
    const body = gh.comments[0]!.body;
    expect(body).toContain('4 release(s) in between: 1.1.0, 1.2.0, 1.3.0, 1.4.0.');
    expect(body).toContain(
      `First bad version: [${FIRST_BAD}](https://www.npmjs.com/package/${PKG}/v/${FIRST_BAD})`,
    );
    expect(body).toContain(`| ${FIRST_BAD} | ❌ unsafe |`);
    expect(body).toContain(`${REGRESSED} seed 0`);
    expect(body.indexOf('release(s) in between')).toBeLessThan(body.indexOf('Regressed'));
    // log₂ steps: of the four releases in between, 1.2.0 (safe) and 1.3.0 (unsafe) were installed.
    const fetched = registry.requests.filter((p) => p.endsWith('.tgz'));
    expect(fetched.some((p) => p.endsWith(`${PKG}-1.2.0.tgz`))).toBe(true);
    expect(fetched.some((p) => p.endsWith(`${PKG}-1.3.0.tgz`))).toBe(true);
    expect(fetched.some((p) => p.endsWith(`${PKG}-1.1.0.tgz`) || p.endsWith(`${PKG}-1.4.0.tgz`))).toBe(false);
    // Installed into the cache like a pin, the adapter file untouched.
    expect(existsSync(join(cache, `${PKG}-1.3.0`, '.harness-risk-installed.json'))).toBe(true);
    expect(readFileSync(join(ws, 'harness-risk/adapter.yaml'), 'utf8')).toBe(adapterYaml());
  }, 600_000);

  it('measures each tree at the release it pins when the adapter pins the harness and the lockfile moves it', async () => {
    const { baseSha, headSha } = pinnedRepo;
    const { ws, cache } = checkout(pinnedRepo);
    const gh = await startFakeGitHub({ repos: [REPO], issues: [PR], commits: [headSha] });
    fakes.push(gh);
    const r = await runActionBundle({
      workspace: ws,
      event: dependabotEvent(baseSha, headSha, '1.0.0', '1.5.0'),
      inputs: {
        adapter: './harness-risk/adapter.yaml',
        config: 'default',
        cases: 'subset:smoke',
        baseline: 'base',
        bisect: 'true',
      },
      token: TOKEN,
      api: gh,
      sha: headSha,
      env: { HARNESS_RISK_CACHE: cache },
    });
    expect(r.code, r.log).toBe(1);
    expect(r.outputs['harness-bump']).toBe(`${PKG} 1.0.0 → 1.5.0`);
    // The adapter file says 1.0.0 in both trees: the base ran 1.0.0, the head what its lockfile pins.
    const head = JSON.parse(readFileSync(r.outputs['result-path']!, 'utf8'));
    const base = JSON.parse(readFileSync(r.outputs['base-result-path']!, 'utf8'));
    expect(base.harness).toMatchObject({ package: PKG, version: '1.0.0' });
    expect(head.harness).toMatchObject({ package: PKG, version: '1.5.0' });
    expect(r.outputs.regressions).toBe('1');
    expect(r.outputs['first-bad-version']).toBe(FIRST_BAD);
    expect(gh.checkRuns[0]!.output.title).toContain(
      `harness ${PKG} 1.0.0 → 1.5.0: first bad version ${FIRST_BAD}`,
    );
    expect(gh.comments[0]!.body).toContain(`| ${FIRST_BAD} | ❌ unsafe |`);
    // Both ends and the two releases the bisect tried were installed into the cache, like the pin.
    const installed = (v: string) => existsSync(join(cache, `${PKG}-${v}`, '.harness-risk-installed.json'));
    expect(['1.0.0', '1.2.0', '1.3.0', '1.5.0'].every(installed)).toBe(true);
    expect(installed('1.1.0') || installed('1.4.0')).toBe(false);
    expect(readFileSync(join(ws, 'harness-risk/adapter.yaml'), 'utf8')).toBe(pinnedAdapterYaml());
  }, 600_000);
});
