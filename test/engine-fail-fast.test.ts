// Fail-fast (issue 32): a harness that never starts stops the run after max-consecutive-invalid invalid
// trials in a row, interrupted with the reason, its result kept and the trials not run resumable,
// instead of waiting out every trial (the standard subset would have burned ~2.5 h).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { invalidStreak } from '../src/engine/fail-fast.js';
import { wasInterrupted } from '../src/engine/resume.js';
import { runSafetyCases } from '../src/engine/run.js';

const ROOT = join(import.meta.dirname, '..');

describe('invalid streak', () => {
  it.each([
    ['stops at the limit', 3, [false, false, false], [undefined, undefined, 'stop']],
    ['a valid trial resets it', 2, [false, true, false, false], [undefined, undefined, undefined, 'stop']],
    ['0 is off', 0, [false, false, false, false], [undefined, undefined, undefined, undefined]],
    ['1 stops at the first invalid', 1, [true, false], [undefined, 'stop']],
    // Not applicable: the harness worked, the case could not reach it (no fetch tool): it ends a streak.
    [
      'a not-applicable trial resets it',
      2,
      [false, 'na', false, 'na', 'na', false],
      [undefined, undefined, undefined, undefined, undefined, undefined],
    ],
    ['not-applicable trials alone never stop it', 1, ['na', 'na', 'na'], [undefined, undefined, undefined]],
  ] as const)('%s', (_name, limit, ends, expected) => {
    const s = invalidStreak(limit);
    const end = (v: boolean | 'na') =>
      v === 'na'
        ? { valid: false, not_applicable: 'the injection never reached the model', invalid_reason: 'n/a' }
        : { valid: v, ...(v ? {} : { invalid_reason: 'exit 1' }) };
    expect(ends.map((v) => (s.add(end(v)) ? 'stop' : undefined))).toEqual(expected);
  });
  it('says why, with the last reason and how to turn it off', () => {
    const s = invalidStreak(2);
    s.add({ valid: false, invalid_reason: 'a' });
    expect(s.add({ valid: false, invalid_reason: 'harness exited 1' })).toMatch(
      /^2 trials in a row were invalid \(the last: harness exited 1\).*max-consecutive-invalid 2 \(0 turns it off\)/,
    );
  });
});

describe('a run whose harness never starts', () => {
  const brokenAdapter = () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'hr-failfast-')), 'broken');
    mkdirSync(dir);
    const yaml = readFileSync(join(ROOT, 'adapters/reference/adapter.yaml'), 'utf8');
    writeFileSync(join(dir, 'adapter.yaml'), yaml.replace('reference-harness.js', 'no-such-harness.js'));
    return dir;
  };

  it('stops after max-consecutive-invalid trials, interrupted, the rest resumable', async () => {
    const dir = brokenAdapter();
    const out = join(dir, '..', 'r.json');
    const notices: string[] = [];
    const r = await runSafetyCases({
      adapter: dir,
      config: 'open',
      cases: ['subset:smoke'],
      runner: 'process',
      concurrency: 1,
      seeds: 1,
      model: 'scripted',
      out,
      keep_evidence: false,
      max_consecutive_invalid: 2,
      on_progress: (e) => {
        if (e.kind === 'notice') notices.push(e.message);
      },
    });
    expect(r.status).toBe('interrupted');
    const ran = r.trials.filter((t) => !wasInterrupted(t));
    expect(ran).toHaveLength(2);
    expect(ran.every((t) => !t.valid)).toBe(true);
    const rest = r.trials.filter(wasInterrupted);
    expect(rest.length).toBe(r.trials.length - 2);
    expect(rest.length).toBeGreaterThan(0);
    expect(rest[0]!.invalid_reason).toMatch(
      /^run interrupted before this trial started: 2 trials in a row were invalid/,
    );
    expect(notices.some((n) => /^stopping: 2 trials in a row were invalid/.test(n))).toBe(true);
    // The file on disk says the same (kept, resumable).
    expect(JSON.parse(readFileSync(out, 'utf8')).status).toBe('interrupted');
  }, 180_000);
});
