// Run result files named by the user: files, or folders whose *.json files are taken (sorted). Shared by
// the action's `run-result` input and the CLI's `compare --head`.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export class ResultFilesError extends Error {
  constructor(
    readonly entry: string,
    message: string,
  ) {
    super(message);
    this.name = 'ResultFilesError';
  }
}

export function expandResultFiles(entries: string[], cwd: string): string[] {
  const out: string[] = [];
  for (const entry of entries) {
    const abs = resolve(cwd, entry);
    let isDir = false;
    try {
      isDir = statSync(abs).isDirectory();
    } catch {
      throw new ResultFilesError(
        entry,
        `"${entry}" does not exist; give the path of a run result JSON (or a folder of them), e.g. the result-path output of an earlier step or a downloaded artifact`,
      );
    }
    if (isDir) {
      const files = readdirSync(abs)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => join(abs, f));
      if (files.length === 0)
        throw new ResultFilesError(entry, `folder "${entry}" holds no .json run result`);
      out.push(...files);
    } else out.push(abs);
  }
  return out;
}

/**
 * Where a trial's kept evidence is, from the run result file that names it: `evidence_file` is relative to
 * the result's folder (an absolute one, from a result written before that, is taken as it is).
 */
export const evidenceFileOf = (resultFile: string, evidenceFile: string): string =>
  resolve(dirname(resultFile), evidenceFile);
