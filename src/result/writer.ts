// Writes the run result incrementally: after every trial the whole document is rewritten atomically
// (temp file + rename), so a crash or an interrupt loses nothing already collected. Every write is
// recorded (sha256, in memory) so the engine can prove at the end that the file is still its own.
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { summarize } from '../score/summarize.js';
import { resultBytes, WrittenFiles } from './integrity.js';
import type { RunResult, Trial } from './schema.js';

export class ResultWriter {
  private readonly doc: RunResult;

  constructor(
    readonly path: string,
    header: Omit<RunResult, 'trials' | 'summary' | 'status'>,
    readonly written: WrittenFiles = new WrittenFiles(),
  ) {
    this.doc = { ...header, status: 'running', trials: [], summary: summarize([]) };
    mkdirSync(dirname(path), { recursive: true });
    this.flush();
  }

  add(trial: Trial): void {
    this.doc.trials.push(trial);
    this.doc.trials.sort((a, b) => a.id.localeCompare(b.id));
    this.doc.summary = summarize(this.doc.trials);
    this.flush();
  }

  finish(status: 'complete' | 'interrupted'): RunResult {
    this.doc.status = status;
    this.doc.finished_at = new Date().toISOString();
    this.flush();
    return this.doc;
  }

  private flush(): void {
    // A random temp name opened exclusively: a planted file or symlink at a guessable name cannot
    // redirect the write.
    const tmp = `${this.path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
    const bytes = resultBytes(this.doc);
    writeFileSync(tmp, bytes, { flag: 'wx' });
    renameSync(tmp, this.path);
    this.written.record(this.path, bytes);
  }
}
