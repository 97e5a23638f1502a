// The world's GitHub as the harness meets it in an Actions job: the job's environment (every value the
// trial's own: canaries and this endpoint's URLs, never the real job's) and the git remote (a bare clone
// of the workspace repository, outside the harness's folders, that the workspace's `origin` points at
// through the endpoint).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GITHUB_API_PREFIX } from '../spec/github-ops.js';
import type { GithubState } from '../spec/github-state.js';
import { gitArgs, gitEnv } from './git-repo.js';

/** The path of the world's git remote on the endpoint; GITHUB_SERVER_URL = ENDPOINT + this. */
export const GIT_REMOTE_PREFIX = '/git';

/**
 * The host `gh` in a trial is pointed at (GH_HOST). `github.localhost` is the one host gh speaks plain HTTP
 * to (`http://api.github.localhost/…`, GraphQL at `/graphql`); through the trial's HTTP proxy the request
 * reaches the endpoint, which serves it as the world's GitHub (world/services.ts).
 */
export const GH_CLI_HOST = 'github.localhost';
export const GH_CLI_API_HOST = `api.${GH_CLI_HOST}`;

/** The bare repositories' host folder under a trial root (not one of the folders the harness sees). */
export const gitRootOf = (trialRoot: string): string => join(trialRoot, 'remote');

/**
 * The variables an Actions job shows the harness, for a case with a GitHub world: the `GITHUB_*` context,
 * `GITHUB_TOKEN`/`GH_TOKEN` when the case gives the job a token, the OIDC request pair when it grants
 * `id-token`, and the workflow's `env:` (secrets passed on). All values are the trial's.
 */
export function githubEnv(gh: GithubState | undefined, endpoint: string): Record<string, string> {
  if (!gh) return {};
  const base = endpoint.replace(/\/+$/, '');
  const a = gh.actions;
  const env: Record<string, string> = {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: gh.repo,
    GITHUB_REPOSITORY_OWNER: gh.repo.split('/')[0]!,
    GITHUB_API_URL: `${base}${GITHUB_API_PREFIX}`,
    GITHUB_SERVER_URL: `${base}${GIT_REMOTE_PREFIX}`,
    GITHUB_REF: `refs/heads/${gh.default_branch}`,
    GITHUB_EVENT_NAME: a?.event_name ?? 'issue_comment',
    GITHUB_ACTOR: 'github-actions[bot]',
    // `gh` (bin/gh in the trial) talks to the world's GitHub; GH_REPO because origin's host is the endpoint's.
    GH_HOST: GH_CLI_HOST,
    GH_REPO: `${GH_CLI_HOST}/${gh.repo}`,
    GH_NO_UPDATE_NOTIFIER: '1',
    GH_PROMPT_DISABLED: '1',
  };
  if (a?.token) {
    env.GITHUB_TOKEN = a.token;
    env.GH_TOKEN = a.token;
  }
  if (a?.id_token_request && a.id_token) {
    env.ACTIONS_ID_TOKEN_REQUEST_URL = `${base}/_actions/idtoken?api-version=2.0`;
    env.ACTIONS_ID_TOKEN_REQUEST_TOKEN = a.id_token_request;
  }
  return { ...env, ...(a?.env ?? {}) };
}

/**
 * Writes `bin/gh`: the host's GitHub CLI with NO_PROXY emptied, since its `localhost` entry also matches
 * api.github.localhost and would send gh nowhere; every request then goes through the trial's proxy (the
 * endpoint), which serves the world's GitHub and records and refuses anything else.
 */
export async function installGhShim(binDir: string, ghPath: string): Promise<void> {
  const target = join(binDir, 'gh');
  const quoted = `'${ghPath.replace(/'/g, `'\\''`)}'`;
  await writeFile(target, `#!/bin/sh\nNO_PROXY= no_proxy= exec ${quoted} "$@"\n`, { mode: 0o755 });
  await chmod(target, 0o755);
}

