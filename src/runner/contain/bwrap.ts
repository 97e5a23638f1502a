// The bwrap command line of one trial. Pure (no I/O beyond lstat/exists), so a test can read it.
// The view is an allow-list: the system folders and the read-only folders the engine names, read-only;
// the trial's four folders, writable; the endpoint socket's folder; a fresh /proc, /dev and /tmp.
// Not visible at all: the engine's work root and other trials' folders, the run's result and evidence,
// HOME of the account running the job, the runner's work folders.
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import type { TrialDirs } from '../../world/trial-dirs.js';
import { INIT_SOURCE, type InitSpec } from './init.js';
import type { LimitMechanisms, Limits } from './limits.js';
import { HOST_PROFILE } from './login-profile.js';

/** Where the endpoint socket's folder appears inside the sandbox. */
export const SOCKET_DIR_IN_SANDBOX = '/run/hr';

/** `root`: bwrap runs as root and drops the harness to `uid`; `userns`: an unprivileged user namespace. */
export type BwrapMode = { kind: 'root'; uid: number; gid: number } | { kind: 'userns' };

export interface BwrapInput {
  bwrap: string;
  mode: BwrapMode;
  dirs: TrialDirs;
  readOnly: string[];
  /** Host paths that must not be visible even though a read-only folder holds them (result file…). */
  hide: string[];
  socketDir: string;
  /** The trial's /etc/profile (login-profile.ts), bound over the host's; absent: the host's as it is. */
  profile?: string;
  /**
   * Absolute host paths of setpriv and prlimit: bwrap would look them up on the trial's PATH, whose
   * first entry is the trial's own bin/ (and, as root, they run before the uid is dropped).
   */
  tools: { setpriv: string; prlimit: string };
  spec: InitSpec;
  limits: Limits;
  via: LimitMechanisms;
}

const SYSTEM_DIRS = ['/usr', '/etc', '/opt'];
const SYSTEM_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** The folder holding node's bin/ (the harness and the init both need node). */
export function nodePrefix(): string {
  return dirname(dirname(realpathSync(process.execPath)));
}

/** `/a/b/c` → [`/a`, `/a/b`]: the strict ancestors, without `/tmp` (the sandbox's own tmpfs). */
function ancestors(p: string): string[] {
  const parts = p.split('/').filter(Boolean);
  return parts
    .slice(0, -1)
    .map((_, k) => `/${parts.slice(0, k + 1).join('/')}`)
    .filter((d) => d !== '/tmp');
}

/**
 * bwrap arguments making the folders above each bound path passable (0755): they exist in the sandbox
 * only as mount points, and bwrap copies the host's mode to them (0700 for a private work root, a
 * mkdtemp folder), which an unprivileged uid inside could not pass. Folders under `covered` (bound
 * themselves) are left alone.
 */
export function passableParents(dests: readonly string[], covered: readonly string[]): string[] {
  const isCovered = (d: string) => covered.some((c) => d === c || d.startsWith(`${c}/`));
  const made = new Set<string>();
  const a: string[] = [];
  for (const dest of dests)
    for (const d of ancestors(dest))
      if (!isCovered(d) && !made.has(d)) {
        made.add(d);
        a.push('--perms', '0755', '--dir', d);
      }
  return a;
}

export function bwrapArgs(i: BwrapInput): string[] {
  const a: string[] = [
    '--die-with-parent',
    // setsid: the harness cannot reach our terminal (TIOCSTI) and is its own session.
    '--new-session',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'harness',
  ];
  if (i.mode.kind === 'userns') a.push('--unshare-user', '--cap-drop', 'ALL');
  for (const d of SYSTEM_DIRS) a.push('--ro-bind-try', d, d);
  for (const l of SYSTEM_LINKS) {
    if (!existsSync(l)) continue;
    if (lstatSync(l).isSymbolicLink()) a.push('--symlink', readlinkSync(l), l);
    else a.push('--ro-bind', l, l);
  }
  if (i.profile) a.push('--ro-bind', i.profile, HOST_PROFILE);
  a.push('--ro-bind', nodePrefix(), nodePrefix());
  a.push('--proc', '/proc', '--dev', '/dev');
  // Tools that ignore TMPDIR still get a /tmp, private and capped; the trial's tmp folder is TMPDIR.
  a.push('--perms', '1777', '--size', String(i.limits.disk_bytes), '--tmpfs', '/tmp');
  a.push(
    ...passableParents(
      [...i.readOnly, i.dirs.workspace, i.dirs.home, i.dirs.tmp, i.dirs.bin],
      [...SYSTEM_DIRS, nodePrefix()],
    ),
  );
  for (const p of i.readOnly) a.push('--ro-bind-try', p, p);
  // What the engine hides (engine/harness-view.ts): credential files such as the checkout's .git/config,
  // the case library, the engine's files, results and evidence. The same list reaches every runner.
  for (const p of i.hide) {
    if (!existsSync(p)) continue;
    // Read-only: in a user namespace the harness would own (and could write) a plain tmpfs.
    if (lstatSync(p).isDirectory()) a.push('--tmpfs', p, '--remount-ro', p);
    else a.push('--ro-bind', '/dev/null', p);
  }
  for (const d of [i.dirs.workspace, i.dirs.home, i.dirs.tmp, i.dirs.bin]) a.push('--bind', d, d);
  a.push('--perms', '0755', '--dir', '/run', '--ro-bind', i.socketDir, SOCKET_DIR_IN_SANDBOX);
  a.push('--chdir', '/');
  a.push('--');
  if (i.mode.kind === 'root') {
    // Real root creates the namespaces; the harness runs as an unprivileged uid with no capabilities
    // and no way back (no_new_privs: setuid binaries such as sudo do not elevate). The init drops to
    // that uid itself (InitSpec.drop), keeping only setuid/setgid until then: a uid change marks the
    // process non-dumpable, so the harness, the same uid, cannot ptrace it (setpriv's exec would undo it).
    a.push(
      i.tools.setpriv,
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all,+setuid,+setgid',
      '--no-new-privs',
      '--',
    );
  }
  const spec: InitSpec =
    i.mode.kind === 'root' ? { ...i.spec, drop: { uid: i.mode.uid, gid: i.mode.gid } } : i.spec;
  a.push(i.tools.prlimit, `--fsize=${i.limits.file_size_bytes}`, '--core=0');
  if (i.via.pids === 'rlimit nproc') a.push(`--nproc=${i.limits.pids}`);
  if (i.via.memory === 'rlimit data') a.push(`--data=${i.limits.memory_bytes}`);
  a.push('--', process.execPath, '-e', INIT_SOURCE, '--', JSON.stringify(spec));
  return a;
}
