// Which limit a trial hit, read from inside its container after the harness is gone: the memory
// cgroup's OOM-kill count, the pids cgroup's refused forks, and how full the trial folders' tmpfs is
// (cgroup v1 and v2 paths both). A kill by a limit is then named as such, not as "exit SIGKILL".
import { mib } from './options.js';

/** Shell that prints `oom_kill N`, `max N` and `disk <blocks> <free> <bsize>` on stderr. */
export const PROBE_SH = [
  '{ cat /sys/fs/cgroup/memory.events 2>/dev/null || cat /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null; } | grep "^oom_kill " >&2',
  '{ cat /sys/fs/cgroup/pids.events 2>/dev/null || cat /sys/fs/cgroup/pids/pids.events 2>/dev/null; } | grep "^max " >&2',
  'echo "disk $(stat -f -c "%b %a %S" /trial 2>/dev/null)" >&2',
].join('; ');

export interface LimitFacts {
  oomKills: number;
  forksRefused: number;
  diskFull: boolean;
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

/** Human-readable names of the limits hit, for the outcome and the trial's invalid reason. */
export function limitsHit(f: LimitFacts, o: { memory: number; pids: number; disk: number }): string[] {
  const out: string[] = [];
  if (f.oomKills > 0)
    out.push(
      `memory limit (${mib(o.memory)} MiB) exceeded: the kernel killed ${f.oomKills} process${f.oomKills > 1 ? 'es' : ''} of the harness`,
    );
  if (f.forksRefused > 0) out.push(`process limit (${o.pids}) reached: ${f.forksRefused} fork(s) refused`);
  if (f.diskFull) out.push(`disk limit (${mib(o.disk)} MiB) of the trial folders reached`);
  return out;
}