/** The host's `gh` among the system folders the trial sees, if any. */
export function hostGh(systemPath: string[]): string | undefined {
  return systemPath.map((d) => join(d, 'gh')).find((f) => existsSync(f));
}

/**
 * The host's `gh` binary, for a runner that does not show the host's system folders (docker): the run shows
 * it read-only (engine/harness-view.ts) and bin/gh runs it from there. Debian's gh links only libc, so it
 * runs in any glibc image.
 */
export const hostGhBinary = (): string | undefined => hostGh(['/usr/local/bin', '/usr/bin', '/bin']);

function gitCall(args: string[], cwd: string, home: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', gitArgs(args), { cwd, env: gitEnv(home), timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`git ${args[0]}: ${stderr.trim() || err.message}`)) : resolve(stdout.trim()),
    );
  });
}

/** Whether the workspace repository already has an `origin` (a second session keeps the first's). */
export const hasGitRemote = (workspace: string, home: string): Promise<boolean> =>
  gitCall(['-c', 'safe.directory=*', 'remote', 'get-url', 'origin'], workspace, home).then(
    () => true,
    () => false,
  );

/**
 * The world's git remote: a bare clone of the workspace repository under `gitRoot`, the workspace's
 * `origin` set to it through the endpoint, and (when the job has a token) the token in the checkout's
 * extraheader, where actions/checkout leaves it. Pushes the harness makes reach only this clone.
 */
export async function seedGitRemote(input: {
  gh: GithubState;
  workspace: string;
  home: string;
  gitRoot: string;
  endpoint: string;
  /**
   * The repository a harness session already worked in (a second session's world gained a GitHub): it is
   * owned by the harness's user, which git refuses ("dubious ownership") unless told; the calls stay
   * hardened (no hooks, no fsmonitor: git-repo.ts), and the branch the session left is kept.
   */
  afterSession?: boolean;
}): Promise<void> {
  const { gh, workspace, home, gitRoot } = input;
  const git = input.afterSession
    ? (args: string[], cwd: string, h: string) => gitCall(['-c', 'safe.directory=*', ...args], cwd, h)
    : gitCall;
  const bare = join(gitRoot, `${gh.repo}.git`);
  await mkdir(dirname(bare), { recursive: true, mode: 0o700 });
  if (gh.default_branch !== 'main' && !input.afterSession)
    await git(['branch', '-m', gh.default_branch], workspace, home);
  if (input.afterSession) {
    // git's upload-pack refuses to serve a clone from a repository another user owns, whatever `-c` says:
    // the bare repository is ours, and the workspace pushes its branches and tags into it.
    await git(['init', '-q', '--bare', bare], gitRoot, home);
    await git(
      [
        '-c',
        'protocol.file.allow=always',
        'push',
        '-q',
        bare,
        'refs/heads/*:refs/heads/*',
        'refs/tags/*:refs/tags/*',
      ],
      workspace,
      home,
    );
  } else {
    // The workspace is a local path: the one transport this clone may use.
    await git(
      ['-c', 'protocol.file.allow=always', 'clone', '-q', '--bare', '--no-hardlinks', workspace, bare],
      gitRoot,
      home,
    );
  }
  const url = `${input.endpoint.replace(/\/+$/, '')}${GIT_REMOTE_PREFIX}/${gh.repo}.git`;
  await git(['remote', 'add', 'origin', url], workspace, home);
  // As a checkout leaves it: origin/BRANCH known (the endpoint does not serve yet, so no fetch).
  await git(['update-ref', `refs/remotes/origin/${gh.default_branch}`, 'HEAD'], workspace, home);
  const token = gh.actions?.token;
  if (token) {
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    await git(
      ['config', '--local', `http.${url}.extraheader`, `AUTHORIZATION: basic ${basic}`],
      workspace,
      home,
    );
  }
}
