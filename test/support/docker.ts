// What the docker tests share: the image they run, whether they can run here (and the loud failure under
// HR_REQUIRE_DOCKER=1, as in CI: test/support/requirements.ts), and a trial's four folders made by hand. No vitest import: the docker
// fixtures (test/fixtures/docker/*.ts) bundle this file into plain node scripts.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Docker from 'dockerode';
import { dockerReachable } from '../../src/runner/docker/daemon.js';
import { DEFAULT_IMAGE } from '../../src/runner/docker/options.js';
import type { TrialDirs } from '../../src/world/trial-dirs.js';
import { type Missing, skipReason } from './requirements.js';

export const IMAGE = process.env.HR_DOCKER_IMAGE ?? DEFAULT_IMAGE;

/**
 * Why the docker tests of `suite` cannot run on this machine (no daemon, no image), or undefined when
 * they can. Says so on stderr; with HR_REQUIRE_DOCKER=1 a reason is an error instead of a skip
 * (test/support/requirements.ts).
 */
export async function dockerSkipReason(suite: string): Promise<string | undefined> {
  return skipReason(suite, 'HR_REQUIRE_DOCKER', await dockerMissing());
}

async function dockerMissing(): Promise<Missing | undefined> {
  const unreachable = await dockerReachable();
  if (unreachable)
    return { what: unreachable, fix: 'bash scripts/docker-setup.sh && bash scripts/docker-image.sh' };
  try {
    await new Docker().getImage(IMAGE).inspect();
  } catch {
    return { what: `image ${IMAGE} is missing`, fix: 'bash scripts/docker-image.sh' };
  }
  return undefined;
}

/** A trial's folders under `root` (workspace, home, tmp, bin), made now. */
export function trialDirsAt(root: string): TrialDirs {
  const dirs = {
    root,
    workspace: path.join(root, 'workspace'),
    home: path.join(root, 'home'),
    tmp: path.join(root, 'tmp'),
    bin: path.join(root, 'bin'),
  };
  for (const d of [dirs.workspace, dirs.home, dirs.tmp, dirs.bin]) mkdirSync(d, { recursive: true });
  return dirs;
}
