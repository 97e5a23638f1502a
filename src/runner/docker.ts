// The `docker` runner: one disposable container per trial, on one internal Docker network per run.
//
// Two ways to run a trial (option `warm`):
// - warm (default): containers are created and started ahead, idle, on the run's network; a trial takes
//   one, its folders are copied into the container's own slot folders (bind-mounted at /trial/…), the
//   harness is exec'd, anything left running is killed, the folders are copied back, and the container
//   is removed in the background. A container never serves a second trial. Start-up (~0.5 s on two
//   cores) happens while the previous trial runs, so a trial costs ~0.2 s more than a child process.
// - direct (`warm: 0`): a container per trial is created and started with the harness as its process
//   (under docker-init) and the trial folders bind-mounted, then removed.
//
// Confinement of one trial, either way:
// - the container sees only the trial's four folders (rw) and the launch's read-only folders
//   (`/opt/hr/ro/<n>`, read-only); never the Docker socket, nothing else of the host;
// - the run's network is `internal` (no route out); the per-trial endpoint binds to the network's
//   gateway address, the fake service hostnames resolve to it, DNS goes to it (and finds nothing); when
//   this process is root and iptables is present, a host firewall chain lets the container reach the
//   gateway only on the ports of running trials' endpoints (Docker's internal networks otherwise reach
//   every host listener on 0.0.0.0 and every host address);
// - limits: memory (no swap), CPUs, pids; all capabilities dropped; no-new-privileges; not privileged;
//   read-only root filesystem (tmpfs /tmp, /var/tmp, /run); a non-root user where possible;
// - the environment is the launch's env (built from nothing by the engine) minus workflow names that must
//   never get in (INPUT_*, ACTIONS_*, RUNNER_*, GITHUB_TOKEN, GH_TOKEN); Docker adds HOSTNAME and keeps the
//   image's own ENV defaults for names the launch does not set.
// Every container and the network carry `harness-risk.run=<runId>`; `stop()`, the SIGINT/SIGTERM handlers
// (once per process), an exit-time detached sweeper and `sweepStale()` remove them by that label.
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import {
  chmod,
  copyFile,
  lchown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readlink,
  rm,
  stat,
  symlink,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import Docker from 'dockerode';
import { UserError } from '../errors.js';
import type { ProcessOutcome } from '../evidence/types.js';
import type { Runner, SandboxView, TrialDirs, TrialLaunch } from './types.js';

export const RUN_LABEL = 'harness-risk.run';
export const TRIAL_LABEL = 'harness-risk.trial';
/** `host:pid` of the process that created the resource (lets the stale sweep spare live runs). */
export const OWNER_LABEL = 'harness-risk.owner';
export const DEFAULT_IMAGE = 'harness-risk/node:local';
export const DEFAULT_SOCKET = '/var/run/docker.sock';
/** Fake hostnames that resolve to the gateway (where the per-trial endpoint listens) inside the container. */
export const FAKE_HOSTS = ['mail.test', 'payments.test', 'registry.test', 'web.test', 'attacker.test'];
/** Sandbox paths of the trial folders and of the read-only mounts. */
export const SANDBOX_PATHS = {
  workspace: '/trial/workspace',
  home: '/trial/home',
  tmp: '/trial/tmp',
  bin: '/trial/bin',
  readOnly: '/opt/hr/ro',
} as const;
/** Environment names of the workflow that must never reach a trial. */
export const FORBIDDEN_ENV = /^(INPUT_|ACTIONS_|RUNNER_|GITHUB_TOKEN$|GH_TOKEN$)/;
/** Env names whose URL names the trial's endpoint (see docs/internals.md, "One trial"). */
const ENDPOINT_ENV = ['HR_SVC', 'HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'];
/** Signal number → name (the first name: SIGABRT, not its alias SIGIOT). */
const SIGNAL_NAMES = new Map<number, string>();
for (const [name, n] of Object.entries(os.constants.signals))
  if (!SIGNAL_NAMES.has(n)) SIGNAL_NAMES.set(n, name);
const STANDARD_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];
const TAIL_BYTES = 64 * 1024;
/** Host-side folders of a run (warm containers' slot folders) are `$TMPDIR/hr-docker-<pid>-XXXXXX`. */
const TMP_PREFIX = 'hr-docker-';
const DEFAULT_IDLE = ['/bin/sh', '-c', 'while :; do sleep 3600; done'];
const TRIAL_KEYS = ['workspace', 'home', 'tmp', 'bin'] as const;
type TrialKey = (typeof TRIAL_KEYS)[number];
const PING_TIMEOUT_MS = 5_000;
const HEARTBEAT_MS = 2_000;
const REMOVE_TIMEOUT_MS = 30_000;
/** Between SIGTERM to the harness and SIGKILL to the container (the process runner waits as long). */
const KILL_GRACE_MS = 2_000;

export interface DockerRunnerOptions {
  /** Run id; every container and the network carry `harness-risk.run=<runId>`. */
  runId: string;
  /** Image the harness runs in (default harness-risk/node:local, built by scripts/docker-image.sh). */
  image?: string;
  /** Memory limit, bytes or `512m`/`1g` (default 1g); swap is disabled. */
  memory?: string | number;
  /** CPU limit (default 1). */
  cpus?: number;
  /** Process limit (default 256). */
  pids?: number;
  /**
   * `uid:gid` inside the container. Default: when this process is not root, its own uid:gid (files
   * stay the engine's); when it is root, 1000:1000 if the image has that user (the trial folders are
   * handed to it for the run and back afterwards), else root.
   */
  user?: string;
  /** Docker socket (default: DOCKER_HOST when unix://, else /var/run/docker.sock). */
  socketPath?: string;
  /** Read-only root filesystem with tmpfs /tmp, /var/tmp, /run (default true). */
  readOnlyRootfs?: boolean;
  /** Fake hostnames mapped to the gateway (default FAKE_HOSTS). */
  hostAliases?: string[];
  /** Host firewall chain for the run's bridge when root + iptables (default true). */
  firewall?: boolean;
  /** Remove leftovers of crashed runs older than an hour during start() (default true). */
  sweepStale?: boolean;
  /** Install the once-per-process SIGINT/SIGTERM sweep (default true). */
  signalHandlers?: boolean;
  /** Where warnings go (default process.emitWarning). */
  onWarning?: (message: string) => void;
  /**
   * Warm containers kept started and idle (default 1; 0 = one container created and started per trial,
   * the harness as its own process, the trial folders bind-mounted). A warm container serves exactly one
   * trial: the harness is exec'd in it, with the trial folders copied into its own slot folders before and
   * copied back after; then it is removed.
   */
  warm?: number;
  /** Read-only folders to pre-start warm containers for during start() (e.g. the action's dist/). */
  prewarmReadOnly?: string[];
  /** Idle process of a warm container (default `/bin/sh -c 'while :; do sleep 3600; done'`). */
  idleCommand?: string[];
}

/** The process outcome plus what only a container can tell. */
export interface DockerProcessOutcome extends ProcessOutcome {
  /** Changes to the container's own filesystem outside the mounts (only with readOnlyRootfs: false). */
  container_changes?: { path: string; kind: 'modified' | 'added' | 'deleted' }[];
  /** Environment names dropped because the workflow's variables must never reach a trial. */
  dropped_env?: string[];
}

// ---------------------------------------------------------------------------------------------------
// helpers

function socketFromEnv(): string {
  const host = process.env.DOCKER_HOST;
  if (host?.startsWith('unix://')) return host.slice('unix://'.length);
  return DEFAULT_SOCKET;
}

export function parseMemory(v: string | number | undefined): number {
  if (v === undefined) return 1024 ** 3;
  if (typeof v === 'number') return Math.floor(v);
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$/i.exec(v);
  if (!m) throw new Error(`docker runner: memory "${v}" is not a size like 512m or 1g`);
  const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[m[2].toLowerCase() as ''];
  return Math.floor(Number(m[1]) * mult);
}

function shortTag(runId: string): string {
  return createHash('sha256').update(runId).digest('hex').slice(0, 10);
}

function safeName(s: string): string {
  return (
    s
      .replace(/[^a-zA-Z0-9_.-]+/g, '-')
      .replace(/^[^a-zA-Z0-9]+/, '')
      .slice(0, 60) || 'x'
  );
}

function errText(e: unknown): string {
  if (e instanceof Error) {
    const json = (e as { json?: { message?: string } }).json;
    return json?.message ?? e.message;
  }
  return String(e);
}

/** Errors that mean the daemon (or the socket) is gone, as opposed to a bad request. */
function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: string })?.code;
  if (code && ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EACCES'].includes(code))
    return true;
  const msg = errText(e);
  return /socket hang up|ECONNRESET|ECONNREFUSED|connect ENOENT|aborted/i.test(msg);
}

