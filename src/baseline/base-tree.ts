// The base tree of a paired run (baseline: base): the pull request's base commit as a git worktree beside
// the checkout, and the team's build run in each tree. I/O only (git, the build's shell); what to run and
// how to judge it is baseline/base-head.ts and the gate.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mark, sinceMs } from '../elapsed.js';
import { UserError } from '../errors.js';

const exec = promisify(execFile);

/** What to add to the workflow when the base commit cannot be had (the exact words). */
export const FETCH_DEPTH_HINT = 'add `fetch-depth: 0` to actions/checkout';

async function git(cwd: string, args: string[]): Promise<{ ok: boolean; out: string; err: string }> {
  try {
    const r = await exec('git', args, { cwd, maxBuffer: 16 * 1024 * 1024, env: gitEnv() });
    return { ok: true, out: r.stdout.trim(), err: r.stderr.trim() };
  } catch (e) {
    const x = e as { stdout?: string; stderr?: string; message: string; code?: string };
    if (x.code === 'ENOENT')
      throw new UserError('git is not installed on this machine', 'baseline: base needs git on the runner');
    return { ok: false, out: (x.stdout ?? '').trim(), err: (x.stderr ?? x.message).trim() };
  }
}

/** Git never prompts (a fetch that needs credentials fails at once instead of hanging the job). */
function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true', LC_ALL: 'C' };
}

const lastLine = (s: string) => s.split('\n').filter(Boolean).at(-1) ?? s;

/** The checkout's top folder; a folder that is not a git checkout is a user error naming it. */
export async function repoTop(dir: string): Promise<string> {
  const r = await git(dir, ['rev-parse', '--show-toplevel']);
  if (!r.ok)
    throw new UserError(
      `${dir} is not a git checkout (${lastLine(r.err)})`,
      'baseline: base builds the base commit from the checkout: run actions/checkout first (or run the CLI inside your repository)',
    );
  return r.out;
}

const hasCommit = async (repo: string, sha: string) =>
  (await git(repo, ['cat-file', '-e', `${sha}^{commit}`])).ok;

/**
 * The commit `ref` names (a SHA, branch, tag or `origin/main`), as a full SHA. A commit the checkout does
 * not hold (a shallow checkout) is fetched from `origin`; when that is impossible the error says exactly
 * what to add to the workflow.
 */
