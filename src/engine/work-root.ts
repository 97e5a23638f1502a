// The engine's work root (`$TMPDIR/harness-risk-<run>-XXXXXX`, every trial's folders) names its owner, so
// the next run removes the root of an engine that was SIGKILLed (no `finally` ran), whatever its age.
import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOOT_ID, ownerGone, ownerId } from '../runner/owner.js';

export const WORK_ROOT_PREFIX = 'harness-risk-';
const OWNER_FILE = 'owner.json';

export async function createWorkRoot(runId: string, parent = tmpdir()): Promise<string> {
  const dir = await mkdtemp(join(parent, `${WORK_ROOT_PREFIX}${runId}-`));
  await writeFile(join(dir, OWNER_FILE), JSON.stringify({ owner: ownerId(), boot: BOOT_ID }));
  return dir;
}

/** Removes work roots whose owner is certainly gone; returns the folders removed. */
export async function sweepWorkRoots(parent = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    if (!name.startsWith(WORK_ROOT_PREFIX)) continue;
    const dir = join(parent, name);
    const st = await lstat(dir).catch(() => undefined);
    if (!st?.isDirectory()) continue;
    let rec: { owner?: string; boot?: string } | undefined;
    try {
      rec = JSON.parse(await readFile(join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // not ours to judge (no owner record): an older version's, or being created right now
    }
    if (ownerGone(rec?.owner, rec?.boot) !== true) continue;
    await rm(dir, { recursive: true, force: true }).catch(() => {});
    removed.push(dir);
  }
  return removed;
}
