// HARNESS_RISK_BENCH_MARKS=FILE: the engine's own record of where a run's start-up ends (what
// `npm run bench` reports as start-up before the first trial). Not timed: what is asserted is that the
// marks exist, once each, in pipeline order, and hold the process's own figures.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCH_MARKS_VARIABLE, type BenchMark, benchMark, peakRssOf } from '../src/engine/bench-marks.js';

const dir = mkdtempSync(join(tmpdir(), 'hr-marks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('peakRssOf', () => {
  it.each([
    ['Name:\tnode\nVmPeak:\t 1000 kB\nVmHWM:\t   81920 kB\nVmRSS:\t   70000 kB\n', 81920 * 1024],
    ['VmHWM:\t1 kB\n', 1024],
    ['VmRSS:\t   70000 kB\n', undefined],
    ['', undefined],
  ])('%j → %s', (status, bytes) => {
    expect(peakRssOf(status)).toBe(bytes);
  });
});

describe('benchMark', () => {
  it('writes nothing without the variable, one JSON line per mark with it', () => {
    const file = join(dir, 'direct.jsonl');
    benchMark('a', {});
    expect(existsSync(file)).toBe(false);
    benchMark('a', { [BENCH_MARKS_VARIABLE]: file });
    benchMark('b', { [BENCH_MARKS_VARIABLE]: file });
    const marks = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as BenchMark);
    expect(marks.map((m) => m.mark)).toEqual(['a', 'b']);
    expect(marks[0]!.pid).toBe(process.pid);
    expect(marks[0]!.rss_bytes).toBeGreaterThan(0);
    expect(marks[0]!.peak_rss_bytes).toBeGreaterThanOrEqual(marks[0]!.rss_bytes);
  });

  it('a file that cannot be written never fails the caller', () => {
    expect(() =>
      benchMark('a', { [BENCH_MARKS_VARIABLE]: join(dir, 'no', 'such', 'dir', 'x') }),
    ).not.toThrow();
  });
});

describe('a real run (dist/cli.js, reference harness) records its start-up marks', () => {
  it('once each, in pipeline order, the first trial marked once of two', () => {
    const file = join(dir, 'run.jsonl');
    const out = join(dir, 'run.json');
    const r = spawnSync(
      process.execPath,
      [
        'dist/cli.js',
        'run',
        '--adapter',
        'reference',
        '--config',
        'open',
        '--cases',
        'id:setup-guide-disables-approval',
        '--seeds',
        '2',
        '--concurrency',
        '2',
        '--out',
        out,
        '--quiet',
      ],
      { encoding: 'utf8', env: { ...process.env, [BENCH_MARKS_VARIABLE]: file }, timeout: 120_000 },
    );
    expect([0, 1], r.stderr).toContain(r.status);
    const marks = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as BenchMark);
    expect(marks.map((m) => m.mark)).toEqual([
      'engine_start',
      'adapter_loaded',
      'cases_loaded',
      'runner_started',
      'first_trial',
      'run_finished',
    ]);
    // One engine process, its clock and CPU only moving forward.
    expect(new Set(marks.map((m) => m.pid)).size).toBe(1);
    expect(marks[0]!.pid).not.toBe(process.pid);
    for (let i = 1; i < marks.length; i++) {
      expect(marks[i]!.uptime_ms).toBeGreaterThanOrEqual(marks[i - 1]!.uptime_ms);
      expect(marks[i]!.cpu_ms).toBeGreaterThanOrEqual(marks[i - 1]!.cpu_ms);
      expect(marks[i]!.peak_rss_bytes).toBeGreaterThanOrEqual(marks[i - 1]!.peak_rss_bytes!);
    }
    // The first trial starts before the run finishes; the last mark comes after the result is written.
    const res = JSON.parse(readFileSync(out, 'utf8')) as { trials: unknown[]; finished_at: string };
    expect(res.trials).toHaveLength(2);
    expect(marks.at(-2)!.at_ms).toBeLessThanOrEqual(Date.parse(res.finished_at));
    expect(marks.at(-1)!.at_ms).toBeGreaterThanOrEqual(Date.parse(res.finished_at));
  });
});
