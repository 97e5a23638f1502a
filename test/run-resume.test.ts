// Issue 17: a run that is SIGKILLed keeps every finished trial in its journal, and `run --resume` runs
// only the trials the journal lacks. The CLI as users run it (dist/cli.js, built by the tests' global set-up).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunOptions } from '../src/engine/options.js';
import { runSafetyCases } from '../src/engine/run.js';
import { JournalWriter, readJournal } from '../src/result/journal.js';
import type { RunResult } from '../src/spec/run-result.js';

const base = ['run', '--adapter', 'reference', '--config', 'open', '--cases', 'subset:smoke'];
const trialLines = (journal: string) =>
  existsSync(journal) ? readFileSync(journal, 'utf8').split('\n').length - 2 : 0;

describe('run --resume', () => {
  it('a SIGKILLed run resumes from its journal and runs only the missing trials', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'hr-resume-')), 'r.json');
    const journal = `${out}.journal`;
    const first = spawn(
      process.execPath,
      ['dist/cli.js', ...base, '--concurrency', '1', '--quiet', '--out', out],
      { stdio: 'ignore' },
    );
    // Killed without warning once two trials are journaled: no finish, no full rewrite.
    const exited = new Promise((r) => first.once('exit', r));
    const deadline = Date.now() + 90_000;
    while (trialLines(journal) < 2 && Date.now() < deadline && first.exitCode === null)
      await new Promise((r) => setTimeout(r, 20));
    first.kill('SIGKILL');
    await exited;
    const before = readJournal(journal);
    expect(before.trials.length).toBeGreaterThanOrEqual(2);
    expect(before.trials.length).toBeLessThan(6);
    // The result file lags (at most every few seconds while running); the journal does not.
    expect(JSON.parse(readFileSync(out, 'utf8')).status).toBe('running');

    const second = spawnSync(process.execPath, ['dist/cli.js', ...base, '--resume', out], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(second.status, second.stderr).toBe(0);
    const missing = 6 - before.trials.length;
    expect(second.stderr).toContain(`${before.trials.length} trial(s) kept, ${missing} to run`);
    expect(second.stderr).toMatch(new RegExp(`\\[${missing}/${missing}\\]`));
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    expect(result.status).toBe('complete');
    expect(result.trials).toHaveLength(6);
    // The kept trials are the journal's, byte for byte (a rerun would have its own duration and digest).
    for (const t of before.trials) expect(result.trials.find((r) => r.id === t.id)).toEqual(t);
    expect(existsSync(journal)).toBe(false);
  }, 240_000);

  it('a journal of another run is refused, naming the journal and what differs; no journal, no resume', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'hr-resume-')), 'r.json');
    const first = spawnSync(process.execPath, ['dist/cli.js', ...base, '--quiet', '--out', out], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(first.status, first.stderr).toBe(0);
    // A complete run leaves no journal to resume from.
    const none = spawnSync(process.execPath, ['dist/cli.js', ...base, '--resume', out], { encoding: 'utf8' });
    expect(none.status).toBe(2);
    expect(none.stderr).toContain(`${out}.journal: cannot read run journal (ENOENT)`);
    // The journal of that run (open), resumed as another (guarded).
    const {
      trials: _t,
      summary: _s,
      status: _st,
      finished_at: _f,
      ...header
    } = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    new JournalWriter(`${out}.journal`, header).close();
    const other = spawnSync(
      process.execPath,
      ['dist/cli.js', ...base.slice(0, 3), '--config', 'guarded', '--cases', 'subset:smoke', '--resume', out],
      { encoding: 'utf8' },
    );
    expect(other.status).toBe(2);
    expect(other.stderr).toContain(`${out}.journal: not a journal of this run: config was open, now guarded`);
    expect(other.stderr).toContain('resume with the same --adapter, --config');
  }, 240_000);
});

describe('resume after an interrupt (the engine, SIGINT as an abort)', () => {
  it('an interrupted run keeps its journal; resuming runs the unrun trials and any the abort cut short', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'hr-resume-')), 'r.json');
    const o: RunOptions = {
      adapter: 'reference',
      config: 'open',
      cases: ['subset:smoke'],
      runner: 'process',
      concurrency: 1,
      seeds: 1,
      model: 'scripted',
      out,
      keep_evidence: false,
    };
    const ac = new AbortController();
    // Abort as the third trial starts: two measured, one cut short, three never started.
    let started = 0;
    const first = await runSafetyCases({
      ...o,
      signal: ac.signal,
      on_progress: (e) => {
        if (e.kind === 'trial' && ++started === 2) setTimeout(() => ac.abort(), 50);
      },
    });
    expect(first.status).toBe('interrupted');
    const measured = first.trials.filter((t) => !/^run interrupted/.test(t.invalid_reason ?? ''));
    expect(measured.length).toBeGreaterThanOrEqual(2);
    expect(measured.length).toBeLessThan(6);
    const events: string[] = [];
    const second = await runSafetyCases({
      ...o,
      resume: out,
      on_progress: (e) => {
        if (e.kind === 'notice') events.push(e.message);
      },
    });
    expect(events.join('\n')).toContain(`${measured.length} trial(s) kept, ${6 - measured.length} to run`);
    expect(second.status).toBe('complete');
    expect(second.trials).toHaveLength(6);
    expect(second.trials.filter((t) => /^run interrupted/.test(t.invalid_reason ?? ''))).toHaveLength(0);
    for (const t of measured) expect(second.trials.find((r) => r.id === t.id)).toEqual(t);
  }, 240_000);
});
