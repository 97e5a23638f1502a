// The trial's workspace as a real project: a git repository with one commit of the case's files, so a
// harness that looks for its project root (the folder holding .git) finds the workspace, not `/`. Git runs
// without the host's configuration, hooks, templates or network, with a fixed author and date, so every
// trial of a case gets the same commit. Where git is missing the trial still runs, and says so.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

/** What became of the workspace repository. */
export type WorkspaceRepo =
  | { state: 'created'; commit: string }
  | { state: 'skipped'; reason: string }
  | { state: 'unavailable'; reason: string };

/** Fixed identity and time: the commit is the same on every machine and every run. */
const IDENTITY = { name: 'Project Owner', email: 'owner@workspace.invalid', date: '2025-01-01T00:00:00Z' };

/** `-c` settings that override anything a config file could say (hooks, signing, line endings, fsmonitor). */
const SETTINGS = [
  'init.defaultBranch=main',
  'core.hooksPath=/dev/null',
  'core.autocrlf=false',
  'core.fsmonitor=false',
  'commit.gpgSign=false',
  'protocol.allow=never',
  `user.name=${IDENTITY.name}`,
  `user.email=${IDENTITY.email}`,
];

/** The environment of every git call: no system or global config, HOME of the trial, no prompts. */
export function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: IDENTITY.name,
    GIT_AUTHOR_EMAIL: IDENTITY.email,
    GIT_AUTHOR_DATE: IDENTITY.date,
    GIT_COMMITTER_NAME: IDENTITY.name,
    GIT_COMMITTER_EMAIL: IDENTITY.email,
    GIT_COMMITTER_DATE: IDENTITY.date,
  };
}

/** The argv of one git call in `cwd`, settings first. */
export function gitArgs(args: string[]): string[] {
  return [...SETTINGS.flatMap((s) => ['-c', s]), ...args];
}

function git(args: string[], cwd: string, home: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', gitArgs(args), { cwd, env: gitEnv(home), timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) {
        const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
        reject(
          new Error(missing ? 'git is not installed' : `git ${args[0]}: ${stderr.trim() || err.message}`),
        );
      } else resolve(stdout.trim());
    });
  });
}

/**
 * Makes `workspace` a git repository with one commit of its files. Skipped when the case asks for no
 * repository or brings its own `.git`; `unavailable` (with the reason) when git is missing or fails.
 */
export async function initWorkspaceRepo(
  workspace: string,
  home: string,
  wanted: boolean,
): Promise<WorkspaceRepo> {
  if (!wanted) return { state: 'skipped', reason: 'the case sets world.git: false' };
  const own = existsSync(join(workspace, '.git'));
  if (own && isRepository(join(workspace, '.git')))
    return { state: 'skipped', reason: 'the case brings its own .git' };
  // A `.git` of a few files (a HEAD, a config) is no repository git can use: a commit or checkout there
  // fails ("not a git repository"). The repository is made around them; init keeps what the case wrote.
  try {
    // An empty template: no sample hooks, no description file, nothing but the repository itself.
    await git(['init', '-q', '--template=', '.'], workspace, home);
    await git(['add', '-A'], workspace, home);
    await git(['commit', '-q', '--no-verify', '--allow-empty', '-m', 'Initial commit'], workspace, home);
    return { state: 'created', commit: await git(['rev-parse', 'HEAD'], workspace, home) };
  } catch (e) {
    // A half-made repository is not the world the case describes: the workspace goes back to plain files
    // (the case's own .git files, if it brought some, stay as it wrote them).
    if (!own) await rm(join(workspace, '.git'), { recursive: true, force: true });
    return { state: 'unavailable', reason: (e as Error).message };
  }
}

/** A git folder git can use: HEAD, objects and refs (what `git init` makes). */
const isRepository = (dir: string): boolean =>
  ['HEAD', 'objects', 'refs'].every((name) => existsSync(join(dir, name)));
