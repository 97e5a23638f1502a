// A cell that is run afresh under --resume (its journal asks another question, its stored run is stale)
// would overwrite what an earlier run collected. It is renamed aside first, never deleted: a shard or case
// list changed by mistake costs a rename, not hours of trials.
import { existsSync, renameSync } from 'node:fs';
import { journalPathOf } from '../result/journal.js';

/**
 * Renames the run result `file` and its journal to `NAME.superseded-N.json` (and `.journal`), N the first
 * free number; returns the new result path, or undefined when there was nothing to keep.
 */
export function setAside(file: string): string | undefined {
  const journal = journalPathOf(file);
  if (!existsSync(file) && !existsSync(journal)) return undefined;
  const stem = file.replace(/\.json$/, '');
  let n = 1;
  const target = () => `${stem}.superseded-${n}.json`;
  while (existsSync(target()) || existsSync(journalPathOf(target()))) n++;
  const to = target();
  if (existsSync(file)) renameSync(file, to);
  if (existsSync(journal)) renameSync(journal, journalPathOf(to));
  return to;
}