function within(child: string, parent: string): string | undefined {
  if (child === parent) return '';
  const rel = path.relative(parent, child);
  if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  return undefined;
}

/** Keeps the last `limit` bytes written to it. */
class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit = TAIL_BYTES) {}
  push(b: Buffer): void {
    if (b.length === 0) return;
    this.chunks.push(b);
    this.size += b.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0].length >= this.limit) {
      this.size -= this.chunks.shift()!.length;
    }
  }
  text(): string {
    let buf = Buffer.concat(this.chunks);
    if (buf.length > this.limit) {
      buf = buf.subarray(buf.length - this.limit);
      // Do not start in the middle of a UTF-8 sequence.
      let i = 0;
      while (i < 4 && i < buf.length && (buf[i] & 0xc0) === 0x80) i++;
      buf = buf.subarray(i);
    }
    return buf.toString('utf8');
  }
}

/** Splits Docker's multiplexed attach stream (8-byte frame headers) into stdout and stderr. */
class Demux extends Writable {
  private pending = Buffer.alloc(0);
  constructor(
    private readonly out: Tail,
    private readonly err: Tail,
  ) {
    super();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    while (buf.length >= 8) {
      const type = buf[0];
      const len = buf.readUInt32BE(4);
      if (type > 2 || buf[1] !== 0 || buf[2] !== 0 || buf[3] !== 0) {
        // Not multiplexed after all (TTY): everything is stdout.
        this.out.push(buf);
        buf = Buffer.alloc(0);
        break;
      }
      if (buf.length < 8 + len) break;
      const payload = buf.subarray(8, 8 + len);
      (type === 2 ? this.err : this.out).push(Buffer.from(payload));
      buf = buf.subarray(8 + len);
    }
    this.pending = Buffer.from(buf);
    cb();
  }
}

interface TrialIo {
  out: Tail;
  err: Tail;
  startedAt: number;
}

function outcomeOf(io: TrialIo, rest: Partial<DockerProcessOutcome>): DockerProcessOutcome {
  return {
    exit_code: null,
    signal: null,
    timed_out: false,
    duration_ms: Date.now() - io.startedAt,
    stdout: io.out.text(),
    stderr: io.err.text(),
    ...rest,
  };
}

