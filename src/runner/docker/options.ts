// Options of the docker runner, their defaults, and the names every part of it shares.

export const RUN_LABEL = 'harness-risk.run';
export const TRIAL_LABEL = 'harness-risk.trial';
/**
 * `host:pid:start` of the process that created the resource, and the boot it ran in (BOOT_LABEL): the
 * sweep at the start of every run removes what belongs to a process that is gone, whatever its age.
 */
export { BOOT_LABEL, OWNER_LABEL } from '../owner.js';
export const DEFAULT_IMAGE = 'harness-risk/node:local';
export const DEFAULT_SOCKET = '/var/run/docker.sock';
/** Fake hostnames that resolve to the container's loopback, where the trial's endpoint relay listens. */
// The mock services' fake host names: defined once, by the service catalog.
export { FAKE_HOSTS } from '../../world/service-catalog.js';
/** Sandbox paths of the trial folders, the read-only mounts and the endpoint socket folder. */
export const SANDBOX_PATHS = {
  trial: '/trial',
  workspace: '/trial/workspace',
  home: '/trial/home',
  tmp: '/trial/tmp',
  bin: '/trial/bin',
  readOnly: '/opt/hr/ro',
  endpoint: '/opt/hr/ep',
} as const;
export const TRIAL_KEYS = ['workspace', 'home', 'tmp', 'bin'] as const;
export type TrialKey = (typeof TRIAL_KEYS)[number];
// The workflow's variables a trial never gets, and the kill grace: one definition for every runner.
export { KILL_GRACE_MS } from '../shared.js';
export const STANDARD_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];
/** Host-side folders of a run are `$TMPDIR/hr-docker-<pid>-XXXXXX` (an `owner.json` inside names it). */
export const TMP_PREFIX = 'hr-docker-';

export interface DockerRunnerOptions {
  /** Run id; every container carries `harness-risk.run=<runId>`. */
  runId: string;
  /** Image the harness runs in (default harness-risk/node:local, built by scripts/docker-image.sh). */
  image?: string;
  /** Memory limit, bytes or `512m`/`1g` (default 1g); swap is disabled. */
  memory?: string | number;
  /**
   * Size cap of the trial folders (workspace, HOME, TMPDIR, bin), bytes or `512m` (default 512m). They live
   * on a tmpfs inside the container, so this also bounds what is copied back to the host; tmpfs pages count
   * against `memory`, so keep it below the memory limit.
   */
  disk?: string | number;
  /** Most files and folders the trial folders may hold (default 65536). */
  inodes?: number;
  /** Largest file a process may write anywhere, bytes or `512m` (default 512m; SIGXFSZ beyond). */
  fileSize?: string | number;
  /** CPU limit (default 1). */
  cpus?: number;
  /** Process limit (default 256). */
  pids?: number;
  /**
   * `uid:gid` inside the container. Default: when this process is not root, its own uid:gid; when it is
   * root, 1000:1000 if the image has that user, else root.
   */
  user?: string;
  /** Docker socket (default: DOCKER_HOST when unix://, else /var/run/docker.sock). */
  socketPath?: string;
  /** Read-only root filesystem with tmpfs /tmp, /var/tmp, /run (default true). */
  readOnlyRootfs?: boolean;
  /** Fake hostnames mapped to the container's loopback (default FAKE_HOSTS). */
  hostAliases?: string[];
  /** Remove leftovers of runs whose owner process is gone during start() (default true). */
  sweepStale?: boolean;
  /** Install the once-per-process SIGINT/SIGTERM sweep (default true). */
  signalHandlers?: boolean;
  /** Where warnings go (default process.emitWarning). */
  onWarning?: (message: string) => void;
  /**
   * Warm containers kept started and idle (default 1; 0 = each trial's container is created when the
   * trial starts). A container never serves a second trial.
   */
  warm?: number;
  /**
   * What the trials will mount, one entry per set (a tree: base and head have one each): start() starts
   * warm containers for each, and the pool keeps that many sets warm at once, so trials that alternate
   * between trees never throw each other's containers away.
   */
  prewarm?: { readOnly: string[]; hide?: string[] }[];
}

export function socketFromEnv(): string {
  const host = process.env.DOCKER_HOST;
  if (host?.startsWith('unix://')) return host.slice('unix://'.length);
  return DEFAULT_SOCKET;
}

/** `512m`, `1g`, `1.5G`, `1024` (bytes) → bytes; `what` names the option in the error. */
export function parseSize(v: string | number | undefined, fallback: number, what = 'memory'): number {
  if (v === undefined) return fallback;
  if (typeof v === 'number') return Math.floor(v);
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$/i.exec(v);
  if (!m) throw new Error(`docker runner: ${what} "${v}" is not a size like 512m or 1g`);
  const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[m[2].toLowerCase() as ''];
  return Math.floor(Number(m[1]) * mult);
}

export function parseMemory(v: string | number | undefined): number {
  return parseSize(v, 1024 ** 3, 'memory');
}

export const mib = (bytes: number) => Math.round(bytes / 1024 ** 2);

export function safeName(s: string): string {
  return (
    s
      .replace(/[^a-zA-Z0-9_.-]+/g, '-')
      .replace(/^[^a-zA-Z0-9]+/, '')
      .slice(0, 60) || 'x'
  );
}
