// What the contained runner needs from the machine, found out once per run: bwrap (and, as root,
// setpriv), whether user namespaces are allowed, cgroups, and whether a tmpfs can be mounted for the
// trial folders. With `setup`, the action fixes what it can on a GitHub-hosted runner (install
// bubblewrap, allow unprivileged user namespaces) with passwordless sudo; the CLI only says what to do.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { processAlive } from '../shared.js';
import type { BwrapMode } from './bwrap.js';
import { type CgroupPlan, planCgroups, sweepCgroups } from './cgroup.js';
import type { LimitMechanisms } from './limits.js';

/** The uid:gid a trial runs as when the engine is root (nobody; override with HR_SANDBOX_UID/GID). */
export const SANDBOX_UID = Number(process.env.HR_SANDBOX_UID ?? 65534);
export const SANDBOX_GID = Number(process.env.HR_SANDBOX_GID ?? 65534);

const APPARMOR_USERNS = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns';

export type HostPlan =
  | {
      contained: true;
      bwrap: string;
      mode: BwrapMode;
      mechanism: string;
      cgroups?: CgroupPlan;
      tools: { setpriv: string; prlimit: string };
      /** How the trial folders get their size cap (a tmpfs mounted by us or through sudo). */
      diskMount: 'direct' | 'sudo' | 'none';
      via: LimitMechanisms;
      notes: string[];
    }
  | {
      contained: false;
      reason: string;
      notes: string[];
      /**
       * The mechanism is there (bwrap, the tools) but no sandbox would start, even after retries: a
       * failure, not an absence, so the runner stops instead of falling back (runner.ts ensurePlan).
       */
      failed?: boolean;
    };