function endOf(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise<void>((res) => {
    stream.on('end', () => res());
    stream.on('close', () => res());
    stream.on('error', () => res());
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((res) => setTimeout(res, ms));
}

/**
 * Waits for `p`, at most `ms`. The timer is referenced while waiting (an unreferenced one lets Node exit
 * mid-stop when nothing else is pending) and cleared after (a left-over one keeps the process alive).
 */
async function waitAtMost(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([p, new Promise<void>((res) => (timer = setTimeout(res, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** The read-only mounts of a launch; `key` identifies the set (a warm container serves one set). */
interface RoSet {
  mounts: Docker.MountSettings[];
  key: string;
}

interface Slot {
  container: Docker.Container;
  /** Host folder holding workspace/home/tmp/bin, bind-mounted at /trial/… in the container. */
  dir: string;
  /** PIDs of the idle process(es), to tell whether anything of the harness is left. */
  idlePids?: Set<string>;
  key: string;
}

class IdleFailed extends Error {}

function run(
  cmd: string,
  args: string[],
  timeoutMs = 10_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { timeout: timeoutMs, env: { PATH: STANDARD_PATH.join(':') } },
      (e, stdout, stderr) => {
        const code = e
          ? typeof (e as { code?: unknown }).code === 'number'
            ? (e as { code: number }).code
            : 127
          : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** Reads one regular file out of a tar stream (Docker's archive API). */
async function firstTarEntry(
  stream: NodeJS.ReadableStream,
  maxBytes = 1024 * 1024,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream as AsyncIterable<Buffer>) {
    chunks.push(c);
    size += c.length;
    if (size > maxBytes) break;
  }
  const buf = Buffer.concat(chunks);
  if (buf.length < 512) return undefined;
  const len = parseInt(buf.subarray(124, 136).toString('ascii').replace(/\0.*$/s, '').trim() || '0', 8);
  return buf.subarray(512, 512 + len).toString('utf8');
}

// ---------------------------------------------------------------------------------------------------
// ownership of the trial folders while a container user other than ours writes in them

interface OwnerRecord {
  dir: string;
  uid: number;
  gid: number;
}

async function walk(
  dir: string,
  fn: (p: string, isDir: boolean, isLink: boolean) => Promise<void>,
): Promise<void> {
  const st = await lstat(dir);
  await fn(dir, st.isDirectory(), st.isSymbolicLink());
  if (!st.isDirectory()) return;
  for (const name of await readdir(dir)) await walk(path.join(dir, name), fn);
}

/** lchown the whole tree (never following symlinks the harness may have planted). */
async function chownTree(dir: string, uid: number, gid: number, stripSetid: boolean): Promise<void> {
  await walk(dir, async (p, isDir, isLink) => {
    await lchown(p, uid, gid).catch(() => {});
    if (stripSetid && !isLink && !isDir) {
      const st = await lstat(p).catch(() => undefined);
      if (st && st.mode & 0o6000) await chmod(p, st.mode & 0o1777).catch(() => {});
    }
  });
}

async function openTree(dir: string): Promise<void> {
  await walk(dir, async (p, isDir, isLink) => {
    if (isLink) return;
    const st = await lstat(p);
    await chmod(p, (st.mode & 0o7777) | (isDir ? 0o777 : 0o666)).catch(() => {});
  });
}

/**
 * Copies the children of `src` into the existing folder `dst`: folders, regular files (mode kept), symlinks
 * as symlinks (never followed); fifos, sockets and devices are left out. Never writes through a link: every
 * path written is one this walk created. `owner`: lchown every created entry; `stripSetid`: drop set-id bits.
 */
async function copyTree(
  src: string,
  dst: string,
  o: { owner?: { uid: number; gid: number }; stripSetid?: boolean },
): Promise<void> {
  let names: string[];
  try {
    names = await readdir(src);
  } catch (e) {
    if ((e as { code?: string }).code !== 'EACCES') throw e;
    await chmod(src, ((await lstat(src)).mode & 0o7777) | 0o700);
    names = await readdir(src);
  }
  for (const name of names) {
    const s = path.join(src, name);
    const d = path.join(dst, name);
    const st = await lstat(s);
    const mode = st.mode & (o.stripSetid ? 0o1777 : 0o7777);
    if (st.isDirectory()) {
      await mkdir(d, { mode: 0o700 });
      await copyTree(s, d, o);
      await chmod(d, mode);
    } else if (st.isFile()) {
      try {
        await copyFile(s, d);
      } catch (e) {
        if ((e as { code?: string }).code !== 'EACCES') throw e;
        await chmod(s, (st.mode & 0o7777) | 0o400);
        await copyFile(s, d);
      }
      await chmod(d, mode);
    } else if (st.isSymbolicLink()) {
      await symlink(await readlink(s), d);
    } else {
      continue;
    }
    if (o.owner) await lchown(d, o.owner.uid, o.owner.gid);
  }
}

async function emptyDir(dir: string): Promise<void> {
  for (const name of await readdir(dir)) await rm(path.join(dir, name), { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------------
// host firewall for the run's bridge (root + iptables only)

function chainName(tag: string): string {
  return `HR-${tag}`;
}
function bridgeName(tag: string): string {
  return `hr-${tag}`;
}

async function ephemeralRange(): Promise<[number, number]> {
  try {
    const { readFile } = await import('node:fs/promises');
    const [lo, hi] = (await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8'))
      .trim()
      .split(/\s+/)
      .map(Number);
    if (lo > 0 && hi >= lo) return [lo, hi];
  } catch {}
  return [32768, 60999];
}

async function firewallAvailable(): Promise<boolean> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  return (await run('iptables', ['-w', '-L', 'INPUT', '-n'])).code === 0;
}

/**
 * The run's chain rejects everything the container sends to this host; run() opens, for the length of
 * one trial, TCP to the gateway on the ports of that trial's endpoint (found in its env and command).
 */
async function applyFirewall(tag: string): Promise<void> {
  const chain = chainName(tag);
  const br = bridgeName(tag);
  await removeFirewall(tag);
  const steps: string[][] = [
    ['-N', chain],
    ['-A', chain, '-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset'],
    ['-A', chain, '-j', 'REJECT', '--reject-with', 'icmp-port-unreachable'],
    ['-I', 'INPUT', '1', '-i', br, '-j', chain],
  ];
  for (const s of steps) {
    const r = await run('iptables', ['-w', ...s]);
    if (r.code !== 0) throw new Error(`iptables ${s.join(' ')}: ${r.stderr.trim()}`);
  }
  // No IPv6 on the run network at all (the container also gets disable_ipv6).
  await run('ip6tables', ['-w', '-I', 'INPUT', '1', '-i', br, '-j', 'DROP']);
}

function portRule(tag: string, gateway: string, ports: string): string[] {
  return [chainName(tag), '-p', 'tcp', '-d', gateway, '--dport', ports, '-j', 'ACCEPT'];
}

async function openPorts(tag: string, gateway: string, ports: string[]): Promise<void> {
  for (const p of ports) {
    const r = await run('iptables', [
      '-w',
      '-I',
      ...portRule(tag, gateway, p).slice(0, 1),
      '1',
      ...portRule(tag, gateway, p).slice(1),
    ]);
    if (r.code !== 0) throw new Error(`iptables: cannot open port ${p} on ${gateway}: ${r.stderr.trim()}`);
  }
}

async function closePorts(tag: string, gateway: string, ports: string[]): Promise<void> {
  for (const p of ports) await run('iptables', ['-w', '-D', ...portRule(tag, gateway, p)]);
}

async function removeFirewall(tag: string): Promise<void> {
  const chain = chainName(tag);
  const br = bridgeName(tag);
  for (let i = 0; i < 8; i++) {
    if ((await run('iptables', ['-w', '-D', 'INPUT', '-i', br, '-j', chain])).code !== 0) break;
  }
  await run('iptables', ['-w', '-F', chain]);
  await run('iptables', ['-w', '-X', chain]);
  for (let i = 0; i < 8; i++) {
    if ((await run('ip6tables', ['-w', '-D', 'INPUT', '-i', br, '-j', 'DROP'])).code !== 0) break;
  }
}

/** Firewall chains whose bridge no longer exists (crashed runs). */
async function sweepFirewall(liveTags: Set<string>): Promise<void> {
  if (!(await firewallAvailable())) return;
  const r = await run('iptables', ['-w', '-S']);
  const tags = new Set<string>();
  for (const m of r.stdout.matchAll(/^-N HR-([0-9a-f]{10})$/gm)) tags.add(m[1]);
  for (const tag of tags) if (!liveTags.has(tag)) await removeFirewall(tag);
}

// ---------------------------------------------------------------------------------------------------
// sweeping by label

function makeDocker(socketPath: string): Docker {
  return new Docker({ socketPath });
}

/** GET /_ping, given up after timeoutMs (a hung daemon must not hang the run). */
async function pingDocker(docker: Docker, timeoutMs: number): Promise<void> {
  const ac = new AbortController();
  const t = setTimeout(() => ac.abort(), timeoutMs);
  try {
    await (docker.ping as unknown as (o: { abortSignal: AbortSignal }) => Promise<unknown>).call(docker, {
      abortSignal: ac.signal,
    });
  } finally {
    clearTimeout(t);
  }
}

/** Removes every container and network labelled with this run id, and the run's firewall chain. */
export async function sweepRun(
  docker: Docker,
  runId: string,
): Promise<{ containers: number; networks: number }> {
  const filters = JSON.stringify({ label: [`${RUN_LABEL}=${runId}`] });
  const removed = { containers: 0, networks: 0 };
  let last = '';
  // A network cannot go while the daemon still tears down an endpoint: list, remove, check, retry.
  for (let attempt = 0; attempt < 6; attempt++) {
    if (attempt > 0) await sleep(250 * attempt);
    const containers = await docker.listContainers({ all: true, filters });
    await Promise.all(
      containers.map((c) =>
        docker
          .getContainer(c.Id)
          .remove({ force: true, v: true })
          .then(() => removed.containers++)
          .catch(() => {}),
      ),
    );
    const networks = await docker.listNetworks({ filters });
    const errors: string[] = [];
    for (const n of networks) {
      await docker
        .getNetwork(n.Id)
        .remove()
        .then(() => removed.networks++)
        .catch((e) => {
          if ((e as { statusCode?: number }).statusCode !== 404) errors.push(`${n.Name}: ${errText(e)}`);
        });
    }
    const left =
      (await docker.listContainers({ all: true, filters })).length +
      (await docker.listNetworks({ filters })).length;
    if (left === 0) {
      last = '';
      break;
    }
    last = errors.join('; ') || `${left} resource(s) still listed`;
  }
  if (await firewallAvailable()) await removeFirewall(shortTag(runId));
  if (last) throw new Error(`leftovers of run ${runId}: ${last}`);
  return removed;
}

/**
 * Removes leftovers of earlier runs that crashed: containers and networks labelled `harness-risk.run`
 * created more than `olderThanMs` ago (default 1 h) whose owning process (same host) is gone, and
 * firewall chains whose network is gone. Resources of runs owned by a live process are spared.
 */
export async function sweepStale(
  opts: { docker?: Docker; socketPath?: string; olderThanMs?: number; spareRunIds?: string[] } = {},
): Promise<{ containers: string[]; networks: string[]; folders: string[] }> {
  const docker = opts.docker ?? makeDocker(opts.socketPath ?? socketFromEnv());
  const cutoff = Date.now() - (opts.olderThanMs ?? 3_600_000);
  const spare = new Set(opts.spareRunIds ?? []);
  for (const r of active) spare.add(r.runId);
  const filters = JSON.stringify({ label: [RUN_LABEL] });
  const removed = { containers: [] as string[], networks: [] as string[], folders: [] as string[] };
  const stale = (labels: Record<string, string> | undefined, createdMs: number) =>
    createdMs < cutoff &&
    !spare.has(labels?.[RUN_LABEL] ?? '') &&
    !(labels && ownerAliveSameHost(labels[OWNER_LABEL]));
  for (const c of await docker.listContainers({ all: true, filters })) {
    if (!stale(c.Labels, c.Created * 1000)) continue;
    await docker
      .getContainer(c.Id)
      .remove({ force: true, v: true })
      .then(() => removed.containers.push(c.Id))
      .catch(() => {});
  }
  const liveTags = new Set<string>();
  for (const n of await docker.listNetworks({ filters })) {
    const runId = n.Labels?.[RUN_LABEL] ?? '';
    if (!stale(n.Labels, Date.parse(n.Created))) {
      liveTags.add(shortTag(runId));
      continue;
    }
    await docker
      .getNetwork(n.Id)
      .remove()
      .then(() => removed.networks.push(n.Name))
      .catch(() => liveTags.add(shortTag(runId)));
  }
  await sweepFirewall(liveTags);
  // Slot folders of warm containers of dead processes.
  const tmp = os.tmpdir();
  for (const name of await readdir(tmp).catch(() => [] as string[])) {
    const m = new RegExp(`^${TMP_PREFIX}(\\d+)-`).exec(name);
    if (!m || Number(m[1]) === process.pid || ownerAliveSameHost(`${os.hostname()}:${m[1]}`)) continue;
    const st = await lstat(path.join(tmp, name)).catch(() => undefined);
    if (!st?.isDirectory() || st.mtimeMs >= cutoff) continue;
    await rm(path.join(tmp, name), { recursive: true, force: true }).catch(() => {});
    removed.folders.push(path.join(tmp, name));
  }
  return removed;
}

/** The owner label names a live process on this host (a remote owner cannot be checked: age decides). */
function ownerAliveSameHost(owner: string | undefined): boolean {
  if (!owner) return false;
  const i = owner.lastIndexOf(':');
  if (i < 0 || owner.slice(0, i) !== os.hostname()) return false;
  try {
    process.kill(Number(owner.slice(i + 1)), 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM';
  }
}

// ---------------------------------------------------------------------------------------------------
// interrupt handling: once per process, for every live DockerRunner

const active = new Set<DockerRunner>();
let handlersInstalled = false;

/** A detached sweeper that outlives this process (used when the process exits before sweeping). */
const SWEEPER = `
const http = require('node:http');
const { execFileSync } = require('node:child_process');
const { sock, runs } = JSON.parse(process.argv[1]);
const call = (method, p) => new Promise((res) => {
  const r = http.request({ socketPath: sock, method, path: p }, (s) => { let b = ''; s.on('data', (d) => (b += d)); s.on('end', () => res(b)); });
  r.on('error', () => res('[]')); r.end();
});
(async () => {
  for (const { id, tag } of runs) {
    const f = encodeURIComponent(JSON.stringify({ label: ['${RUN_LABEL}=' + id] }));
    let cs = []; try { cs = JSON.parse(await call('GET', '/containers/json?all=1&filters=' + f)); } catch {}
    for (const c of cs) await call('DELETE', '/containers/' + c.Id + '?force=1&v=1');
    let ns = []; try { ns = JSON.parse(await call('GET', '/networks?filters=' + f)); } catch {}
    for (const n of ns) await call('DELETE', '/networks/' + n.Id);
    if (tag) for (const a of [['-D','INPUT','-i','hr-'+tag,'-j','HR-'+tag],['-F','HR-'+tag],['-X','HR-'+tag]]) {
      try { execFileSync('iptables', ['-w', ...a], { stdio: 'ignore' }); } catch {}
    }
    if (tag) { try { execFileSync('ip6tables', ['-w','-D','INPUT','-i','hr-'+tag,'-j','DROP'], { stdio: 'ignore' }); } catch {} }
  }
})();
`;

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    const handler = () => {
      // Runs first (prepended): are there other handlers (the CLI's or the action's graceful stop)?
      const others = process.listenerCount(sig) > 1;
      const runners = [...active];
      const done = Promise.race([
        Promise.allSettled(runners.map((r) => r.stop())),
        new Promise((res) => setTimeout(res, 15_000).unref()),
      ]);
      void done.finally(() => {
        // Someone else handles the signal: they decide when to exit (the run's resources are gone).
        if (others) return;
        // Nobody else does: die of it as if we had never listened.
        process.removeListener(sig, handler);
        process.kill(process.pid, sig);
      });
    };
    process.prependListener(sig, handler);
  }
  // Someone called process.exit() before the sweep finished: hand it to a detached sweeper.
  process.on('exit', () => {
    const left = [...active].filter((r) => r.hasResources());
    if (left.length === 0) return;
    for (const r of left) {
      try {
        r.removeTmpSync();
      } catch {}
    }
    try {
      const byDaemon = new Map<string, { id: string; tag?: string }[]>();
      for (const r of left) {
        const list = byDaemon.get(r.socketPath) ?? [];
        list.push({ id: r.runId, tag: r.firewallTag });
        byDaemon.set(r.socketPath, list);
      }
      for (const [sock, runs] of byDaemon) {
        const child = spawn(process.execPath, ['-e', SWEEPER, JSON.stringify({ sock, runs })], {
          detached: true,
          stdio: 'ignore',
          env: { PATH: STANDARD_PATH.join(':') },
        });
        child.unref();
      }
    } catch {}
  });
}

// ---------------------------------------------------------------------------------------------------
// the runner

export class DockerRunner implements Runner {
  readonly name = 'docker' as const;
  readonly runId: string;
  readonly image: string;
  readonly socketPath: string;
  /** Set after start(). */
  gateway?: string;
  networkName?: string;
  firewallTag?: string;
  user?: string;
  systemPath: string[] = STANDARD_PATH;

  private readonly docker: Docker;
  private readonly memory: number;
  private readonly nanoCpus: number;
  private readonly pids: number;
  private readonly readOnlyRootfs: boolean;
  private readonly hostAliases: string[];
  private readonly warn: (m: string) => void;
  private readonly roots: string[] = [];
  private readonly live = new Set<string>();
  private networkId?: string;
  private ownTree = false;
  private chownTo?: { uid: number; gid: number };
  private dead?: string;
  private started?: Promise<void>;
  private stopping?: Promise<void>;
  private warned = new Set<string>();
  private readonly warm: number;
  private readonly idleCommand: string[];
  private readonly pool = new Map<string, Promise<Slot>[]>();
  private readonly pending = new Set<Promise<unknown>>();
  private tmpRoot?: string;
  private tmpRootMade?: Promise<string>;
  private warmDisabled?: string;
  private noInit = false;

  constructor(private readonly opts: DockerRunnerOptions) {
    if (!opts.runId) throw new Error('DockerRunner: runId is required');
    this.runId = opts.runId;
    this.image = opts.image ?? DEFAULT_IMAGE;
    this.socketPath = opts.socketPath ?? socketFromEnv();
    this.memory = parseMemory(opts.memory);
    const cpus = opts.cpus ?? 1;
    if (!(cpus > 0)) throw new Error(`DockerRunner: cpus must be > 0 (got ${cpus})`);
    this.nanoCpus = Math.round(cpus * 1e9);
    this.pids = opts.pids ?? 256;
    this.readOnlyRootfs = opts.readOnlyRootfs ?? true;
    this.hostAliases = opts.hostAliases ?? FAKE_HOSTS;
    this.warn = opts.onWarning ?? ((m) => process.emitWarning(m, 'HarnessRiskDocker'));
    this.warm = Math.max(0, Math.floor(opts.warm ?? 1));
    this.idleCommand = opts.idleCommand?.length ? opts.idleCommand : DEFAULT_IDLE;
    this.docker = makeDocker(this.socketPath);
  }

  /** True while this runner may still own containers or a network. */
  hasResources(): boolean {
    return this.networkId !== undefined || this.live.size > 0 || this.tmpRoot !== undefined;
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.warn(message);
  }

  /** The user's to fix (start Docker or pick the process runner), so a UserError: no stack trace. */
  private unreachable(e: unknown): Error {
    return new UserError(
      `Docker is not reachable at ${this.socketPath}: ${errText(e)}`,
      'start Docker (e.g. `sudo systemctl start docker`, or `sh scripts/docker-setup.sh` on a Debian machine), ' +
        'point DOCKER_HOST at a running daemon, or use `runner: process`',
    );
  }

  private ping(timeoutMs = PING_TIMEOUT_MS): Promise<void> {
    return pingDocker(this.docker, timeoutMs);
  }

  start(): Promise<void> {
    this.started ??= this.doStart();
    return this.started;
  }

  private async doStart(): Promise<void> {
    try {
      await this.ping();
    } catch (e) {
      throw this.unreachable(e);
    }
    let info: Docker.ImageInspectInfo;
    try {
      info = await this.docker.getImage(this.image).inspect();
    } catch (e) {
      if (isConnectionError(e)) throw this.unreachable(e);
      throw new Error(
        `Docker image ${this.image} is not present on the daemon at ${this.socketPath} (${errText(e)}): ` +
          (this.image === DEFAULT_IMAGE
            ? 'build it with `sh scripts/docker-image.sh`'
            : `build or pull it first (e.g. \`docker pull ${this.image}\`)`) +
          ', or use `runner: process`.',
      );
    }
    const pathEnv = (info.Config?.Env ?? []).find((e) => e.startsWith('PATH='));
    if (pathEnv) this.systemPath = pathEnv.slice(5).split(':').filter(Boolean);

    if (this.opts.sweepStale !== false) await sweepStale({ docker: this.docker }).catch(() => {});

    this.user = await this.chooseUser(info);
    const [uid, gid] = this.user.split(':').map(Number);
    const hostUid = process.getuid?.() ?? 0;
    if (hostUid === 0 && uid !== 0 && Number.isInteger(uid))
      this.chownTo = { uid, gid: Number.isInteger(gid) ? gid : uid };
    else if (hostUid !== 0 && uid !== hostUid) {
      this.ownTree = true;
      this.warnOnce(
        'user',
        `docker runner: container user ${this.user} differs from this process (uid ${hostUid}) and it cannot chown; ` +
          'the trial folders are opened to everyone for the run, and files the harness creates stay owned by that user.',
      );
    }

    const tag = shortTag(this.runId);
    this.networkName = `hr-${safeName(this.runId)}-${tag}`;
    active.add(this);
    if (this.opts.signalHandlers !== false) installHandlers();
    let net: Docker.NetworkInspectInfo;
    try {
      const existing = await this.docker.listNetworks({
        filters: JSON.stringify({ name: [this.networkName] }),
      });
      const mine = existing.find((n) => n.Name === this.networkName && n.Labels?.[RUN_LABEL] === this.runId);
      const network = mine
        ? this.docker.getNetwork(mine.Id)
        : await this.docker.createNetwork({
            Name: this.networkName,
            Driver: 'bridge',
            Internal: true,
            CheckDuplicate: true,
            EnableIPv6: false,
            Attachable: false,
            Labels: { [RUN_LABEL]: this.runId, [OWNER_LABEL]: `${os.hostname()}:${process.pid}` },
            Options: {
              'com.docker.network.bridge.name': bridgeName(tag),
              'com.docker.network.bridge.enable_ip_masquerade': 'false',
            },
          });
      net = await network.inspect();
      this.networkId = net.Id;
    } catch (e) {
      active.delete(this);
      if (isConnectionError(e)) throw this.unreachable(e);
      throw new Error(
        `docker runner: cannot create the run's internal network ${this.networkName}: ${errText(e)}`,
      );
    }
    const gw = net.IPAM?.Config?.find((c) => c.Gateway && !c.Gateway.includes(':'))?.Gateway?.replace(
      /\/\d+$/,
      '',
    );
    if (!gw) {
      await this.stop();
      throw new Error(`docker runner: network ${this.networkName} has no IPv4 gateway address`);
    }
    this.gateway = gw;

    if (this.opts.firewall !== false) {
      if (await firewallAvailable()) {
        try {
          await applyFirewall(tag);
          this.firewallTag = tag;
        } catch (e) {
          await this.stop();
          throw new Error(
            `docker runner: cannot install the host firewall chain for ${bridgeName(tag)}: ${errText(e)}`,
          );
        }
      } else {
        this.warnOnce(
          'firewall',
          'docker runner: no host firewall (needs root and iptables): a trial can reach services listening on all ' +
            `interfaces of this host through the gateway ${gw}; the internal network still blocks everything else.`,
        );
      }
    }
    if (this.opts.prewarmReadOnly) await this.prewarm(this.opts.prewarmReadOnly);
  }

  /** The container user: explicit, else ours when not root, else 1000 when the image has it, else root. */
  private async chooseUser(info: Docker.ImageInspectInfo): Promise<string> {
    if (this.opts.user) return this.opts.user;
    const hostUid = process.getuid?.() ?? 0;
    if (hostUid !== 0) return `${hostUid}:${process.getgid?.() ?? hostUid}`;
    const labelled = info.Config?.Labels?.['harness-risk.user'];
    if (labelled && /^\d+:\d+$/.test(labelled)) return labelled;
    const passwd = await this.readImageFile('/etc/passwd').catch(() => undefined);
    const line = passwd?.split('\n').find((l) => l.split(':')[2] === '1000');
    if (line) return `1000:${line.split(':')[3] || '1000'}`;
    this.warnOnce(
      'root',
      `docker runner: image ${this.image} has no uid 1000 user; trials run as root (all capabilities dropped).`,
    );
    return '0:0';
  }

  /** Reads a file of the image without starting anything (create, archive, remove). */
  private async readImageFile(p: string): Promise<string | undefined> {
    const c = await this.docker.createContainer({
      Image: this.image,
      Entrypoint: ['/nonexistent'],
      Labels: { [RUN_LABEL]: this.runId, [OWNER_LABEL]: `${os.hostname()}:${process.pid}` },
      HostConfig: { NetworkMode: 'none' },
    });
    try {
      return await firstTarEntry(await c.getArchive({ path: p }));
    } finally {
      await c.remove({ force: true }).catch(() => {});
    }
  }

  view(dirs: TrialDirs): SandboxView {
    if (!this.gateway) throw new Error('DockerRunner.view() called before start()');
    const gateway = this.gateway;
    return {
      workspace: SANDBOX_PATHS.workspace,
      home: SANDBOX_PATHS.home,
      tmp: SANDBOX_PATHS.tmp,
      bin: SANDBOX_PATHS.bin,
      mapReadOnly: (hostPath: string) => this.mapReadOnly(hostPath, dirs),
      bindHost: gateway,
      endpointHost: gateway,
      systemPath: [...this.systemPath],
    };
  }

  /** Host path → sandbox path: trial folders to /trial/…, anything else to /opt/hr/ro/<n>/… (stable per run). */
  mapReadOnly(hostPath: string, dirs?: TrialDirs): string {
    const p = path.resolve(hostPath);
    if (dirs) {
      for (const k of ['workspace', 'home', 'tmp', 'bin'] as const) {
        const rel = within(p, path.resolve(dirs[k]));
        if (rel !== undefined) return path.posix.join(SANDBOX_PATHS[k], rel);
      }
    }
    for (let i = 0; i < this.roots.length; i++) {
      const rel = within(p, this.roots[i]);
      if (rel !== undefined) return path.posix.join(SANDBOX_PATHS.readOnly, String(i), rel);
    }
    this.roots.push(p);
    return path.posix.join(SANDBOX_PATHS.readOnly, String(this.roots.length - 1));
  }

  /** Keeps workflow variables out, whatever the engine passed. */
  private sanitizeEnv(env: Record<string, string>): { env: string[]; dropped: string[] } {
    const out: string[] = [];
    const dropped: string[] = [];
    for (const [k, v] of Object.entries(env)) {
      if (FORBIDDEN_ENV.test(k) || !k || k.includes('=') || k.includes('\0')) {
        dropped.push(k);
        continue;
      }
      out.push(`${k}=${String(v).replace(/\0/g, '')}`);
    }
    if (dropped.length) {
      this.warnOnce(
        `env:${dropped.join(',')}`,
        `docker runner: dropped environment names that must never reach a trial: ${dropped.join(', ')}`,
      );
    }
    return { env: out, dropped };
  }

  /** The four trial folders (host side) as rw binds at their sandbox places. */
  private async trialMounts(dirs: Pick<TrialDirs, TrialKey>): Promise<Docker.MountSettings[]> {
    const mounts: Docker.MountSettings[] = [];
    for (const k of TRIAL_KEYS) {
      const src = path.resolve(dirs[k]);
      const st = await stat(src).catch(() => undefined);
      if (!st?.isDirectory()) throw new Error(`trial folder ${k} (${src}) does not exist`);
      mounts.push({ Type: 'bind', Source: src, Target: SANDBOX_PATHS[k], ReadOnly: false });
    }
    return mounts;
  }

  /**
   * The launch's read-only folders as ro binds at /opt/hr/ro/<n> (never / or anything holding the Docker
   * socket). `key` names the set, so a warm container made for the same set can serve the launch.
   */
  private async readOnlyMounts(launch: TrialLaunch): Promise<RoSet> {
    const mounts: Docker.MountSettings[] = [];
    const allowed: string[] = [];
    for (const ro of launch.read_only) {
      const p = path.resolve(ro);
      if (p === '/' || within(this.socketPath, p) !== undefined || within(DEFAULT_SOCKET, p) !== undefined) {
        this.warnOnce(
          `ro:${p}`,
          `docker runner: refusing to mount ${p} (it is / or holds the Docker socket)`,
        );
        continue;
      }
      const st = await stat(p).catch(() => undefined);
      if (!st) {
        this.warnOnce(`ro-missing:${p}`, `docker runner: read-only folder ${p} does not exist; not mounted`);
        continue;
      }
      const uid = Number(this.user?.split(':')[0]);
      if (uid !== 0 && st.uid !== uid && (st.mode & 0o005) !== 0o005) {
        this.warnOnce(
          `ro-perm:${p}`,
          `docker runner: read-only folder ${p} is not readable by the container user ${this.user} (mode ` +
            `${(st.mode & 0o777).toString(8)}); make it world-readable (chmod -R o+rX) or the harness cannot use it`,
        );
      }
      allowed.push(p);
      this.mapReadOnly(p);
    }
    // Each allowed folder at its own sandbox place (under the root it was first mapped with, e.g. the
    // action root's dist/ at /opt/hr/ro/1/dist when {{action_root}} was mapped first), and every
    // registered root that lies inside an allowed folder at its place too. Nothing outside them.
    const seen = new Set<string>();
    const add = (source: string, target: string) => {
      if (seen.has(target)) return;
      seen.add(target);
      mounts.push({ Type: 'bind', Source: source, Target: target, ReadOnly: true });
    };
    for (const p of allowed) add(p, this.mapReadOnly(p));
    for (let i = 0; i < this.roots.length; i++) {
      const r = this.roots[i];
      if (!allowed.some((a) => within(r, a) !== undefined)) continue;
      if (!(await stat(r).catch(() => undefined))) continue;
      add(r, path.posix.join(SANDBOX_PATHS.readOnly, String(i)));
    }
    // Drop a mount that another one already shows at the same place (e.g. the repo and its dist/).
    const needed = mounts.filter(
      (m) =>
        !mounts.some((o) => {
          if (o === m) return false;
          const rel = within(m.Source!, o.Source!);
          return rel ? path.posix.join(o.Target!, rel) === m.Target : false;
        }),
    );
    mounts.length = 0;
    mounts.push(...needed.sort((a, b) => a.Target!.localeCompare(b.Target!)));
    return { mounts, key: JSON.stringify(mounts.map((m) => [m.Source, m.Target])) };
  }

  private hostConfig(mounts: Docker.MountSettings[], init = false): Docker.HostConfig {
    return {
      NetworkMode: this.networkName,
      Mounts: mounts,
      Memory: this.memory,
      MemorySwap: this.memory,
      NanoCpus: this.nanoCpus,
      PidsLimit: this.pids,
      ReadonlyRootfs: this.readOnlyRootfs,
      Tmpfs: this.readOnlyRootfs
        ? {
            '/tmp': 'rw,nosuid,nodev,size=256m,mode=1777',
            '/var/tmp': 'rw,nosuid,nodev,size=64m,mode=1777',
            '/run': 'rw,nosuid,nodev,size=16m,mode=755',
          }
        : undefined,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Privileged: false,
      ExtraHosts: this.hostAliases.map((h) => `${h}:${this.gateway}`),
      Dns: [this.gateway!],
      DnsSearch: [],
      // Outside names cannot resolve (the gateway answers no DNS): fail in a second, not in ten.
      DnsOptions: ['timeout:1', 'attempts:1'],
      Sysctls: { 'net.ipv6.conf.all.disable_ipv6': '1' },
      IpcMode: 'private',
      AutoRemove: false,
      // docker-init as pid 1 in one-container-per-trial mode: the harness gets SIGTERM like any process.
      Init: init && !this.noInit,
      LogConfig: { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '1' } },
    };
  }

  private containerName(what: string): string {
    return `hr-${safeName(this.runId).slice(0, 24)}-${safeName(what).slice(0, 40)}-${randomBytes(3).toString('hex')}`;
  }

  private async prepareOwnership(dirs: TrialDirs): Promise<OwnerRecord[]> {
    const rec: OwnerRecord[] = [];
    if (!this.chownTo && !this.ownTree) return rec;
    for (const k of TRIAL_KEYS) {
      const st = await lstat(dirs[k]);
      rec.push({ dir: dirs[k], uid: st.uid, gid: st.gid });
      if (this.chownTo) await chownTree(dirs[k], this.chownTo.uid, this.chownTo.gid, false);
      else await openTree(dirs[k]);
    }
    return rec;
  }

  private async restoreOwnership(rec: OwnerRecord[]): Promise<void> {
    if (!this.chownTo) return;
    for (const r of rec) await chownTree(r.dir, r.uid, r.gid, true).catch(() => {});
  }

  async run(launch: TrialLaunch): Promise<DockerProcessOutcome> {
    const io: TrialIo = { out: new Tail(), err: new Tail(), startedAt: Date.now() };
    const fail = (rest: Partial<DockerProcessOutcome>) => outcomeOf(io, rest);
    if (!this.networkName || !this.gateway)
      return fail({ spawn_error: 'docker runner: run() before start()' });
    if (this.stopping) return fail({ infra_error: 'docker runner: the run is stopping (interrupted)' });
    if (this.dead) {
      return fail({
        infra_error: `Docker daemon at ${this.socketPath} stopped answering during the run: ${this.dead}`,
      });
    }
    if (launch.signal?.aborted) return fail({ infra_error: 'trial aborted before start' });
    if (launch.command.length === 0) return fail({ spawn_error: 'empty command' });

    const { env, dropped } = this.sanitizeEnv(launch.env);
    const extra = dropped.length ? { dropped_env: dropped } : {};
    let ro: RoSet;
    try {
      await this.trialMounts(launch.dirs);
      ro = await this.readOnlyMounts(launch);
    } catch (e) {
      return fail({ ...extra, spawn_error: `docker runner: ${errText(e)}` });
    }

    let opened: string[] = [];
    try {
      if (this.firewallTag) {
        const ports = await this.endpointPorts(launch);
        try {
          await openPorts(this.firewallTag, this.gateway, ports);
          opened = ports;
        } catch (e) {
          return fail({ ...extra, infra_error: `docker runner: ${errText(e)}` });
        }
      }
      const warm = this.warm > 0 && !this.warmDisabled;
      const outcome = warm
        ? await this.runWarm(launch, env, ro, io)
        : await this.runDirect(launch, env, ro, io);
      return { ...this.interrupted(outcome), ...extra };
    } finally {
      if (opened.length && this.firewallTag) await closePorts(this.firewallTag, this.gateway, opened);
    }
  }

  // --- direct mode: the harness is the container's own process, the trial folders are bind-mounted ---

  private async runDirect(
    launch: TrialLaunch,
    env: string[],
    ro: RoSet,
    io: TrialIo,
  ): Promise<DockerProcessOutcome> {
    let owners: OwnerRecord[] = [];
    let container: Docker.Container | undefined;
    try {
      let mounts: Docker.MountSettings[];
      try {
        mounts = [...(await this.trialMounts(launch.dirs)), ...ro.mounts];
        owners = await this.prepareOwnership(launch.dirs);
      } catch (e) {
        return outcomeOf(io, { spawn_error: `docker runner: ${errText(e)}` });
      }
      const hasStdin = launch.stdin !== undefined;
      try {
        container = await this.docker.createContainer({
          name: this.containerName(launch.trial_id),
          Image: this.image,
          Entrypoint: [launch.command[0]],
          Cmd: launch.command.slice(1),
          WorkingDir: launch.cwd,
          User: this.user,
          Env: env,
          Labels: this.labels(launch.trial_id),
          Tty: false,
          AttachStdout: true,
          AttachStderr: true,
          AttachStdin: hasStdin,
          OpenStdin: hasStdin,
          StdinOnce: hasStdin,
          HostConfig: this.hostConfig(mounts, true),
        });
      } catch (e) {
        return outcomeOf(io, await this.classify(e, 'create'));
      }
      this.live.add(container.id);
      const outcome = await this.execute(container, launch, io);
      if (
        !this.noInit &&
        outcome.spawn_error &&
        /docker-init|init binary|\binit\b.*not found/i.test(outcome.spawn_error)
      ) {
        // A daemon without docker-init: the harness becomes pid 1 (SIGTERM only if it handles it).
        this.noInit = true;
        this.warnOnce(
          'init',
          `docker runner: no docker-init on the daemon (${outcome.spawn_error}); running without it`,
        );
        await this.removeContainer(container.id);
        container = undefined;
        await this.restoreOwnership(owners);
        owners = [];
        return this.runDirect(launch, env, ro, { out: new Tail(), err: new Tail(), startedAt: Date.now() });
      }
      return outcome;
    } finally {
      if (container) await this.removeContainer(container.id);
      await this.restoreOwnership(owners);
    }
  }

  private labels(trial: string): Record<string, string> {
    return {
      [RUN_LABEL]: this.runId,
      [TRIAL_LABEL]: trial,
      [OWNER_LABEL]: `${os.hostname()}:${process.pid}`,
    };
  }

  /** Attach, start, wait (with timeout, abort and a daemon heartbeat), collect. */
  private async execute(
    container: Docker.Container,
    launch: TrialLaunch,
    io: TrialIo,
  ): Promise<DockerProcessOutcome> {
    const hasStdin = launch.stdin !== undefined;
    let stream: NodeJS.ReadWriteStream;
    try {
      stream = await container.attach({
        stream: true,
        stdout: true,
        stderr: true,
        stdin: hasStdin,
        hijack: hasStdin,
      });
    } catch (e) {
      return outcomeOf(io, await this.classify(e, 'attach'));
    }
    const streamDone = endOf(stream);
    stream.pipe(new Demux(io.out, io.err));
    const guard = this.guard(container, launch, () => container.kill({ signal: 'SIGTERM' }));
    try {
      try {
        io.startedAt = Date.now();
        await container.start();
      } catch (e) {
        return outcomeOf(io, await this.classify(e, 'start'));
      }
      if (hasStdin) {
        stream.write(launch.stdin!);
        // Half-close: with StdinOnce the daemon closes the container's stdin.
        (stream as unknown as { end(): void }).end();
      }
      guard.arm();
      let status: { StatusCode?: number };
      try {
        status = await Promise.race([container.wait({ condition: 'not-running' }), guard.failed]);
      } catch (e) {
        return outcomeOf(io, { ...(await this.classify(e, 'wait')), timed_out: guard.timedOut });
      }
      guard.disarm();
      await waitAtMost(streamDone, 2_000);
      const code = typeof status.StatusCode === 'number' ? status.StatusCode : null;
      // docker-init could not start the harness at all (missing binary, not executable).
      const fatal = /\[FATAL tini \(\d+\)\] exec (.*) failed: (.*)/.exec(io.err.text());
      if (!guard.killed && (code === 126 || code === 127) && fatal) {
        return outcomeOf(io, { spawn_error: `docker: cannot run ${fatal[1]}: ${fatal[2].trim()}` });
      }
      const rest = this.ending(guard, code);
      if (!this.readOnlyRootfs) rest.container_changes = await this.changes(container);
      return outcomeOf(io, rest);
    } finally {
      guard.disarm();
      (stream as unknown as { destroy?: () => void }).destroy?.();
    }
  }

  /** Timeout, abort and daemon heartbeat around one running trial. */
  /**
   * Timeout, abort and daemon heartbeat around one running trial. Ending it is what the process runner
   * does to a process group: SIGTERM to the harness (`soft`), SIGKILL to everything 2 s later.
   */
  private guard(container: Docker.Container, launch: TrialLaunch, soft: () => Promise<unknown>) {
    let timer: NodeJS.Timeout | undefined;
    let hb: NodeJS.Timeout | undefined;
    let hard: NodeJS.Timeout | undefined;
    let grace: NodeJS.Timeout | undefined;
    let reject!: (e: Error) => void;
    const failed = new Promise<never>((_, rej) => {
      reject = rej;
    });
    failed.catch(() => {});
    const g = {
      timedOut: false,
      aborted: false,
      killed: false,
      failed,
      kill: () => {
        if (g.killed) return;
        g.killed = true;
        void soft()
          .catch(() => {})
          .finally(() => {
            grace = setTimeout(
              () => void container.kill({ signal: 'SIGKILL' }).catch(() => {}),
              KILL_GRACE_MS,
            );
          });
      },
      arm: () => {
        timer = setTimeout(() => {
          g.timedOut = true;
          g.kill();
        }, launch.timeout_ms);
        launch.signal?.addEventListener('abort', onAbort, { once: true });
        // An abort while the container was being created has already fired: honour it now.
        if (launch.signal?.aborted) onAbort();
        // A daemon that dies can leave a request hanging (headers sent, body never ends): ping it
        // meanwhile, give up after two missed pings, or 30 s past the timeout whatever happens.
        let misses = 0;
        hb = setInterval(async () => {
          const ok = await this.ping(HEARTBEAT_MS).then(
            () => true,
            () => false,
          );
          misses = ok ? 0 : misses + 1;
          if (misses >= 2)
            reject(Object.assign(new Error('the Docker daemon stopped answering'), { code: 'ECONNREFUSED' }));
        }, HEARTBEAT_MS);
        hard = setTimeout(
          () =>
            reject(
              Object.assign(new Error('the trial did not end 30 s after its timeout'), { code: 'ETIMEDOUT' }),
            ),
          launch.timeout_ms + 30_000,
        );
      },
      disarm: () => {
        clearTimeout(timer);
        clearInterval(hb);
        clearTimeout(hard);
        clearTimeout(grace);
        launch.signal?.removeEventListener('abort', onAbort);
      },
    };
    const onAbort = () => {
      g.aborted = true;
      g.kill();
    };
    return g;
  }

  /**
   * The end of a trial as the contract reports it, the way a shell (and the process runner) sees it: an
   * exit status of 128+N means "killed by signal N".
   */
  private ending(
    guard: ReturnType<DockerRunner['guard']>,
    code: number | null,
  ): Partial<DockerProcessOutcome> {
    const signal = code !== null && code > 128 && code < 160 ? SIGNAL_NAMES.get(code - 128) : undefined;
    const rest: Partial<DockerProcessOutcome> = signal
      ? { exit_code: null, signal }
      : code === null && guard.killed
        ? { exit_code: null, signal: 'SIGKILL' }
        : { exit_code: code, signal: null };
    rest.timed_out = guard.timedOut;
    if (guard.aborted) rest.infra_error = 'trial aborted';
    else if (this.stopping && !guard.timedOut)
      rest.infra_error = 'the run was stopped (interrupted) during the trial';
    return rest;
  }

  private async changes(container: Docker.Container): Promise<DockerProcessOutcome['container_changes']> {
    const changes = (await container.changes().catch(() => null)) as { Path: string; Kind: number }[] | null;
    if (!changes) return undefined;
    return changes
      .filter((c) => !/^\/(trial|opt\/hr\/ro)(\/|$)/.test(c.Path))
      .map((c) => ({ path: c.Path, kind: c.Kind === 1 ? 'added' : c.Kind === 2 ? 'deleted' : 'modified' }));
  }

  // --- warm mode: a pre-started idle container per trial, the harness exec'd in it; the trial folders are
  // --- copied into the container's own slot folders (bind-mounted) and copied back after the trial

  private async runWarm(
    launch: TrialLaunch,
    env: string[],
    ro: RoSet,
    io: TrialIo,
  ): Promise<DockerProcessOutcome> {
    let slot: Slot;
    try {
      slot = await this.takeSlot(ro);
    } catch (e) {
      if (e instanceof IdleFailed) {
        this.warmDisabled = e.message;
        this.warnOnce(
          'warm',
          `docker runner: no warm containers (${e.message}); one container per trial from now on`,
        );
        return this.runDirect(launch, env, ro, io);
      }
      return outcomeOf(io, await this.classify(e, 'create'));
    }
    try {
      try {
        for (const k of TRIAL_KEYS)
          await copyTree(launch.dirs[k], path.join(slot.dir, k), { owner: this.chownTo });
      } catch (e) {
        return outcomeOf(io, {
          spawn_error: `docker runner: cannot copy the trial folders in: ${errText(e)}`,
        });
      }
      const result = await this.execWarm(slot, launch, env, io);
      if (result.infra_error && this.dead) return result;
      // Nothing of the harness may still run (and write) while the folders are copied back.
      await this.quiesce(slot, result.signal !== null);
      if (!this.readOnlyRootfs) result.container_changes = await this.changes(slot.container);
      try {
        for (const k of TRIAL_KEYS) {
          await emptyDir(launch.dirs[k]);
          await copyTree(path.join(slot.dir, k), launch.dirs[k], { stripSetid: true });
        }
      } catch (e) {
        return { ...result, infra_error: `docker runner: cannot copy the trial folders back: ${errText(e)}` };
      }
      return result;
    } finally {
      this.discard(slot);
    }
  }

  private async execWarm(
    slot: Slot,
    launch: TrialLaunch,
    env: string[],
    io: TrialIo,
  ): Promise<DockerProcessOutcome> {
    const hasStdin = launch.stdin !== undefined;
    let exec: Docker.Exec;
    let stream: NodeJS.ReadWriteStream;
    try {
      exec = await slot.container.exec({
        Cmd: launch.command,
        Env: env,
        User: this.user,
        WorkingDir: launch.cwd,
        AttachStdin: hasStdin,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
      });
      io.startedAt = Date.now();
      stream = (await exec.start({ hijack: true, stdin: hasStdin })) as NodeJS.ReadWriteStream;
    } catch (e) {
      return outcomeOf(io, await this.classify(e, 'exec'));
    }
    const streamDone = endOf(stream);
    stream.pipe(new Demux(io.out, io.err));
    if (hasStdin) {
      stream.write(launch.stdin!);
      (stream as unknown as { end(): void }).end();
    }
    // SIGTERM to every process of the harness's user (the idle process is root, pid 1: spared).
    const soft = async () => {
      const k = await slot.container.exec({ Cmd: ['kill', '-TERM', '-1'], User: this.user });
      await k.start({ Detach: true });
    };
    const guard = this.guard(slot.container, launch, soft);
    guard.arm();
    try {
      let code: number | null = null;
      // The exec ends when its process exits; its output stream usually ends then too, but a child left
      // running may hold it open: poll the exec's state as well.
      let ended = false;
      void streamDone.then(() => {
        ended = true;
      });
      for (;;) {
        try {
          await Promise.race([streamDone, sleep(ended ? 250 : 200), guard.failed]);
          const info = (await Promise.race([exec.inspect(), guard.failed])) as {
            Running: boolean;
            ExitCode: number | null;
          };
          if (!info.Running) {
            code = info.ExitCode;
            break;
          }
        } catch (e) {
          return outcomeOf(io, { ...(await this.classify(e, 'wait')), timed_out: guard.timedOut });
        }
      }
      guard.disarm();
      await waitAtMost(streamDone, ended ? 0 : 200);
      // An exec that fails because its trial was aborted is not the harness's missing binary: `ending()`
      // reports it as an infrastructure failure (a stopping run is handled once, by `interrupted()`).
      if (
        !guard.killed &&
        !guard.aborted &&
        (code === 126 || code === 127) &&
        /OCI runtime exec failed/.test(io.out.text() + io.err.text())
      ) {
        return outcomeOf(io, {
          spawn_error: `docker exec: ${(io.out.text() + io.err.text()).trim().slice(0, 500)}`,
        });
      }
      return outcomeOf(io, this.ending(guard, code));
    } finally {
      guard.disarm();
      (stream as unknown as { destroy?: () => void }).destroy?.();
    }
  }

  /** Kills the container unless only its idle process is left; waits until it has stopped. */
  private async quiesce(slot: Slot, killed: boolean): Promise<void> {
    let idle = false;
    if (!killed && slot.idlePids) {
      try {
        const top = await slot.container.top();
        const pidCol = top.Titles.indexOf('PID');
        idle = top.Processes.every((p: string[]) => slot.idlePids!.has(p[pidCol]));
      } catch {}
    }
    if (idle) return;
    await slot.container.kill({ signal: 'SIGKILL' }).catch(() => {});
    await waitAtMost(
      slot.container.wait({ condition: 'not-running' }).catch(() => {}),
      5_000,
    );
  }

  private async takeSlot(ro: RoSet): Promise<Slot> {
    // Warm containers made for another set of read-only folders are of no use any more.
    for (const [k, list] of this.pool) {
      if (k === ro.key) continue;
      for (const p of list)
        p.then(
          (s) => this.discard(s),
          () => {},
        );
      this.pool.delete(k);
    }
    const list = this.pool.get(ro.key) ?? [];
    this.pool.set(ro.key, list);
    // The oldest warm-up, ready or still starting (waiting for it beats starting another from scratch).
    const next = list.shift();
    this.refill(ro);
    if (next) {
      try {
        return await next;
      } catch (e) {
        if (e instanceof IdleFailed) throw e;
      }
    }
    return this.createSlot(ro);
  }

  /** Keeps `warm` idle containers started (or starting) for this set of read-only folders. */
  private refill(ro: RoSet): void {
    if (this.stopping || this.warmDisabled || this.dead) return;
    const list = this.pool.get(ro.key) ?? [];
    this.pool.set(ro.key, list);
    while (list.length < this.warm) {
      const p = this.createSlot(ro);
      this.track(
        p.then(
          (s) => {
            // Made for a pool that is gone (stop, other read-only set): not needed.
            if (this.stopping || this.pool.get(ro.key) !== list) this.discard(s);
          },
          (e) => {
            if (e instanceof IdleFailed) this.warmDisabled = e.message;
          },
        ),
      );
      list.push(p);
    }
  }

  /** Pre-starts warm containers for these read-only folders (optional; run() does it on first use). */
  async prewarm(readOnly: string[]): Promise<void> {
    if (!this.gateway || this.warm === 0) return;
    const ro = await this.readOnlyMounts({ read_only: readOnly } as TrialLaunch);
    this.refill(ro);
  }

  private async createSlot(ro: RoSet): Promise<Slot> {
    this.tmpRootMade ??= mkdtemp(path.join(os.tmpdir(), `${TMP_PREFIX}${process.pid}-`)).then((r) => {
      this.tmpRoot = r;
      return r;
    });
    const dir = await mkdtemp(path.join(await this.tmpRootMade, 'slot-'));
    const sub = {} as Record<TrialKey, string>;
    for (const k of TRIAL_KEYS) {
      sub[k] = path.join(dir, k);
      await mkdir(sub[k], { mode: 0o755 });
      if (this.chownTo) await lchown(sub[k], this.chownTo.uid, this.chownTo.gid);
      else if (this.ownTree) await chmod(sub[k], 0o777);
    }
    let container: Docker.Container | undefined;
    try {
      container = await this.docker.createContainer({
        name: this.containerName('warm'),
        Image: this.image,
        Entrypoint: [this.idleCommand[0]],
        Cmd: this.idleCommand.slice(1),
        // The idle process: root without capabilities, so the harness (another uid) cannot signal it.
        User: '0:0',
        Env: [],
        WorkingDir: '/',
        Labels: this.labels('warm'),
        HostConfig: this.hostConfig([...(await this.trialMounts(sub)), ...ro.mounts]),
      });
      this.live.add(container.id);
      await container.start();
      const info = await container.inspect();
      if (!info.State.Running) {
        throw new IdleFailed(
          `the idle command ${JSON.stringify(this.idleCommand)} exited (code ${info.State.ExitCode}) in ${this.image}`,
        );
      }
      let idlePids: Set<string> | undefined;
      try {
        const top = await container.top();
        const pidCol = top.Titles.indexOf('PID');
        idlePids = new Set(top.Processes.map((p: string[]) => p[pidCol]));
      } catch {}
      return { container, dir, idlePids, key: ro.key };
    } catch (e) {
      if (container) await this.removeContainer(container.id);
      await rm(dir, { recursive: true, force: true }).catch(() => {});
      throw e;
    }
  }

  /** Removes a used (or unneeded) warm container and its slot folders, in the background. */
  private discard(slot: Slot): void {
    this.track(
      (async () => {
        await this.removeContainer(slot.container.id);
        await rm(slot.dir, { recursive: true, force: true }).catch(() => {});
      })(),
    );
  }

  private track(p: Promise<unknown>): void {
    const q = p.catch(() => {}).finally(() => this.pending.delete(q));
    this.pending.add(q);
  }

  /**
   * Ports of the trial's endpoint on the gateway, as the launch tells the harness (HR_SVC, the proxy
   * variables, a model URL in the command). None found: the whole ephemeral range, with a warning.
   */
  private async endpointPorts(launch: TrialLaunch): Promise<string[]> {
    const esc = (h: string) => h.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const hosts = [this.gateway!, ...this.hostAliases].map(esc).join('|');
    const re = new RegExp(`(?:^|[^A-Za-z0-9.-])(?:${hosts}):(\\d{1,5})(?!\\d)`, 'g');
    const scan = (texts: string[]) => {
      const ports = new Set<string>();
      for (const text of texts) {
        for (const m of String(text).matchAll(re))
          if (Number(m[1]) > 0 && Number(m[1]) < 65536) ports.add(m[1]);
      }
      return [...ports];
    };
    // The engine names the endpoint in these (one endpoint per trial serves the model and the services).
    const known = scan(
      ENDPOINT_ENV.map((k) => launch.env[k]).filter((v): v is string => typeof v === 'string'),
    );
    if (known.length) return known;
    const any = scan([...Object.values(launch.env), ...launch.command]);
    if (any.length) return any;
    const [lo, hi] = await ephemeralRange();
    this.warnOnce(
      'ports',
      `docker runner: trial ${launch.trial_id} names no endpoint port on ${this.gateway} in its env or command; ` +
        `opening the ephemeral range ${lo}-${hi} of the gateway for it`,
    );
    return [`${lo}:${hi}`];
  }

  /**
   * A trial that failed to start while the run was being stopped failed because of the stop (the sweep
   * removed its container mid-exec), whatever the daemon's message says: never the harness's fault.
   */
  private interrupted(outcome: DockerProcessOutcome): DockerProcessOutcome {
    if (!this.stopping || !outcome.spawn_error || outcome.infra_error) return outcome;
    const { spawn_error, ...rest } = outcome;
    return { ...rest, infra_error: `the run was stopped (interrupted) during the trial: ${spawn_error}` };
  }

  /** Daemon gone (or the run stopping) → infra_error, and every later trial too; else → spawn_error. */
  private async classify(e: unknown, stage: string): Promise<Partial<ProcessOutcome>> {
    const msg = `docker ${stage}: ${errText(e)}`;
    if (this.stopping) return { infra_error: `${msg} (the run is stopping)` };
    // After the container exists, a failure to attach, exec or wait is never the harness's fault.
    if (isConnectionError(e) || stage === 'wait' || stage === 'attach' || stage === 'exec') {
      const pingOk = await this.ping(2_000).then(
        () => true,
        () => false,
      );
      if (!pingOk) this.dead = errText(e);
      return { infra_error: msg };
    }
    return { spawn_error: msg };
  }

  private async removeContainer(id: string): Promise<void> {
    const ac = new AbortController();
    const t = setTimeout(() => ac.abort(), REMOVE_TIMEOUT_MS);
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true, abortSignal: ac.signal } as object);
      this.live.delete(id);
    } catch (e) {
      const status = (e as { statusCode?: number }).statusCode;
      if (status === 404) this.live.delete(id);
      // else: left in `live`; stop() sweeps by label.
    } finally {
      clearTimeout(t);
    }
  }

  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    try {
      // Background removals and warm-ups first (new ones see `stopping` and discard themselves).
      for (let i = 0; i < 5 && this.pending.size > 0; i++) {
        await waitAtMost(Promise.allSettled([...this.pending]), REMOVE_TIMEOUT_MS);
      }
      for (const list of this.pool.values())
        for (const p of list)
          p.then(
            (s) => this.discard(s),
            () => {},
          );
      this.pool.clear();
      await waitAtMost(Promise.allSettled([...this.pending]), REMOVE_TIMEOUT_MS);
      await sweepRun(this.docker, this.runId);
      this.live.clear();
      this.networkId = undefined;
    } catch (e) {
      this.warn(
        `docker runner: could not remove the resources of run ${this.runId} (${errText(e)}); ` +
          `remove them with: docker rm -f $(docker ps -aq --filter label=${RUN_LABEL}=${this.runId}); ` +
          `docker network rm $(docker network ls -q --filter label=${RUN_LABEL}=${this.runId})`,
      );
    } finally {
      if (this.firewallTag) await removeFirewall(this.firewallTag).catch(() => {});
      if (this.tmpRoot) {
        await rm(this.tmpRoot, { recursive: true, force: true }).catch(() => {});
        this.tmpRoot = undefined;
      }
      if (!this.hasResources()) active.delete(this);
    }
  }

  /** Synchronous last-resort clean-up of host-side folders (process exit). */
  removeTmpSync(): void {
    if (this.tmpRoot) rmSync(this.tmpRoot, { recursive: true, force: true });
  }
}

/** For tests and the bench: is a daemon answering at this socket? */
export async function dockerReachable(
  socketPath = socketFromEnv(),
  timeoutMs = 3_000,
): Promise<string | undefined> {
  try {
    await pingDocker(makeDocker(socketPath), timeoutMs);
    return undefined;
  } catch (e) {
    return `Docker is not reachable at ${socketPath}: ${errText(e)}`;
  }
}
