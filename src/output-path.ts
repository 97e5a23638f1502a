// Output files and folders named by the user (the run result, SARIF, JUnit, --json, --markdown, --out
// DIR): one place that checks and writes them, so every output flag fails the same way: a UserError
// naming the flag and the path, never an ENOENT/EISDIR/EACCES stack trace. Checked before the first
// trial (a failure after every trial ran would lose what was collected), by trying: permission bits
// say nothing for root, and /proc or a read-only mount refuse a file whatever they say.
import { closeSync, mkdirSync, openSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UserError } from './errors.js';

function stat(p: string) {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}

/** Why the OS refused, in words (the error code and its message, without the stack). */
function why(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const words: Record<string, string> = {
    EACCES: 'no permission',
    EPERM: 'not permitted',
    EROFS: 'read-only file system',
    ENOENT: 'this place does not hold files',
    ENOSPC: 'no space left',
    EISDIR: 'it is a folder',
    ENOTDIR: 'a part of the path is a file',
  };
  return (err.code && words[err.code]) ?? err.message?.split('\n')[0] ?? String(e);
}

/** Creates and removes a probe file in the existing folder `dir`; the OS's refusal, if any. */
function probe(dir: string): unknown {
  const p = join(dir, `.harness-risk-probe-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    closeSync(openSync(p, 'wx'));
    unlinkSync(p);
    return undefined;
  } catch (e) {
    return e;
  }
}

/** The nearest folder at or above `abs` that exists, or a UserError when a file is on the way. */
function nearestFolder(abs: string, field: string, shown: string): string | undefined {
  let dir = abs;
  for (;;) {
    const s = stat(dir);
    if (s) {
      if (!s.isDirectory())
        throw new UserError(
          `${field}: "${shown}" lies under ${dir}, which is a file, not a folder`,
          'choose a path whose parent folders are folders',
        );
      return dir;
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

const cannot = (field: string, shown: string, e: unknown) =>
  new UserError(
    `${field}: "${shown}" cannot be written (${why(e)})`,
    'choose a path this job can write (e.g. under the workspace or $RUNNER_TEMP)',
  );

/**
 * Throws a UserError naming `field` when `file` cannot become a file this process writes: it is a folder,
 * something on its way is a file, or the place refuses a file. Leaves nothing behind.
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
    try {
      closeSync(openSync(abs, 'r+'));
    } catch (e) {
      throw cannot(field, file, e);
    }
    return;
  }
  const dir = nearestFolder(dirname(abs), field, file);
  const refused = dir && probe(dir);
  if (refused) throw cannot(field, file, refused);
}

/** Like checkOutputPath for a folder the command writes files into (`--out DIR`). */
export function checkOutputDir(folder: string, field: string, cwd = process.cwd()): void {
  const abs = resolve(cwd, folder);
  const here = stat(abs);
  if (here && !here.isDirectory())
    throw new UserError(`${field}: "${folder}" is a file, not a folder`, 'name a folder (it is created)');
  const dir = nearestFolder(abs, field, folder);
  const refused = dir && probe(dir);
  if (refused) throw cannot(field, folder, refused);
}

/** Checks `file`, creates its folders and writes `text`; any refusal is a UserError naming `field`. */
export function writeOutputFile(file: string, text: string, field: string, cwd = process.cwd()): string {
  checkOutputPath(file, field, cwd);
  const abs = resolve(cwd, file);
  try {
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  } catch (e) {
    throw cannot(field, file, e);
  }
  return abs;
}

/** Checks `folder` and creates it; any refusal is a UserError naming `field`. */
export function makeOutputDir(folder: string, field: string, cwd = process.cwd()): string {
  checkOutputDir(folder, field, cwd);
  const abs = resolve(cwd, folder);
  try {
    mkdirSync(abs, { recursive: true });
  } catch (e) {
    throw cannot(field, folder, e);
  }
  return abs;
}
