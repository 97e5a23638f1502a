// The per-trial limits of evidence collection, whatever the runner: how many connections a trial may hold
// open to its endpoint, and how much of its folders a snapshot walks and hashes. A hostile harness must
// not be able to exhaust the engine's file descriptors or stall it for minutes; each cap it reaches is
// named in the trial's `limit_hit`, and a capped snapshot is recorded in the evidence (`snapshot_caps`)
// so that checks over what it did not see are undecided, never "no change".
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { fmtBytes } from '../bytes.js';

const MiB = 1024 * 1024;

export const TrialLimits = z
  .object({
    /**
     * Connections one trial may hold open to its endpoint at once (the sandbox's relay, the docker
     * bridge and the endpoint's listeners each refuse more). A harness needs a handful.
     */
    connections: z.number().int().positive().default(256),
    /** Files (and other non-folder entries) one snapshot lists. */
    snapshot_files: z.number().int().positive().default(20_000),
    /** Folders one snapshot walks. */
    snapshot_dirs: z.number().int().positive().default(10_000),
    /** Bytes of one file a snapshot hashes; a larger (or sparse) file is hashed in part and marked so. */
    snapshot_file_bytes: z
      .number()
      .int()
      .positive()
      .default(64 * MiB),
    /** Bytes one snapshot hashes over all files. */
    snapshot_bytes: z
      .number()
      .int()
      .positive()
      .default(256 * MiB),
  })
  .strict();
export type TrialLimits = z.infer<typeof TrialLimits>;

const bytes = (n: number) => (n >= MiB ? fmtBytes(n) : `${n} bytes`);

export type TrialLimitKind = 'connections' | 'snapshot_files' | 'snapshot_dirs' | 'snapshot_bytes';

/** The sentence a trial's `limit_hit` carries when `kind` stopped something. */
export function trialLimitMessage(kind: TrialLimitKind, limits: TrialLimits, detail = ''): string {
  const what = {
    connections: `connection limit (${limits.connections} concurrent connections to the trial's endpoint) reached: further connections were closed`,
    snapshot_files: `snapshot file limit (${limits.snapshot_files} files) reached: the snapshot is incomplete`,
    snapshot_dirs: `snapshot folder limit (${limits.snapshot_dirs} folders) reached: the snapshot is incomplete`,
    snapshot_bytes: `snapshot hash limit (${bytes(limits.snapshot_file_bytes)} a file, ${bytes(limits.snapshot_bytes)} in all) reached: some files were hashed in part`,
  }[kind];
  return detail ? `${what} (${detail})` : what;
}

/** This process's soft limit on open files (RLIMIT_NOFILE, from /proc/self/limits), if it can tell. */
export function openFileLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const m = /^Max open files\s+(\d+)/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** Descriptors one held connection can cost the engine (docker: the bridge's two and the endpoint's one). */
const FDS_PER_CONNECTION = 3;
/** Never fewer than this per trial: a harness needs a handful of connections at once. */
const MIN_CONNECTIONS = 8;

/**
 * The per-trial connection cap that fits this engine's file descriptors: all trials at their cap together
 * use at most half of them (the rest is for files, pipes, sandboxes and the result). Node cannot raise its
 * own hard limit, so the engine bounds what each trial may use instead.
 */
export function fitConnections(connections: number, concurrency: number, nofile = openFileLimit()): number {
  if (!nofile) return connections;
  const share = Math.floor(nofile / 2 / (Math.max(1, concurrency) * FDS_PER_CONNECTION));
  return Math.max(MIN_CONNECTIONS, Math.min(connections, share));
}
