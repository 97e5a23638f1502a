// A harness install (npm install with the package's lifecycle scripts, install.command, install.warm)
// runs code the harness's authors wrote before any trial sandbox exists. Where bubblewrap works (the
// process runner's probe, host.ts), each step runs in a sandbox: the network stays (it must reach the
// registry), but it sees only the install prefix (writable), Node.js, read-only system folders, a private
// HOME and /tmp and the user's .npmrc; not the workspace, the runner's temp folder, the engine's files, or
// the host's processes (a fresh pid namespace: no /proc/PID/environ of the action holding the token).
// When the engine is root, the step runs as the trials' unprivileged uid (setpriv), on folders handed to
// that uid for the step and back to root after: uid 0 without capabilities still reads every root-owned
// file of the read-only system folders (/etc/shadow, root's keys).
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readlinkSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { InstallSandbox, InstallStep } from '../../adapters/install.js';
import { userNpmrc } from '../../adapters/npmrc.js';
import { chownTreeSync } from '../child.js';
import { nodePrefix, passableParents } from './bwrap.js';
import type { HostPlan } from './host.js';
import { which } from './host.js';

const SYSTEM_DIRS = ['/usr', '/etc', '/opt'];
const SYSTEM_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** Where the step's private HOME is, inside the sandbox. */
export const INSTALL_HOME = '/home/install';
/** Where the user's .npmrc appears inside (not at its host path: no folder above it is made). */
export const USER_NPMRC_IN_SANDBOX = '/run/npm/userconfig';

export interface InstallSandboxInput {
  bwrap: string;
  /**
   * The engine runs as root: no user namespace; the step runs as this unprivileged uid:gid (setpriv),
   * its writable folders and HOME handed to it by the caller.
   */
  root?: { uid: number; gid: number };
  step: InstallStep;
  /** Host folder bound as the private HOME (made and removed by the caller). */
  home: string;
  /** The user's .npmrc as the step reads it (default: the file itself; root mode: a copy the uid owns). */
  userNpmrc?: string;
}

/** /etc/resolv.conf is often a link into /run (systemd-resolved), which the sandbox does not show. */
function resolvConfBinds(): string[] {
  const f = '/etc/resolv.conf';
  if (!existsSync(f) || !lstatSync(f).isSymbolicLink()) return [];
  const real = realpathSync(f);
  return real.startsWith('/etc/') ? [] : ['--ro-bind', real, real];
}

/** The folder of a command run by name or path, when it is not under a system folder already bound. */
function commandDir(cmd: string): string | undefined {
  const path = isAbsolute(cmd) ? cmd : which(cmd);
  if (!path) return undefined;
  const dir = dirname(resolve(path));
  return SYSTEM_DIRS.some((s) => dir === s || dir.startsWith(`${s}/`)) ? undefined : dir;
}

/** Pure but for lstat/realpath: the bwrap command line of one install step. */
export function installBwrapArgs(i: InstallSandboxInput): string[] {
  const a = ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-uts'];
  // As root, the capabilities stay until setpriv below has changed the uid (it needs CAP_SETUID); the
  // uid change clears them and the bounding set keeps them from coming back.
  if (!i.root) a.push('--unshare-user', '--cap-drop', 'ALL');
  for (const d of SYSTEM_DIRS) a.push('--ro-bind-try', d, d);
  for (const l of SYSTEM_LINKS) {
    if (!existsSync(l)) continue;
    if (lstatSync(l).isSymbolicLink()) a.push('--symlink', readlinkSync(l), l);
    else a.push('--ro-bind', l, l);
  }
  a.push(...resolvConfBinds());
  a.push('--ro-bind', nodePrefix(), nodePrefix());
  const cmdDir = commandDir(i.step.cmd);
  if (cmdDir) a.push('--ro-bind', cmdDir, cmdDir);
  a.push('--proc', '/proc', '--dev', '/dev', '--perms', '1777', '--tmpfs', '/tmp');
  const userrc = i.userNpmrc ?? userNpmrc(i.step.env);
  const readOnly = i.step.readOnly.filter((p) => existsSync(p));
  const dests = [
    ...readOnly,
    ...i.step.writable,
    INSTALL_HOME,
    ...(existsSync(userrc) ? [USER_NPMRC_IN_SANDBOX] : []),
  ];
  a.push(...passableParents(dests, [...SYSTEM_DIRS, nodePrefix(), ...(cmdDir ? [cmdDir] : [])]));
  for (const p of readOnly) a.push('--ro-bind', p, p);
  // The user's .npmrc (the workflow's own steps wrote it: setup-node's registry-url) applies as outside.
  if (existsSync(userrc)) a.push('--ro-bind', userrc, USER_NPMRC_IN_SANDBOX);
  for (const p of i.step.writable) a.push('--bind', p, p);
  a.push('--bind', i.home, INSTALL_HOME);
  // The sandbox's own root (where bwrap made the folders above each bound path) read-only too: a write
  // anywhere but the prefix, HOME and /tmp (both private, removed after) fails.
  a.push('--remount-ro', '/', '--chdir', i.step.cwd, '--');
  if (i.root)
    a.push(
      'setpriv',
      `--reuid=${i.root.uid}`,
      `--regid=${i.root.gid}`,
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      '--',
    );
  return a;
}

/** The environment inside: the step's, with a private HOME and /tmp, and the user's .npmrc named. */
export function installSandboxEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // Any spelling of these two would compete with the sandbox's own (npm reads npm_config_* in any case).
  const kept = Object.entries(env).filter(([k]) => !/^npm_config_(userconfig|cache)$/i.test(k));
  return {
    ...Object.fromEntries(kept),
    HOME: INSTALL_HOME,
    TMPDIR: '/tmp',
    npm_config_userconfig: USER_NPMRC_IN_SANDBOX,
    npm_config_cache: join(INSTALL_HOME, '.npm'),
  };
}

/**
 * The install sandbox of a host plan: contained when the plan is (bwrap starts here), else undefined and
 * the caller records why installs ran uncontained.
 */
export function installSandboxOf(plan: HostPlan): InstallSandbox | undefined {
  if (!plan.contained) return undefined;
  const root = plan.mode.kind === 'root' ? { uid: plan.mode.uid, gid: plan.mode.gid } : undefined;
  return {
    mechanism:
      `${plan.mechanism.split(',')[0]}: install prefix writable, no workspace, own pid namespace` +
      (root ? `, uid ${root.uid}` : ''),
    wrap(step: InstallStep) {
      const home = mkdtempSync(join(tmpdir(), 'hr-install-home-'));
      let userrc: string | undefined;
      if (root) {
        // The user's .npmrc is often 0600 root's: the step reads a copy its uid owns, in its private HOME.
        const rc = userNpmrc(step.env);
        if (existsSync(rc)) {
          userrc = join(home, '.npmrc-user');
          copyFileSync(rc, userrc);
        }
        for (const d of [home, ...step.writable]) chownTreeSync(d, root.uid, root.gid);
      }
      return {
        cmd: plan.bwrap,
        args: [
          ...installBwrapArgs({
            bwrap: plan.bwrap,
            ...(root ? { root } : {}),
            step,
            home,
            ...(userrc ? { userNpmrc: userrc } : {}),
          }),
          step.cmd,
          ...step.args,
        ],
        env: installSandboxEnv(step.env),
        cleanup: () => {
          // The cache is root's again: what the step wrote is not the trials' uid's to change.
          if (root) for (const d of step.writable) if (existsSync(d)) chownTreeSync(d, 0, 0);
          rmSync(home, { recursive: true, force: true });
        },
      };
    },
  };
}
