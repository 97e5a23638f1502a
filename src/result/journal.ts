// The run's append-only journal, beside the result file (`RESULT.json.journal`): the header on the first
// line, then one JSON line per finished trial, each written with one write() (in the page cache at once:
// a SIGKILLed engine loses nothing) and fsync'd off the event loop (a machine that loses power loses at
// most the lines of the last fsync; a synchronous fsync blocked the trials' endpoints for 1–6 ms a trial). Appending costs the same at trial 10 and at trial 10,000, where rewriting the whole
// result after every trial grew with the run (24 ms per trial at 2,150 trials, ~190 GB serialised at the
// largest run allowed). After a crash or SIGKILL the journal holds every trial that finished; a torn
// last line (the write the crash cut) is dropped, never guessed at.
import { createHash, type Hash, randomBytes } from 'node:crypto';
import { closeSync, fdatasync, fdatasyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { UserError } from '../errors.js';
import { runUsage, sampled, summarize } from '../score/summarize.js';
import { type RunResult, Trial } from '../spec/run-result.js';

export const JOURNAL_FORMAT = 1;
export type ResultHeader = Omit<RunResult, 'trials' | 'summary' | 'status'>;

export const journalPathOf = (resultPath: string) => `${resultPath}.journal`;

export class JournalWriter {
  private fd: number | undefined;
  /** An fsync is running in the thread pool; `dirty`: lines were appended since it started. */
  private syncing = false;
  private dirty = false;
  private closeWhenSynced = false;
  private readonly hash: Hash = createHash('sha256');
  /** Bytes appended so far (what the O(1)-per-trial test counts). */
  bytes = 0;

  /** `carried`: trials of an earlier journal a resumed run keeps (written once, before the rename). */
  constructor(
    readonly path: string,
    header: ResultHeader,
    carried: Trial[] = [],
    private readonly sync = true,
  ) {
    // Written under a random name opened exclusively, then renamed over `path`: a planted file or
    // symlink is replaced, not followed, and the journal a resumed run reads from is never half gone.
    const tmp = `${path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
    this.fd = openSync(tmp, 'wx', 0o644);
    this.append({ journal: JOURNAL_FORMAT, header });
    for (const t of carried) this.append({ trial: t });
    // On disk before it replaces the journal a resumed run read its carried trials from.
    if (sync) fdatasyncSync(this.fd);
    renameSync(tmp, path);
  }

  appendTrial(trial: Trial): void {
    this.append({ trial });
  }

  /** sha256 of every byte appended, for WrittenFiles (the journal is the engine's output too). */
  digest(): string {
    return this.hash.copy().digest('hex');
  }

  /** Flushes to disk (synchronously: the run is over) and closes. */
  close(): void {
    if (this.fd === undefined) return;
    if (this.sync) fdatasyncSync(this.fd);
    // An fsync still running in the thread pool holds the fd until it returns; close then.
    if (this.syncing) this.closeWhenSynced = true;
    else closeSync(this.fd);
    this.fd = undefined;
  }

  /** One fsync at a time, coalescing every line appended while it ran into the next one. */
  private scheduleSync(): void {
    if (!this.sync || this.fd === undefined) return;
    if (this.syncing) {
      this.dirty = true;
      return;
    }
    this.syncing = true;
    this.dirty = false;
    const fd = this.fd;
    fdatasync(fd, () => {
      this.syncing = false;
      if (this.closeWhenSynced) closeSync(fd);
      else if (this.dirty) this.scheduleSync();
    });
  }

  private append(record: unknown): void {
    if (this.fd === undefined) throw new Error(`${this.path}: journal already closed`);
    const line = `${JSON.stringify(record)}\n`;
    const buf = Buffer.from(line);
    // One write per line: a crash can tear at most the last line, which the reader drops.
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off);
    this.scheduleSync();
    this.hash.update(buf);
    this.bytes += buf.length;
  }
}

export interface Journal {
  header: ResultHeader;
  /** In journal order; a trial id appears once (the last record of an id wins). */
  trials: Trial[];
  /** True when the last line was cut short (the engine died mid-write) and was dropped. */
  torn: boolean;
}

/** Reads a journal; a malformed line other than a torn last line is an error naming file:line. */
export function readJournal(path: string): Journal {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(
      `${path}: cannot read run journal (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      'give the .journal file written beside the run result (RESULT.json.journal)',
    );
  }
  const lines = text.split('\n');
  // A complete journal ends with a newline, so the last element is ''; anything else there is torn.
  const last = lines.pop() ?? '';
  const torn = last !== '';
  const bad = (n: number, why: string) =>
    new UserError(`${path}:${n}: ${why}`, 'this is not a harness-risk run journal, or it was edited; rerun');
  let header: ResultHeader | undefined;
  const byId = new Map<string, Trial>();
  lines.forEach((line, i) => {
    let rec: { journal?: number; header?: ResultHeader; trial?: unknown };
    try {
      rec = JSON.parse(line);
    } catch {
      throw bad(i + 1, 'not a JSON line');
    }
    if (i === 0) {
      if (rec.journal !== JOURNAL_FORMAT || !rec.header)
        throw bad(1, `expected a journal header of format ${JOURNAL_FORMAT}`);
      header = rec.header;
      return;
    }
    const trial = Trial.safeParse(rec.trial);
    if (!trial.success) throw bad(i + 1, `not a trial: ${trial.error.issues[0]?.message ?? 'invalid'}`);
    byId.set(trial.data.id, trial.data);
  });
  if (!header) throw bad(1, 'empty journal (the run died before its first write)');
  return { header, trials: [...byId.values()], torn };
}

/** The run result a journal stands for: every journaled trial, status `interrupted`. */
export function recoverResult(path: string): RunResult {
  const { header, trials } = readJournal(path);
  const sorted = [...trials].sort((a, b) => a.id.localeCompare(b.id));
  return {
    ...header,
    status: 'interrupted',
    trials: sorted,
    summary: summarize(sorted, sampled(header.model.mode)),
    ...runUsage(sorted),
  };
}
