// Writes the run result. Every trial is appended to the journal beside the result (journal.ts): O(1) per
// trial, fsync'd, so a crash loses nothing already collected. The full document (sorted, summarised) is
// written on finish — including an interrupted finish (SIGINT/SIGTERM abort the run, which then finishes)
// — and, while running, at most every few seconds, so a reader of the result file mid-run sees progress
// without the engine rewriting a growing file after every trial. Every write is recorded (sha256, in
// memory) so the engine can prove at the end that its files are still its own.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { runUsage, sampled, summarize } from '../score/summarize.js';
import type { Attestation, RunResult, Trial } from '../spec/run-result.js';
import { resultChunks, WrittenFiles } from './integrity.js';
import { JournalWriter, journalPathOf, type ResultHeader } from './journal.js';

export interface WriterOptions {
  /** Least time between full rewrites while running, in ms (0: only at start and finish). */
  flushEveryMs?: number;
  /** Clock in ms (tests pass a fake one). */
  now?: () => number;
  /** fsync each journal line (default true; a test of byte counts may turn it off). */
  fsync?: boolean;
  /** Trials carried over from the journal of the run being resumed. */
  carried?: Trial[];
  /** List only the cases that have a trial (a target that runs a subset of the header's cases). */
  onlyCasesRun?: boolean;
  /** Signs the finished document (attestation.ts); its MAC is written as the last member. */
  sign?: (doc: RunResult) => Attestation | undefined;
}

/** A rewrite may take at most this share of the run: the interval grows with the document. */
const MAX_FLUSH_SHARE = 0.02;
/**
 * And it waits until the run has grown by this factor since the last rewrite: the trials rewritten over a
 * whole run then stay within 1 + 1/(g − 1) = 5 times the final document's, so the cost spread over each
 * trial stays the same at trial 100 and at trial 14,400 (with the time share alone it grew with the run
 * until it reached 2 % of a trial's time: 0.5 ms a trial at first, 12 ms at 14,400 trials).
 */
const REWRITE_GROWTH = 1.25;

export class ResultWriter {
  private readonly header: ResultHeader;
  private readonly trials: Trial[];
  private status: RunResult['status'] = 'running';
  private finishedAt: string | undefined;
  private readonly journal: JournalWriter;
  private readonly now: () => number;
  private readonly flushEveryMs: number;
  private lastFlush = 0;
  /** Trials in the last full document written. */
  private flushedTrials = 0;
  private readonly onlyCasesRun: boolean;
  private readonly sign: WriterOptions['sign'];
  private interval: number;
  /** Bytes of full documents written so far (journal bytes are `journalBytes`). */
  documentBytes = 0;

  constructor(
    readonly path: string,
    header: ResultHeader,
    readonly written: WrittenFiles = new WrittenFiles(),
    options: WriterOptions = {},
  ) {
    this.header = header;
    this.trials = [...(options.carried ?? [])];
    this.now = options.now ?? Date.now;
    this.flushEveryMs = options.flushEveryMs ?? 3000;
    this.interval = this.flushEveryMs;
    this.onlyCasesRun = options.onlyCasesRun ?? false;
    this.sign = options.sign;
    mkdirSync(dirname(path), { recursive: true });
    this.journal = new JournalWriter(journalPathOf(path), header, this.trials, options.fsync ?? true);
    this.recordJournal();
    this.flush();
  }

  get journalPath(): string {
    return this.journal.path;
  }

  get journalBytes(): number {
    return this.journal.bytes;
  }

  add(trial: Trial): void {
    this.journal.appendTrial(trial);
    this.recordJournal();
    this.trials.push(trial);
    if (
      this.flushEveryMs > 0 &&
      this.now() - this.lastFlush >= this.interval &&
      this.trials.length >= this.flushedTrials * REWRITE_GROWTH
    )
      this.flush();
  }

  finish(status: 'complete' | 'interrupted'): RunResult {
    this.status = status;
    this.finishedAt = new Date().toISOString();
    const doc = this.flush(true);
    this.journal.close();
    // A complete result says everything the journal does; an interrupted one keeps it for --resume.
    if (status === 'complete') {
      rmSync(this.journal.path, { force: true });
      this.written.forget(this.journal.path);
    }
    return doc;
  }

  private document(): RunResult {
    const trials = [...this.trials].sort((a, b) => a.id.localeCompare(b.id));
    // The key order of the documents this writer always wrote (the bytes are what is digested).
    const ran = this.onlyCasesRun ? new Set(trials.map((t) => t.case_id)) : undefined;
    return {
      ...this.header,
      ...(ran ? { cases: this.header.cases.filter((c) => ran.has(c.id)) } : {}),
      status: this.status,
      trials,
      summary: summarize(trials, sampled(this.header.model.mode)),
      ...runUsage(trials),
      ...(this.finishedAt ? { finished_at: this.finishedAt } : {}),
    };
  }

  private recordJournal(): void {
    this.written.recordDigest(this.journal.path, this.journal.digest());
  }

  private flush(final = false): RunResult {
    const started = this.now();
    const unsigned = this.document();
    const attestation = final ? this.sign?.(unsigned) : undefined;
    const doc = attestation ? { ...unsigned, attestation } : unsigned;
    // A random temp name opened exclusively: a planted file or symlink at a guessable name cannot
    // redirect the write.
    const tmp = `${this.path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
    // Written and digested a trial at a time: the whole document as one string (and its encoding) was
    // most of the engine's memory at 10,000 trials.
    const hash = createHash('sha256');
    let bytes = 0;
    const fd = openSync(tmp, 'wx', 0o644);
    try {
      let pending = '';
      const put = (force: boolean) => {
        if (!force && pending.length < 1 << 20) return;
        const buf = Buffer.from(pending);
        let off = 0;
        while (off < buf.length) off += writeSync(fd, buf, off);
        hash.update(buf);
        bytes += buf.length;
        pending = '';
      };
      for (const chunk of resultChunks(doc)) {
        pending += chunk;
        put(false);
      }
      put(true);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
    this.written.recordDigest(this.path, hash.digest('hex'));
    this.documentBytes += bytes;
    this.flushedTrials = this.trials.length;
    this.lastFlush = this.now();
    // A rewrite that took 40 ms waits at least 2 s: rewriting never takes more than 2 % of the run.
    this.interval = Math.max(this.flushEveryMs, (this.lastFlush - started) / MAX_FLUSH_SHARE);
    return doc;
  }
}
