// The engine's output is the engine's alone. A harness under test (or a process it left behind) may
// write anywhere its runner lets it, including the result file and the evidence it would like to look
// better in. Containment keeps it out; this is the check that it did: the engine remembers the sha256 of
// every byte it wrote, and re-reads each file before its output is trusted (end of run; in the action,
// again before reporting, uploading or saving a baseline). A file that changed fails the run, by name.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UserError } from '../errors.js';
import type { RunResult } from '../spec/run-result.js';

export const sha256 = (bytes: string | Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The exact bytes the engine writes for a run result (and the action re-derives to verify it). */
export const resultBytes = (doc: RunResult): string => `${JSON.stringify(doc, null, 2)}\n`;

/**
 * resultBytes(doc) in pieces, one trial at a time, so writing a 14,400-trial result never holds the
 * whole document as one string (~40 MB, plus its encoding) beside the trials it was made from.
 */
export function* resultChunks(doc: RunResult): Generator<string> {
  // Stands in for the trials while the rest is stringified; random, so no text in a case can forge it.
  const placeholder = `\u0000trials-${randomBytes(12).toString('hex')}\u0000`;
  const shell = resultBytes({ ...doc, trials: placeholder as unknown as RunResult['trials'] });
  const slot = JSON.stringify(placeholder);
  const at = shell.indexOf(slot);
  yield shell.slice(0, at);
  if (doc.trials.length === 0) yield '[]';
  else {
    // A trial is an element of an array one level down: JSON.stringify(doc, null, 2) indents it by 4.
    yield '[\n';
    for (let i = 0; i < doc.trials.length; i++)
      yield `    ${JSON.stringify(doc.trials[i], null, 2).replace(/\n/g, '\n    ')}${i < doc.trials.length - 1 ? ',\n' : '\n  ]'}`;
  }
  yield shell.slice(at + slot.length);
}

export class OutputTampered extends UserError {
  constructor(readonly files: { path: string; problem: string }[]) {
    super(
      `${files.map((f) => `${f.path}: ${f.problem}`).join('; ')}: changed after harness-risk wrote ${files.length === 1 ? 'it' : 'them'}, so a trial (or a process it left running) wrote outside its own folders`,
      'do not upload, commit or compare this output; run the harness under a contained runner (runner: docker, or the contained process runner) and run again',
    );
    this.name = 'OutputTampered';
  }
}

/** What a file holds now compared with the digest written: undefined when it is unchanged. */
function problemOf(path: string, digest: string): string | undefined {
  let now: Buffer;
  try {
    now = readFileSync(path);
  } catch (e) {
    return `cannot be read back (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  const found = sha256(now);
  return found === digest ? undefined : `sha256 ${found.slice(0, 12)}…, written ${digest.slice(0, 12)}…`;
}

/** The files one run wrote, with the digest of their last write, kept in the engine's memory only. */
export class WrittenFiles {
  private readonly digests = new Map<string, string>();

  record(path: string, bytes: string | Buffer): void {
    this.digests.set(path, sha256(bytes));
  }

  /** For a file written piece by piece (the run journal): the digest of everything in it so far. */
  recordDigest(path: string, digest: string): void {
    this.digests.set(path, digest);
  }

  /** A file the engine itself removed (a finished run's journal) is no longer expected to exist. */
  forget(path: string): void {
    this.digests.delete(path);
  }

  /** Throws OutputTampered naming every file that no longer holds what was written. */
  verify(): void {
    const bad = [...this.digests].flatMap(([path, digest]) => {
      const problem = problemOf(path, digest);
      return problem ? [{ path, problem }] : [];
    });
    if (bad.length) throw new OutputTampered(bad);
  }
}

/** The action's check: the result file on disk still holds exactly the run result in memory. */
export function verifyResultFile(path: string, doc: RunResult): void {
  const problem = problemOf(path, sha256(resultBytes(doc)));
  if (problem) throw new OutputTampered([{ path, problem }]);
}
