// Which engine produced a result. The version alone does not say: results committed from a checkout are
// "produced on the commit they name", and a matrix can reuse cells measured on several commits. The
// commit is read from the checkout the engine runs from (the CLI, `uses: ./`); with files the engine
// runs (dist, adapters, cases) changed since, the commit alone is not the code, and `modified` says so.
// An action downloaded by the runner is no checkout: GITHUB_ACTION_REPOSITORY@GITHUB_ACTION_REF names it.
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { actionRoot } from '../paths.js';

export interface EngineBuild {
  /** The commit of the checkout the engine ran from. */
  commit?: string;
  /** Files the engine runs (dist/, adapters/, cases/) differ from that commit. */
  modified?: boolean;
  /** The action as the workflow named it (`owner/repo@ref`), when it ran as an action and not from a checkout. */
  ref?: string;
}

type Git = (args: string[]) => string | undefined;

const runGit =
  (root: string): Git =>
  (args) => {
    // Only git's own variables matter; the engine's environment (tokens, inputs) is not git's business.
    const r = spawnSync('git', ['-C', root, ...args], {
      encoding: 'utf8',
      timeout: 10_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/' },
    });
    return r.status === 0 ? r.stdout.trim() : undefined;
  };

const same = (a: string, b: string) => {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
};

/** The engine's build as seen from `root`; `git` and `env` are parameters for tests. */
export function engineBuild(
  root: string = actionRoot(),
  env: NodeJS.ProcessEnv = process.env,
  git: Git = runGit(root),
): EngineBuild {
  const out: EngineBuild = {};
  // The root must be the top of its own checkout: an engine copied into a team's repository (a vendored
  // action folder) would otherwise name the team's commit.
  const top = git(['rev-parse', '--show-toplevel']);
  const commit = top && same(top, root) ? git(['rev-parse', 'HEAD']) : undefined;
  if (commit && /^[0-9a-f]{40}$/.test(commit)) {
    out.commit = commit;
    const changed = git(['status', '--porcelain', '--', 'dist', 'adapters', 'cases']);
    if (changed === undefined || changed !== '') out.modified = true;
  }
  const repo = env.GITHUB_ACTION_REPOSITORY;
  const ref = env.GITHUB_ACTION_REF;
  if (!out.commit && repo && ref) out.ref = `${repo}@${ref}`;
  return out;
}

let cached: EngineBuild | undefined;
/** engineBuild() of this process, found once. */
export const thisEngineBuild = (): EngineBuild => (cached ??= engineBuild());
