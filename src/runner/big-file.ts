// The file that reached the file-size limit (RLIMIT_FSIZE), found in the trial folders after the harness
// is gone, so the limit can be named with the file (`file size limit (512 MiB) reached (home/big.bin)`).
// One search for every runner: the process runner reads the folders in place, the docker runner its
// copied-back folders.
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { TrialDirs } from '../world/trial-dirs.js';

/** Folders the search for a file at the size limit reads at most: a tree of 300,000 must not stall it. */
const BIG_FILE_SEARCH_DIRS = 2_000;

/** A file in the trial folders as large as the limit, relative to the trial root (`home/big.bin`). */
export async function findFileOfSize(dirs: TrialDirs, limit: number): Promise<string | undefined> {
  let budget = BIG_FILE_SEARCH_DIRS;
  const walk = async (p: string, depth: number): Promise<string | undefined> => {
    if (depth > 12 || budget-- <= 0) return undefined;
    let entries: Dirent[];
    try {
      entries = await readdir(p, { withFileTypes: true });
    } catch {
      return undefined;
    }
    for (const e of entries) {
      const f = join(p, e.name);
      if (e.isFile()) {
        const s = await stat(f).catch(() => undefined);
        if (s && s.size >= limit) return f;
      } else if (e.isDirectory()) {
        const r = await walk(f, depth + 1);
        if (r) return r;
      }
    }
    return undefined;
  };
  for (const d of [dirs.workspace, dirs.home, dirs.tmp, dirs.bin]) {
    const r = await walk(d, 0);
    if (r) return r.slice(dirs.root.length + 1);
  }
  return undefined;
}
