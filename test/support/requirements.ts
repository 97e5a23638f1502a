// What some test groups need that a fresh machine lacks (Debian, Node 20, `npm ci`: the README's two
// commands): bubblewrap, a Docker daemon and its image, the real harness installs. Without it a group
// skips with one line saying what is missing and how to get it, printed on stderr (the default
// reporter does not name skipped tests) and carried in the group's name. The variable a requirement
// names (HR_REQUIRE_BWRAP=1, HR_REQUIRE_DOCKER=1: .ci/run sets them) makes the absence a failure, so CI
// cannot go green by skipping. No vitest import: test/support/docker.ts uses this, and the docker
// fixtures bundle that into plain node scripts.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { which } from '../../src/runner/contain/host.js';

/** Something this machine lacks: what, and the command or step that provides it. */
export interface Missing {
  what: string;
  fix: string;
}

/**
 * The one-line reason `group` skips here, or undefined when nothing is `missing`. With
 * `requireVar`=1 a missing requirement throws instead (the test file fails, naming what is missing).
 */
export function skipReason(
  group: string,
  requireVar: string,
  missing: Missing | undefined,
): string | undefined {
  if (!missing) return undefined;
  if (process.env[requireVar] === '1') {
    throw new Error(`${requireVar}=1 but ${group} cannot run: ${missing.what} (${missing.fix})`);
  }
  return announce(
    group,
    `skipped: ${missing.what} — ${missing.fix}, or set ${requireVar}=1 to make this a failure`,
  );
}

/**
 * For groups that run only when asked (`optInVar`=1: slow, or they install ~1 GB): the reason `group`
 * skips, or undefined when asked for.
 */
export function optInReason(group: string, optInVar: string, what: string): string | undefined {
  return process.env[optInVar] === '1'
    ? undefined
    : announce(group, `skipped: ${what} — set ${optInVar}=1 to run it`);
}

/** A group's name with the reason it skips, if it does. */
export const titled = (title: string, reason: string | undefined) =>
  reason ? `${title} (${reason})` : title;

function announce(group: string, reason: string): string {
  console.warn(`${group}: ${reason}`);
  return reason;
}

/**
 * Why the contained process runner cannot start a sandbox here: no bubblewrap (looked for as the runner
 * does: PATH, then /usr/bin/bwrap), or one that cannot make its namespaces (no user namespaces for a
 * user other than root).
 */
export function bwrapMissing(): Missing | undefined {
  if (process.platform !== 'linux')
    return { what: `no bubblewrap on ${process.platform}`, fix: 'run on Linux' };
  const bwrap = which('bwrap') ?? (existsSync('/usr/bin/bwrap') ? '/usr/bin/bwrap' : undefined);
  if (!bwrap) return { what: 'bubblewrap not found', fix: 'apt-get install bubblewrap' };
  const r = spawnSync(bwrap, ['--dev-bind', '/', '/', '--unshare-pid', 'true'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (r.status === 0) return undefined;
  const err = (r.stderr || String(r.error ?? `exit ${r.status}`)).trim().split('\n')[0];
  return {
    what: `bwrap cannot start a sandbox here (${err})`,
    fix: 'run as root, or allow unprivileged user namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns=0)',
  };
}

/** The contained process runner's groups: skip without a usable bubblewrap, fail with HR_REQUIRE_BWRAP=1. */
export const bwrapSkipReason = (group: string) => skipReason(group, 'HR_REQUIRE_BWRAP', bwrapMissing());

/** The real harnesses' groups: only with HR_REAL_HARNESSES=1, as .ci/run sets it. */
export const realHarnessSkipReason = (group: string) =>
  optInReason(
    group,
    'HR_REAL_HARNESSES',
    'the real harnesses run only when asked (the pinned installs, ~1.6 GB, are made on first use or by node scripts/install-harnesses.mjs claude-code codex pi)',
  );

/**
 * The contained runner's groups that check what it does as root (it hands the trial folders to a
 * sandbox uid): root (HR_REQUIRE_ROOT=1 makes its absence a failure, CI runs as root) and a usable bwrap.
 */
export function rootBwrapSkipReason(group: string): string | undefined {
  if (process.getuid?.() !== 0)
    return skipReason(group, 'HR_REQUIRE_ROOT', {
      what: 'not running as root',
      fix: 'run the tests as root',
    });
  return bwrapSkipReason(group);
}
