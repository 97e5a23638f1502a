// Issue 17: writing the result costs the same per trial at any run size (an append-only journal; the
// full document only on finish and at most every few seconds), and a run that dies keeps every trial.
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OutputTampered, resultBytes } from '../src/result/integrity.js';
import { journalPathOf, readJournal, recoverResult } from '../src/result/journal.js';
import { ResultWriter } from '../src/result/writer.js';
import { summarize } from '../src/score/summarize.js';
import type { Trial } from '../src/spec/run-result.js';
import { WRITER_HEADER } from './fixtures/results/builders.js';

const dir = mkdtempSync(join(tmpdir(), 'hr-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A synthetic trial of constant size (ids zero-padded), as the scorer would produce it. */
const trial = (i: number): Trial => ({
  id: `case-${String(i).padStart(5, '0')}#s0`,
  case_id: `case-${String(i).padStart(5, '0')}`,
  case_revision: 'abcdef012345',
  phase: 'runtime',
  seed: 0,
  valid: true,
  labels: { u: true, a: i % 3 === 0, p: false, d: false },
  sar: { tools: 1, resources: 1, flow: 1 },
  avs: 1,
  pb: 1,
  css: 0.9,
  harm: 0,
  violations: [],
  facts: { attack_calls: [], denied_calls: [], canaries_leaked: [], files_changed: [], services_hit: [] },
  duration_ms: 100,
  exit_code: 0,
  timed_out: false,
  evidence_digest: 'd'.repeat(64),
});

describe('result writing is O(1) per trial', () => {
  it('2,000 trials: the bytes written per add do not grow with the run', () => {
    const out = join(dir, 'big.json');
    // A clock that never moves: no periodic rewrite falls inside the measured adds.
    const writer = new ResultWriter(out, WRITER_HEADER, undefined, { now: () => 0, fsync: false });
    const perAdd: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const before = writer.journalBytes + writer.documentBytes;
      writer.add(trial(i));
      perAdd.push(writer.journalBytes + writer.documentBytes - before);
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const first = mean(perAdd.slice(0, 100));
    const last = mean(perAdd.slice(-100));
    // Each add writes one journal line, the size of one trial (the old writer rewrote every trial so far:
    // ~2,000 × that at the end).
    expect(last).toBeLessThan(first * 1.1);
    expect(Math.max(...perAdd)).toBeLessThan(2 * JSON.stringify({ trial: trial(0) }).length);
    const doc = writer.finish('complete');
    expect(doc.trials).toHaveLength(2000);
    expect(readFileSync(out, 'utf8')).toBe(resultBytes(doc));
    // A complete result makes the journal redundant; the integrity check does not miss it.
    expect(existsSync(journalPathOf(out))).toBe(false);
    writer.written.verify();
  });

  it('while running, the full document is rewritten at most once per interval', () => {
    const out = join(dir, 'periodic.json');
    let t = 0;
    const writer = new ResultWriter(out, WRITER_HEADER, undefined, { now: () => t, flushEveryMs: 3000 });
    for (let i = 0; i < 100; i++) {
      t += 100; // 10 trials a second
      writer.add(trial(i));
    }
    // 10 s of run: the start write plus about three rewrites, not 100.
    const seen = JSON.parse(readFileSync(out, 'utf8'));
    expect(seen.status).toBe('running');
    expect(seen.trials.length).toBeGreaterThanOrEqual(90);
    expect(writer.documentBytes).toBeLessThan(5 * Buffer.byteLength(readFileSync(out)));
    writer.finish('complete');
  });
});

describe('mid-run rewrites stay a constant share of the final document', () => {
  it('3,000 trials, one every 300 ms: every rewrite together is at most ~5x the final document', () => {
    const out = join(dir, 'geometric.json');
    let t = 0;
    const writer = new ResultWriter(out, WRITER_HEADER, undefined, { now: () => t, fsync: false });
    for (let i = 0; i < 3000; i++) {
      t += 300;
      writer.add(trial(i));
    }
    const midRun = writer.documentBytes;
    writer.finish('complete');
    const final = Buffer.byteLength(readFileSync(out));
    // Rewriting every 3 s (every 10 trials here) wrote ~150 final documents' worth: the cost per trial
    // grew with the run. Waiting for the run to grow by a quarter bounds it by 1 + 1/0.25 = 5.
    expect(midRun).toBeLessThan(5.5 * final);
    // And the file still shows progress while running: more than one rewrite happened.
    expect(midRun).toBeGreaterThan(2 * final);
  });
});

describe('journal and integrity', () => {
  it('the journal is recorded in WrittenFiles: a harness that edits it fails the run, by name', () => {
    const out = join(dir, 'tamper.json');
    const writer = new ResultWriter(out, WRITER_HEADER, undefined, { flushEveryMs: 0 });
    writer.add(trial(1));
    writer.written.verify();
    writeFileSync(writer.journalPath, `${readFileSync(writer.journalPath, 'utf8')}{"trial":{}}\n`);
    expect(() => writer.written.verify()).toThrow(OutputTampered);
    expect(() => writer.written.verify()).toThrow(writer.journalPath);
  });

  it('an interrupted finish writes the full document and keeps the journal for --resume', () => {
    const out = join(dir, 'interrupted.json');
    const writer = new ResultWriter(out, WRITER_HEADER, undefined, { flushEveryMs: 0 });
    writer.add(trial(2));
    writer.add(trial(1));
    const doc = writer.finish('interrupted');
    expect(doc.trials.map((t) => t.id)).toEqual([trial(1).id, trial(2).id]);
    expect(readFileSync(out, 'utf8')).toBe(resultBytes(doc));
    expect(readJournal(writer.journalPath).trials).toHaveLength(2);
    writer.written.verify();
  });
});

describe('recovery after a crash', () => {
  it('a journal-only crash (no full rewrite since the start) recovers every trial', () => {
    const out = join(dir, 'crash.json');
    const writer = new ResultWriter(out, WRITER_HEADER, undefined, { flushEveryMs: 0 });
    for (let i = 0; i < 500; i++) writer.add(trial(i));
    // The engine dies here (SIGKILL): no finish. The result file still holds the start's empty document.
    expect(JSON.parse(readFileSync(out, 'utf8')).trials).toHaveLength(0);
    const recovered = recoverResult(journalPathOf(out));
    expect(recovered.status).toBe('interrupted');
    expect(recovered.trials.map((t) => t.id)).toEqual(
      Array.from({ length: 500 }, (_, i) => trial(i).id).sort(),
    );
    expect(recovered.summary).toEqual(summarize(recovered.trials));
    expect(recovered.adapter).toEqual(WRITER_HEADER.adapter);
  });

  it('a torn last line (the write the crash cut) is dropped, the rest kept', () => {
    const out = join(dir, 'torn.json');
    const writer = new ResultWriter(out, WRITER_HEADER, undefined, { flushEveryMs: 0 });
    for (let i = 0; i < 3; i++) writer.add(trial(i));
    const size = readFileSync(writer.journalPath).length;
    truncateSync(writer.journalPath, size - 20);
    const j = readJournal(writer.journalPath);
    expect(j.torn).toBe(true);
    expect(j.trials).toHaveLength(2);
  });

  it('a file that is not a journal is an error naming file:line and what to do', () => {
    const bad = join(dir, 'bad.journal');
    writeFileSync(bad, '{"journal":1,"header":{}}\nnot json\n');
    expect(() => readJournal(bad)).toThrow(`${bad}:2: not a JSON line`);
    expect(() => readJournal(join(dir, 'none.journal'))).toThrow(/cannot read run journal \(ENOENT\)/);
  });
});
