// Stage "seed": the trial's world written into its folders before the harness starts: the case's
// workspace and HOME files (a git repository), its memory entries and pre-installed skills where the
// adapter keeps them, the adapter configuration's files (and its MCP client's), the `svc` CLI.

import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type FileContent, joinFiles } from '../../adapters/files.js';
import type { Case } from '../../cases/schema.js';
import { UserError } from '../../errors.js';
import { actionRoot } from '../../paths.js';
import type { GithubState } from '../../spec/github-state.js';
import { initWorkspaceRepo } from '../../world/git-repo.js';
import {
  gitRootOf,
  hasGitRemote,
  hostGh,
  hostGhBinary,
  installGhShim,
  seedGitRemote,
} from '../../world/github-world.js';
import { packageFiles } from '../../world/services-routes.js';
import { renderDeep } from '../../world/template.js';
import type { TrialDirs } from '../../world/trial-dirs.js';
import { installNodeShim, writeInside, writeWorld } from '../../world/trial-dirs.js';
import { TRIAL_PROGRAMS } from '../harness-view.js';
import { pathKey, type RenderedTrial } from './render.js';
import type { TrialScene } from './types.js';

/** Writes `text` at a snapshot key (`ws/…`, `home/…`, `tmp/…`), inside that trial folder. */
async function writeAtKey(key: string, dirs: TrialDirs, text: string): Promise<void> {
  const [root, ...rest] = key.split('/');
  const base = root === 'ws' ? dirs.workspace : root === 'home' ? dirs.home : dirs.tmp;
  await writeInside(base, rest.join('/'), text);
}

/** A pre-installed skill's files, with the package.json an install would have written (name, version). */
function installedSkillFiles(skill: Case['world']['skills'][number]): Record<string, string> {
  return packageFiles({ ...skill, scripts: undefined });
}

export async function seedWorld(scene: TrialScene, r: RenderedTrial): Promise<void> {
  const { dirs, view, notices } = scene;
  const { c } = r;
  await writeWorld(dirs, c.world.files, c.world.home_files);
  // A project is a repository: the case's files are its first commit (world/git-repo.ts).
  const repo = await initWorkspaceRepo(dirs.workspace, dirs.home, c.world.git !== false);
  if (repo.state === 'unavailable')
    notices.push(
      `${c.id}: the workspace is not a git repository (${repo.reason}); the trial runs without one`,
    );
  const gh = c.world.services.github;
  if (gh) await seedGithubRemote(scene, gh, repo.state === 'created');
  await seedState(scene, r);
  await seedConfigFiles(scene, r);
  await mkdir(join(dirs.tmp, 'run'), { recursive: true, mode: 0o700 });
  // The trial's programs (`svc`, `mcp-stdio`): their bundles, read-only, run by the trial's node.
  const node = scene.input.runner.name === 'process' ? process.execPath : 'node';
  for (const name of TRIAL_PROGRAMS)
    await installNodeShim(dirs.bin, name, view.mapReadOnly(join(actionRoot(), 'dist', `${name}.js`)), node);
  if (gh) await installGh(scene);
}

/** The world's git remote behind the workspace's `origin` (a repository needed: else a notice). */
async function seedGithubRemote(
  scene: TrialScene,
  gh: GithubState,
  isRepo: boolean,
  afterSession = false,
): Promise<void> {
  const { dirs } = scene;
  if (!isRepo) {
    scene.notices.push(
      `${scene.input.loaded.case.id}: the world's GitHub has no git remote (the workspace is not a git repository)`,
    );
    return;
  }
  await seedGitRemote({
    gh,
    workspace: dirs.workspace,
    home: dirs.home,
    gitRoot: gitRootOf(dirs.root),
    endpoint: scene.endpoint.url,
    afterSession,
  });
}

/**
 * `gh`: the host's, in the folders the trial sees (the process runner binds /usr read-only), or where
 * another runner (docker) shows the host's binary read-only (engine/harness-view.ts hostTools).
 */
async function installGh(scene: TrialScene): Promise<void> {
  const { dirs, view } = scene;
  const shown = hostGhBinary();
  const ghBin =
    scene.input.runner.name === 'process' ? hostGh(view.systemPath) : shown && view.mapReadOnly(shown);
  if (ghBin) await installGhShim(dirs.bin, ghBin);
}

/**
 * A second session whose world gained a GitHub the first had none of (`next_session.services.github`):
 * its remote and `gh`, as seedWorld gives them, on the repository the first session left.
 */
export async function seedGithubAnew(scene: TrialScene, gh: GithubState): Promise<void> {
  const { dirs } = scene;
  const isRepo = existsSync(join(dirs.workspace, '.git'));
  const hasOrigin = isRepo && (await hasGitRemote(dirs.workspace, dirs.home));
  if (!hasOrigin) await seedGithubRemote(scene, gh, isRepo, true);
  await installGh(scene);
}

/** The case's memory entries and pre-installed skills, where the adapter says the harness keeps them. */
async function seedState(scene: TrialScene, r: RenderedTrial): Promise<void> {
  const { dirs, notices, input } = scene;
  const { c, keys } = r;
  if (c.world.memory.length) {
    if (!keys.memory[0]) {
      notices.push(`${c.id}: the adapter declares no memory file; the case's memory entries were not placed`);
    } else {
      await writeAtKey(keys.memory[0], dirs, `${c.world.memory.map((m) => `- ${m}`).join('\n')}\n`);
    }
  }
  if (!c.world.skills.length) return;
  if (!keys.skills) {
    throw new UserError(
      `${input.loaded.file}: world.skills pre-installs ${c.world.skills.map((k) => k.name).join(', ')}, but ${input.adapter.file} declares no state.skills_dir`,
      'declare the folder the harness installs skills into as state.skills_dir, or run the case against an adapter that has one',
    );
  }
  for (const skill of c.world.skills) {
    for (const [rel, text] of Object.entries(installedSkillFiles(skill)))
      await writeAtKey(`${keys.skills}/${skill.name}/${rel}`, dirs, text);
  }
}

/** The adapter configuration's files and its MCP client's, rendered; one path given by both is joined. */
async function seedConfigFiles(scene: TrialScene, r: RenderedTrial): Promise<void> {
  const { adapter, config } = scene.input;
  const rendered = (what: string, entries: Record<string, unknown>): [string, FileContent][] =>
    Object.entries(entries).map(([pathT, content]) => [
      pathKey(scene.view, adapter.file, r.ra, pathT, what),
      typeof content === 'string' ? r.ra(content) : renderDeep(content as Record<string, unknown>, r.vars),
    ]);
  let joined: Map<string, FileContent>;
  try {
    joined = joinFiles(rendered('configs file', config.files), rendered('mcp file', r.mcp?.files ?? {}));
  } catch (e) {
    throw new UserError(
      `${adapter.file}: ${(e as Error).message}`,
      'give both the same kind: text, or an object',
    );
  }
  for (const [key, content] of joined)
    await writeAtKey(
      key,
      scene.dirs,
      typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`,
    );
}
