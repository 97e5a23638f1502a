// Who owns a leftover (a container, a folder, a mount) and whether that owner is gone: `host:pid:start`
// plus the boot id, so a pid reused by a later process or a reboot is never taken for the owner.
import { readFileSync } from 'node:fs';
import os from 'node:os';

/** Labels that carry the owner on Docker objects. */
export const OWNER_LABEL = 'harness-risk.owner';
export const BOOT_LABEL = 'harness-risk.boot';

function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export const BOOT_ID = (() => {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
})();

/** This process as an owner: `host:pid:start`. */
export function ownerId(): string {
  return `${os.hostname()}:${process.pid}:${startTime(process.pid) ?? '?'}`;
}

export function ownerLabels(): Record<string, string> {
  return { [OWNER_LABEL]: ownerId(), [BOOT_LABEL]: BOOT_ID };
}

/** true: the owner is certainly gone; false: alive; undefined: cannot tell (another host). */
export function ownerGone(owner: string | undefined, boot: string | undefined): boolean | undefined {
  if (!owner) return undefined;
  const [host, pidText, start] = owner.split(':');
  if (host !== os.hostname()) return undefined;
  if (boot && BOOT_ID !== 'unknown' && boot !== BOOT_ID) return true;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as { code?: string }).code !== 'EPERM') return true;
  }
  // Alive: the same process, or a later one that got its pid?
  if (start && start !== '?') {
    const now = startTime(pid);
    if (now !== undefined && now !== start) return true;
  }
  return false;
}