/** Injectable for tests: the sandbox start probe and the wait between its attempts. */
export interface ProbeDeps {
  smoke?: (bwrap: string, mode: BwrapMode) => Promise<{ ok: boolean; err: string }>;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Waits before the 2nd, 3rd and 4th sandbox start. A start can fail for a moment (a neighbour's mount
 * going away while bwrap binds, a fork limit hit by another job): a run must not turn uncontained on one.
 */
export const SMOKE_RETRY_DELAYS_MS = [250, 1000, 3000];

export function which(cmd: string): string | undefined {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    const p = join(dir, cmd);
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

const execFileAsync = promisify(execFile);
const isRoot = () => process.getuid?.() === 0;
const canSudo = async () => !isRoot() && (await run(['sudo', '-n', 'true'], 10_000)).ok;
const asRoot = (cmd: string[]) => (isRoot() ? cmd : ['sudo', '-n', ...cmd]);

/**
 * A helper program, without blocking the event loop: the probes run side by side, and while the engine
 * loads the adapter and the cases (runTargets starts the plan first).
 */
async function run(cmd: string[], timeoutMs = 120_000): Promise<{ ok: boolean; err: string; out: string }> {
  try {
    const { stdout } = await execFileAsync(cmd[0]!, cmd.slice(1), {
      timeout: timeoutMs,
      // Nothing of the workflow's environment goes to these helpers beyond what apt needs.
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', DEBIAN_FRONTEND: 'noninteractive' },
    });
    return { ok: true, err: '', out: String(stdout).trim() };
  } catch (e) {
    // execFile's error carries the streams of a command that ran and failed.
    const { stderr, stdout, message } = e as { stderr?: unknown; stdout?: unknown; message: string };
    return { ok: false, err: (String(stderr ?? '') || message).trim(), out: String(stdout ?? '').trim() };
  }
}

function mountCommand(dir: string, bytes: number, uid: number, gid: number, how: 'direct' | 'sudo') {
  // The source names our pid, so a later run can tell a leftover of a killed engine (sweepMounts).
  const cmd = [
    'mount',
    '-t',
    'tmpfs',
    '-o',
    `size=${bytes},mode=0700,uid=${uid},gid=${gid}`,
    `hr-trial-${process.pid}`,
    dir,
  ];
  return split(how === 'sudo' ? ['sudo', '-n', ...cmd] : cmd);
}

// Lazy: a reader still holding a file must not make teardown fail.
const unmountCommand = (dir: string, how: 'direct' | 'sudo') =>
  split(how === 'sudo' ? ['sudo', '-n', 'umount', '-l', dir] : ['umount', '-l', dir]);

/**
 * Mounts a size-capped tmpfs on `dir` (owned by uid:gid, mode 0700), without blocking the event loop,
 * which serves the other trials' endpoints while `mount` runs (10–40 ms a trial under load, twice with
 * the unmount).
 */
export async function mountTmpfsAsync(
  dir: string,
  bytes: number,
  uid: number,
  gid: number,
  how: 'direct' | 'sudo',
): Promise<void> {
  await execFileAsync(...mountCommand(dir, bytes, uid, gid, how));
}

export function unmount(dir: string, how: 'direct' | 'sudo'): void {
  spawnSync(...unmountCommand(dir, how), { stdio: 'ignore' });
}

export async function unmountAsync(dir: string, how: 'direct' | 'sudo'): Promise<void> {
  await execFileAsync(...unmountCommand(dir, how)).catch(() => {});
}

const split = (c: string[]): [string, string[]] => [c[0]!, c.slice(1)];

/**
 * Unmounts and removes trial tmpfs mounts whose engine is gone (SIGKILLed before its teardown): the
 * kernel keeps a mount after its owner dies, so without this every killed run would keep up to
 * disk_bytes of memory per trial.
 */
export function sweepMounts(how: 'direct' | 'sudo'): number {
  let text = '';
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return 0;
  }
  let swept = 0;
  for (const line of text.split('\n')) {
    const [left, right] = line.split(' - ');
    const m = right ? /^tmpfs hr-trial-(\d+) /.exec(right) : null;
    if (!m || processAlive(Number(m[1]))) continue;
    const point = (left!.split(' ')[4] ?? '').replace(/\\(\d{3})/g, (_, o) =>
      String.fromCharCode(parseInt(o, 8)),
    );
    if (!point.startsWith('/')) continue;
    unmount(point, how);
    rmSync(point, { recursive: true, force: true });
    swept++;
  }
  return swept;
}

/** Removes endpoint socket folders (`$TMPDIR/hr-ep-PID-XXXXXX`) of engines that are gone. */
function sweepSocketDirs(): void {
  let names: string[] = [];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^hr-ep-(\d+)-/.exec(name);
    if (m && !processAlive(Number(m[1]))) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

async function tmpfsWorks(how: 'direct' | 'sudo'): Promise<boolean> {
  const d = await mkdtemp(join(tmpdir(), 'hr-tmpfs-probe-'));
  try {
    await mountTmpfsAsync(d, 1024 * 1024, process.getuid?.() ?? 0, process.getgid?.() ?? 0, how);
    await unmountAsync(d, how);
    return true;
  } catch {
    return false;
  } finally {
    await rm(d, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * A real sandbox start with the same namespace flags the trials use; its error is the reason. It binds
 * /usr (and the root's links into it), not all of /: a recursive bind of / copies every mount of the
 * machine, and one going away meanwhile (another run's trial folder) failed the probe.
 */
function smoke(bwrap: string, mode: BwrapMode): Promise<{ ok: boolean; err: string }> {
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts'];
  if (mode.kind === 'userns') args.push('--unshare-user');
  args.push('--ro-bind', '/usr', '/usr');
  for (const l of ['/bin', '/sbin', '/lib', '/lib64'])
    if (existsSync(l))
      lstatSync(l).isSymbolicLink()
        ? args.push('--symlink', readlinkSync(l), l)
        : args.push('--ro-bind', l, l);
  args.push('--proc', '/proc', '--dev', '/dev', '--');
  if (mode.kind === 'root')
    args.push('setpriv', `--reuid=${mode.uid}`, `--regid=${mode.gid}`, '--clear-groups', '--');
  return run([bwrap, ...args, 'true'], 10_000);
}

/** The sandbox start, tried again after each delay while it fails; the last error, and how many tries. */
export async function smokeWithRetries(
  bwrap: string,
  mode: BwrapMode,
  deps: ProbeDeps = {},
): Promise<{ ok: boolean; err: string; attempts: number }> {
  const probe = deps.smoke ?? smoke;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let last = { ok: false, err: '' };
  for (let i = 0; i <= SMOKE_RETRY_DELAYS_MS.length; i++) {
    if (i > 0) await sleep(SMOKE_RETRY_DELAYS_MS[i - 1]!);
    last = await probe(bwrap, mode);
    if (last.ok) return { ...last, attempts: i + 1 };
  }
  return { ...last, attempts: SMOKE_RETRY_DELAYS_MS.length + 1 };
}

/** How the trial folders get their size cap: a tmpfs mounted by us (root), through sudo, or none. */
async function diskMountOf(sudo: boolean): Promise<'direct' | 'sudo' | 'none'> {
  if (isRoot()) return (await tmpfsWorks('direct')) ? 'direct' : 'none';
  return sudo && (await tmpfsWorks('sudo')) ? 'sudo' : 'none';
}

export async function planHost(opts: { setup: boolean }, deps: ProbeDeps = {}): Promise<HostPlan> {
  const notes: string[] = [];
  if (process.platform !== 'linux')
    return { contained: false, reason: `no namespaces on ${process.platform} (Linux only)`, notes };
  const sudo = await canSudo();
  let bwrap = which('bwrap');
  if (!bwrap && opts.setup && (isRoot() || sudo)) {
    const install = () => run(asRoot(['apt-get', 'install', '-y', '-qq', 'bubblewrap']));
    let r2 = await install();
    if (!r2.ok) {
      // A fresh runner's package lists may be stale: refresh once, then try again.
      await run(asRoot(['apt-get', 'update', '-qq']));
      r2 = await install();
    }
    if (r2.ok) notes.push(`installed bubblewrap${isRoot() ? '' : ' with sudo'}`);
    bwrap = which('bwrap') ?? (existsSync('/usr/bin/bwrap') ? '/usr/bin/bwrap' : undefined);
  }
  if (!bwrap)
    return {
      contained: false,
      reason: 'bwrap not found: install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap)',
      notes,
    };
  const mode: BwrapMode = isRoot()
    ? { kind: 'root', uid: SANDBOX_UID, gid: SANDBOX_GID }
    : { kind: 'userns' };
  if (mode.kind === 'root') {
    for (const t of ['setpriv', 'prlimit'])
      if (!which(t)) return { contained: false, reason: `${t} not found: install util-linux`, notes };
  } else if (!which('prlimit')) {
    return { contained: false, reason: 'prlimit not found: install util-linux', notes };
  }
  // Ubuntu 24.04 (GitHub's ubuntu-latest) lets only AppArmor-profiled programs make user namespaces.
  if (mode.kind === 'userns' && readText(APPARMOR_USERNS) === '1') {
    if (
      opts.setup &&
      sudo &&
      (await run(['sudo', '-n', 'sysctl', '-w', 'kernel.apparmor_restrict_unprivileged_userns=0'])).ok
    )
      notes.push(
        'allowed unprivileged user namespaces (sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0)',
      );
  }
  // Independent of each other: the sandbox start, the cgroups, the tmpfs mount and bwrap's version.
  const [s, cgroups, diskMount, version] = await Promise.all([
    smokeWithRetries(bwrap, mode, deps),
    planCgroups(),
    diskMountOf(sudo),
    run([bwrap, '--version']).then((r) => (r.ok && r.out) || 'bwrap'),
  ]);
  if (!s.ok) {
    // AppArmor's restriction is an absence of the mechanism (the documented fallback), not a failure.
    const denied = mode.kind === 'userns' && readText(APPARMOR_USERNS) === '1';
    const hint = denied
      ? ': AppArmor restricts unprivileged user namespaces; run `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`'
      : '';
    return {
      contained: false,
      ...(denied ? {} : { failed: true }),
      reason: `bwrap cannot start a sandbox here (${s.attempts} attempts, last: ${s.err || 'no message'})${hint}`,
      notes,
    };
  }
  if (diskMount !== 'none') {
    const n = sweepMounts(diskMount);
    if (n) notes.push(`removed ${n} trial folder mount(s) left by a killed run`);
  }
  sweepSocketDirs();
  if (cgroups) {
    const n = await sweepCgroups(cgroups);
    if (n) notes.push(`removed ${n} trial cgroup(s) left by a killed run`);
  }
  const mechanism =
    mode.kind === 'root'
      ? `${version}, as root; the harness runs as uid ${mode.uid} without capabilities`
      : `${version}, unprivileged user namespace`;
  const cg = cgroups ? (`cgroup ${cgroups.version}` as const) : undefined;
  return {
    contained: true,
    bwrap,
    mode,
    tools: {
      setpriv: which('setpriv') ?? '/usr/bin/setpriv',
      prlimit: which('prlimit') ?? '/usr/bin/prlimit',
    },
    mechanism,
    cgroups,
    diskMount,
    via: {
      memory: cg ?? 'rlimit data',
      pids: cg ?? 'rlimit nproc',
      file_size: 'rlimit fsize',
      disk: diskMount === 'direct' ? 'tmpfs' : diskMount === 'sudo' ? 'tmpfs (sudo)' : 'none',
    },
    notes,
  };
}

function readText(p: string): string | undefined {
  try {
    return readFileSync(p, 'utf8').trim();
  } catch {
    return undefined;
  }
}
