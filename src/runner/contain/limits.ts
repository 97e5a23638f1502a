// The per-trial limits of the contained process runner, and how the runner tells, after a trial, which
// limit stopped it. A trial that died of a limit must say so ("memory limit (2 GiB) reached"), never
// just "exit SIGKILL": the first is a finding about the harness, the second looks like a broken runner.
import { z } from 'zod';
import { fmtBytes } from '../../bytes.js';

const MiB = 1024 * 1024;

export const Limits = z
  .object({
    /** Memory of everything in the trial (cgroup), bytes. Without a cgroup: RLIMIT_DATA per process. */
    memory_bytes: z
      .number()
      .int()
      .positive()
      .default(2048 * MiB),
    /** Processes and threads of the trial (cgroup pids.max; without a cgroup RLIMIT_NPROC). */
    pids: z.number().int().positive().default(1024),
    /** Largest file the harness may write (RLIMIT_FSIZE). */
    file_size_bytes: z
      .number()
      .int()
      .positive()
      .default(512 * MiB),
    /** All trial folders together (a size-capped tmpfs under them; its pages count as memory too). */
    disk_bytes: z
      .number()
      .int()
      .positive()
      .default(1024 * MiB),
  })
  .strict();
export type Limits = z.infer<typeof Limits>;

/** How each limit is enforced on this machine; `none` means it is not. */
export const LimitMechanisms = z
  .object({
    memory: z.enum(['cgroup v1', 'cgroup v2', 'rlimit data', 'none']),
    pids: z.enum(['cgroup v1', 'cgroup v2', 'rlimit nproc', 'none']),
    file_size: z.enum(['rlimit fsize', 'none']),
    disk: z.enum(['tmpfs', 'tmpfs (sudo)', 'none']),
  })
  .strict();
export type LimitMechanisms = z.infer<typeof LimitMechanisms>;

export type LimitKind = 'memory' | 'pids' | 'file_size' | 'disk';

/** The sentence a trial's outcome carries when `kind` stopped it. */
export function limitMessage(kind: LimitKind, limits: Limits, detail = ''): string {
  const what = {
    memory: `memory limit (${fmtBytes(limits.memory_bytes)}) reached: the kernel killed a process of the trial`,
    pids: `process limit (${limits.pids} processes and threads) reached: a fork failed`,
    file_size: `file size limit (${fmtBytes(limits.file_size_bytes)}) reached`,
    disk: `disk limit (${fmtBytes(limits.disk_bytes)} for the trial folders) reached`,
  }[kind];
  return detail ? `${what} (${detail})` : what;
}
