// The `file` baseline source: a committed run result named by the user (`baseline: file:PATH`, `--baseline FILE`).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Baseline, parseBaseline, readJsonFile } from '../compare/baseline.js';
import { UserError } from '../errors.js';

/** `file:PATH` → a baseline; the file must exist (an explicitly named baseline is never silently skipped). */
export function loadBaselineFile(path: string, cwd = process.cwd()): Baseline {
  const abs = resolve(cwd, path);
  if (!existsSync(abs)) {
    throw new UserError(
      `baseline file:${path}: no such file`,
      'commit a baseline (the run result of the base branch, e.g. the `result-path` output of a run on main), or use `baseline: cache` / `baseline: none`',
    );
  }
  return parseBaseline(readJsonFile(abs, 'baseline'), `file:${path}`);
}
