// Which limit a trial hit, read from inside its container after the harness is gone: the memory
// cgroup's OOM-kill count, the pids cgroup's refused forks, how full the trial folders' tmpfs is (cgroup
// v1 and v2 paths both), and a file that reached the file size limit. A kill by a limit is then named as
// such, not as "exit SIGKILL". The sentences are the contained process runner's (one contract).
import { limitMessage } from '../contain/limits.js';

/**
 * A line `KEY value` of the first readable file, echoed on stderr, with shell builtins only: after a fork
 * bomb the pids cgroup can still be full (killed processes not yet reaped), so a probe that forks (`cat |
 * grep`) would fail exactly when it matters.
 */
export const keyLine = (files: string[], key: string): string =>
  `for f in ${files.join(' ')}; do if [ -r "$f" ]; then while read -r k v; do if [ "$k" = ${key} ]; then echo "${key} $v" >&2; fi; done < "$f"; break; fi; done`;

/** Shell that prints `oom_kill N`, `max N` and `disk <blocks> <free> <bsize>` on stderr. */
export const PROBE_SH = [
  keyLine(['/sys/fs/cgroup/memory.events', '/sys/fs/cgroup/memory/memory.oom_control'], 'oom_kill'),
  keyLine(['/sys/fs/cgroup/pids.events', '/sys/fs/cgroup/pids/pids.events'], 'max'),
  // Last: it forks (stat), which the pids limit allows again by now.
  'echo "disk $(stat -f -c "%b %a %S" /trial 2>/dev/null)" >&2',
].join('; ');

/** The probe's script ran (its last line is always printed, by a builtin): else the exec never started. */
export const ranProbe = (text: string): boolean => /^disk\b/m.test(text);

export interface LimitFacts {
  oomKills: number;
  forksRefused: number;
  diskFull: boolean;
  /** A trial file (`home/big.bin`) that reached the file size limit. */
  bigFile?: string;
}

export function parseProbe(text: string): LimitFacts {
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0) || 0;
  const d = /^disk (\d+) (\d+) (\d+)/m.exec(text);
  // "Full": less than 1 % (at least 64 KiB) left; a harness writing until ENOSPC leaves a few blocks.
  const diskFull = d
    ? Number(d[2]) * Number(d[3]) <= Math.max(64 * 1024, Number(d[1]) * Number(d[3]) * 0.01)
    : false;
  return { oomKills: num(/^oom_kill (\d+)/m), forksRefused: num(/^max (\d+)/m), diskFull };
}

/** Facts of several probes of one container: its counters only grow, so the largest of each holds. */
export function mergeFacts(all: LimitFacts[]): LimitFacts {
  return {
    oomKills: Math.max(0, ...all.map((f) => f.oomKills)),
    forksRefused: Math.max(0, ...all.map((f) => f.forksRefused)),
    diskFull: all.some((f) => f.diskFull),
  };
}

/** The limits hit, most specific first, in the words the trial's outcome and invalid reason carry. */
export function limitsHit(
  f: LimitFacts & { sigxfsz?: boolean },
  o: { memory: number; pids: number; disk: number; fileSize: number },
): string[] {
  const limits = { memory_bytes: o.memory, pids: o.pids, disk_bytes: o.disk, file_size_bytes: o.fileSize };
  const out: string[] = [];
  if (f.sigxfsz || f.bigFile) out.push(limitMessage('file_size', limits, f.bigFile));
  if (f.oomKills > 0)
    out.push(limitMessage('memory', limits, `${f.oomKills} OOM kill${f.oomKills > 1 ? 's' : ''}`));
  if (f.forksRefused > 0) out.push(limitMessage('pids', limits, `${f.forksRefused} refused`));
  if (f.diskFull) out.push(limitMessage('disk', limits));
  return out;
}
