// A harness install (npm install with the package's lifecycle scripts, install.command, install.warm)
// runs code the harness's authors wrote before any trial sandbox exists. Where bubblewrap works (the
// process runner's probe, host.ts), each step runs in a sandbox: the network stays (it must reach the
// registry), but it sees only the install prefix (writable), Node.js, read-only system folders, a private
// HOME and /tmp and the user's .npmrc; not the workspace, the runner's temp folder, the engine's files, or
// the host's processes (a fresh pid namespace: no /proc/PID/environ of the action holding the token).
import { existsSync, lstatSync, mkdtempSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { InstallSandbox, InstallStep } from '../../adapters/install.js';
import { userNpmrc } from '../../adapters/npmrc.js';
import { nodePrefix } from './bwrap.js';
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
  /** The engine runs as root: no user namespace; the step keeps uid 0 but no capability. */
  root: boolean;
  step: InstallStep;
  /** Host folder bound as the private HOME (made and removed by the caller). */
  home: string;
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
  if (!i.root) a.push('--unshare-user');
  a.push('--cap-drop', 'ALL');
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
  for (const p of i.step.readOnly) if (existsSync(p)) a.push('--ro-bind', p, p);
  // The user's .npmrc (the workflow's own steps wrote it: setup-node's registry-url) applies as outside.
  const userrc = userNpmrc(i.step.env);
  if (existsSync(userrc)) a.push('--ro-bind', userrc, USER_NPMRC_IN_SANDBOX);
  for (const p of i.step.writable) a.push('--bind', p, p);
  a.push('--bind', i.home, INSTALL_HOME);
  // The sandbox's own root (where bwrap made the folders above each bound path) read-only too: a write
  // anywhere but the prefix, HOME and /tmp (both private, removed after) fails.
  a.push('--remount-ro', '/', '--chdir', i.step.cwd, '--');
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
  const root = plan.mode.kind === 'root';
  return {
    mechanism: `${plan.mechanism.split(',')[0]}: install prefix writable, no workspace, own pid namespace`,
    wrap(step: InstallStep) {
      const home = mkdtempSync(join(tmpdir(), 'hr-install-home-'));
      return {
        cmd: plan.bwrap,
        args: [...installBwrapArgs({ bwrap: plan.bwrap, root, step, home }), step.cmd, ...step.args],
        env: installSandboxEnv(step.env),
        cleanup: () => rmSync(home, { recursive: true, force: true }),
      };
    },
  };
}
