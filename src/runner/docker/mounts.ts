// What a trial's container sees of the host, and its limits.
// Read-only folders appear at /opt/hr/ro + their host path (the action's dist/ at
// /opt/hr/ro/home/runner/work/_actions/harness-risk/harness-risk-action/v1/dist). The mapping is a pure function
// of the path, so `{{action_root}}/dist/…` lands inside the dist/ mount whatever the working directory,
// whichever folder was mapped first, and whether warm containers were made before the trial rendered
// its templates. Only the folders listed read-only are mounted; their parents are empty mount points.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type Docker from 'dockerode';
import type { TrialDirs } from '../../world/trial-dirs.js';
import { DEFAULT_SOCKET, SANDBOX_PATHS, TRIAL_KEYS } from './options.js';

export function within(child: string, parent: string): string | undefined {
  if (child === parent) return '';
  const rel = path.relative(parent, child);
  if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  return undefined;
}

/** Host path → sandbox path: trial folders to /trial/…, anything else to /opt/hr/ro/<host path>. */
export function mapReadOnly(hostPath: string, dirs?: TrialDirs): string {
  const p = path.resolve(hostPath);
  if (dirs) {
    for (const k of TRIAL_KEYS) {
      const rel = within(p, path.resolve(dirs[k]));
      if (rel !== undefined) return path.posix.join(SANDBOX_PATHS[k], rel);
    }
  }
  return path.posix.join(SANDBOX_PATHS.readOnly, p);
}

/** The read-only mounts of a launch; `key` identifies the set (a warm container serves one set). */
export interface RoSet {
  mounts: Docker.MountSettings[];
  key: string;
}

/**
 * The launch's read-only folders as ro binds (never /, nor anything holding the Docker socket; a folder
 * inside another listed one is shown by the outer mount).
 */
export async function readOnlyMounts(
  readOnly: string[],
  hide: string[],
  o: { socketPath: string; uid: number; user: string; warn: (key: string, m: string) => void },
): Promise<RoSet> {
  const allowed: string[] = [];
  for (const ro of readOnly) {
    const p = path.resolve(ro);
    if (p === '/' || within(o.socketPath, p) !== undefined || within(DEFAULT_SOCKET, p) !== undefined) {
      o.warn(`ro:${p}`, `docker runner: refusing to mount ${p} (it is / or holds the Docker socket)`);
      continue;
    }
    const st = await stat(p).catch(() => undefined);
    if (!st) {
      o.warn(`ro-missing:${p}`, `docker runner: read-only folder ${p} does not exist; not mounted`);
      continue;
    }
    if (o.uid !== 0 && st.uid !== o.uid && (st.mode & 0o005) !== 0o005) {
      o.warn(
        `ro-perm:${p}`,
        `docker runner: read-only folder ${p} is not readable by the container user ${o.user} (mode ` +
          `${(st.mode & 0o777).toString(8)}); make it world-readable (chmod -R o+rX) or the harness cannot use it`,
      );
    }
    allowed.push(p);
  }
  const outer = [...new Set(allowed)].filter(
    (p) => !allowed.some((q) => q !== p && within(p, q) !== undefined),
  );
  const mounts: Docker.MountSettings[] = outer
    .sort()
    .map((p) => ({ Type: 'bind' as const, Source: p, Target: mapReadOnly(p), ReadOnly: true }));
  // Paths no harness may even see although a mounted folder holds them (the result, kept evidence):
  // an empty read-only tmpfs over a folder, /dev/null over a file.
  for (const h of [...new Set(hide.map((x) => path.resolve(x)))].sort()) {
    if (!outer.some((p) => within(h, p) !== undefined)) continue;
    const st = await stat(h).catch(() => undefined);
    if (!st) continue;
    mounts.push(
      st.isDirectory()
        ? {
            Type: 'tmpfs',
            Source: '',
            Target: mapReadOnly(h),
            ReadOnly: true,
            TmpfsOptions: { SizeBytes: 4096, Mode: 0o555 },
          }
        : { Type: 'bind', Source: '/dev/null', Target: mapReadOnly(h), ReadOnly: true },
    );
  }
  return { mounts, key: JSON.stringify(mounts.map((m) => [m.Type, m.Source, m.Target])) };
}

export interface Limits {
  memory: number;
  nanoCpus: number;
  pids: number;
  disk: number;
  inodes: number;
  /** Largest file a process may write (RLIMIT_FSIZE; SIGXFSZ beyond). */
  fileSize: number;
}

/**
 * Docker mounts a tmpfs `noexec` unless told `exec`. The process runner's trial folders and /tmp are
 * executable, so harnesses that write a script into TMPDIR and run it (and the `svc` shim in bin/) work
 * there; the same harness must get the same labels here. nosuid and nodev stay.
 */
export const TMPFS_FLAGS = 'rw,exec,nosuid,nodev';

/** No network, no capabilities, no new privileges, read-only root, the trial folders on a capped tmpfs. */
export function hostConfig(
  mounts: Docker.MountSettings[],
  o: Limits & { readOnlyRootfs: boolean; hostAliases: string[]; uid: number; gid: number },
): Docker.HostConfig {
  const tmpfs: Record<string, string> = {
    [SANDBOX_PATHS.trial]: `${TMPFS_FLAGS},size=${o.disk},nr_inodes=${o.inodes},uid=${o.uid},gid=${o.gid},mode=0755`,
  };
  if (o.readOnlyRootfs) {
    tmpfs['/tmp'] = `${TMPFS_FLAGS},size=256m,mode=1777`;
    tmpfs['/var/tmp'] = `${TMPFS_FLAGS},size=64m,mode=1777`;
    tmpfs['/run'] = 'rw,nosuid,nodev,size=16m,mode=755';
  }
  return {
    // Only the container's own loopback: the endpoint arrives over a unix socket (see network.ts).
    NetworkMode: 'none',
    // An init (the daemon's docker-init, tini) as pid 1 reaps what the harness orphans: the relay is node,
    // which waits only for its own children, and every unreaped zombie keeps a slot of the process limit.
    Init: true,
    Mounts: mounts,
    Memory: o.memory,
    MemorySwap: o.memory,
    NanoCpus: o.nanoCpus,
    PidsLimit: o.pids,
    ReadonlyRootfs: o.readOnlyRootfs,
    Tmpfs: tmpfs,
    CapDrop: ['ALL'],
    SecurityOpt: ['no-new-privileges'],
    Privileged: false,
    ExtraHosts: o.hostAliases.map((h) => `${h}:127.0.0.1`),
    Ulimits: [{ Name: 'fsize', Soft: o.fileSize, Hard: o.fileSize }],
    IpcMode: 'private',
    AutoRemove: false,
    LogConfig: { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '1' } },
  };
}