export async function resolveBaseCommit(
  repo: string,
  ref: string,
  log: (line: string) => void = () => {},
): Promise<string> {
  const local = await git(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (local.ok && local.out) return local.out;
  const isSha = /^[0-9a-f]{40}$/i.test(ref);
  const remotes = await git(repo, ['remote']);
  const hasOrigin = remotes.ok && remotes.out.split('\n').includes('origin');
  const tried: string[] = [];
  if (hasOrigin) {
    // By SHA (GitHub serves any reachable commit), else as a branch or tag name.
    const want = isSha ? ref : ref.replace(/^origin\//, '');
    log(`base commit ${ref} is not in this checkout; fetching it from origin`);
    const f = await git(repo, ['fetch', '--no-tags', '--depth=1', 'origin', want]);
    if (f.ok) {
      if (isSha && (await hasCommit(repo, ref))) return ref.toLowerCase();
      const fetched = await git(repo, ['rev-parse', '--verify', '--quiet', 'FETCH_HEAD^{commit}']);
      if (fetched.ok && fetched.out) return fetched.out;
    }
    tried.push(`git fetch origin ${want}: ${lastLine(f.err) || 'fetched nothing'}`);
  } else tried.push('the checkout has no remote "origin" to fetch it from');
  throw new UserError(
    `the base commit ${ref} is not in this checkout and could not be fetched (${tried.join('; ')})`,
    `${FETCH_DEPTH_HINT} (or fetch the base commit before this step)`,
  );
}

export interface Worktree {
  dir: string;
  sha: string;
  remove(): Promise<void>;
}

/** A detached worktree of `sha` in a fresh temp folder; remove() takes it away again (and prunes). */
export async function addWorktree(repo: string, sha: string, parent = tmpdir()): Promise<Worktree> {
  const holder = await mkdtemp(join(parent, 'harness-risk-base-'));
  const dir = join(holder, 'tree');
  const r = await git(repo, ['worktree', 'add', '--detach', '--force', dir, sha]);
  if (!r.ok) {
    await rm(holder, { recursive: true, force: true });
    throw new UserError(
      `could not make a worktree of the base commit ${sha.slice(0, 12)}: ${lastLine(r.err)}`,
      `check that the checkout is a full git repository (${FETCH_DEPTH_HINT})`,
    );
  }
  return {
    dir,
    sha,
    async remove() {
      await git(repo, ['worktree', 'remove', '--force', dir]);
      await rm(holder, { recursive: true, force: true });
      await git(repo, ['worktree', 'prune']);
    },
  };
}

/** Commit time of `sha`, ISO 8601 (for the report's age line). */
export async function commitDate(repo: string, sha: string): Promise<string | undefined> {
  const r = await git(repo, ['show', '-s', '--format=%cI', sha]);
  return r.ok && r.out ? r.out : undefined;
}

export interface BuildOutcome {
  ok: boolean;
  /** Exit status, or null when a signal or the timeout ended it. */
  code: number | null;
  durationMs: number;
  /** The last lines of stderr (stdout when stderr was empty): what the report shows of a failure. */
  tail: string;
  timedOut: boolean;
}

const TAIL_LINES = 20;
const TAIL_BYTES = 4000;

/** Keeps the last lines of a stream, bounded, whatever its size. */
export function tailOf(text: string, lines = TAIL_LINES, bytes = TAIL_BYTES): string {
  const cut = text.length > bytes * 4 ? text.slice(-bytes * 4) : text;
  const kept = cut.replace(/\s+$/, '').split('\n').slice(-lines).join('\n');
  return kept.length > bytes ? `…${kept.slice(-bytes)}` : kept;
}

/**
 * The variables a build never gets: the action's inputs (the token among them), the runner's own tokens
 * for the cache, OIDC and results services. The rest is the job's environment, the same for both trees,
 * as a `run:` step would have it.
 */
export function buildEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (/^INPUT_/i.test(k)) continue;
    if (
      /^ACTIONS_(RUNTIME_TOKEN|RUNTIME_URL|ID_TOKEN_REQUEST_TOKEN|ID_TOKEN_REQUEST_URL|CACHE_URL|RESULTS_URL)$/.test(
        k,
      )
    )
      continue;
    if (k === 'GITHUB_TOKEN' || k === 'GH_TOKEN') continue;
    out[k] = v;
  }
  return out;
}

/** Runs `command` with `sh -c` in `dir`; never throws for the command's own failure. */
export async function runBuild(
  command: string,
  dir: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 30 * 60_000,
  signal?: AbortSignal,
): Promise<BuildOutcome> {
  const started = mark();
  return new Promise((ok) => {
    const child = spawn('sh', ['-c', command], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    let err = '';
    const keep = (s: string, d: Buffer) => {
      const n = s + d.toString('utf8');
      return n.length > TAIL_BYTES * 8 ? n.slice(-TAIL_BYTES * 8) : n;
    };
    child.stdout.on('data', (d: Buffer) => (out = keep(out, d)));
    child.stderr.on('data', (d: Buffer) => (err = keep(err, d)));
    let timedOut = false;
    // The build's whole process group: nothing it started outlives it.
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {}
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    signal?.addEventListener('abort', kill, { once: true });
    const finish = (code: number | null, spawnError?: string) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
      kill();
      const text = spawnError ?? (err.trim() ? err : out);
      ok({
        ok: code === 0 && !timedOut,
        code,
        durationMs: sinceMs(started),
        tail: tailOf(timedOut ? `${text}\n(timed out after ${Math.round(timeoutMs / 1000)} s)` : text),
        timedOut,
      });
    };
    child.on('error', (e) => finish(null, e.message));
    child.on('close', (code) => finish(code));
  });
}

/** A file's text at a commit (`git show SHA:PATH`, PATH from the repository's top), or undefined. */
export async function fileAtCommit(repo: string, sha: string, path: string): Promise<string | undefined> {
  const r = await git(repo, ['show', `${sha}:${path}`]);
  return r.ok ? r.out : undefined;
}
