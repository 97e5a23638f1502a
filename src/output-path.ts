// Output files named by the user (the run result, SARIF, JUnit), checked before the first trial: a folder,
// a path under a file, or a place that cannot be written would otherwise fail with an EISDIR/EACCES stack
// trace after every trial ran, and lose what was collected (the baseline save is skipped too).
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UserError } from './errors.js';

function stat(p: string) {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}

function writable(p: string): boolean {
  try {
    accessSync(p, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Throws a UserError naming `field` when `file` cannot become a file this process writes: it is a folder,
 * something on its way is a file, or the file (or its nearest existing folder) is not writable. Creates
 * nothing.
 */
export function checkOutputPath(file: string, field: string, cwd = process.cwd()): void {
  const abs = resolve(cwd, file);
  const here = stat(abs);
  if (here?.isDirectory())
    throw new UserError(
      `${field}: "${file}" is a folder, not a file`,
      `name a file inside it, e.g. ${file.replace(/\/+$/, '')}/result.json`,
    );
  if (here) {
    if (!writable(abs))
      throw new UserError(
        `${field}: "${file}" cannot be written (no permission)`,
        'choose a path this job can write',
      );
    return;
  }
  let dir = dirname(abs);
  for (;;) {
    const s = stat(dir);
    if (s) {
      if (!s.isDirectory())
        throw new UserError(
          `${field}: "${file}" lies under ${dir}, which is a file, not a folder`,
          'choose a path whose parent folders are folders',
        );
      if (!writable(dir))
        throw new UserError(
          `${field}: "${file}" cannot be created: ${dir} is not writable`,
          'choose a path this job can write (e.g. under the workspace or $RUNNER_TEMP)',
        );
      return;
    }
    const up = dirname(dir);
    if (up === dir) return;
    dir = up;
  }
}
