// The progress line as a person sees it: redrawn in a terminal with done/total, elapsed, ETA and the
// running ASR; plain lines in a log; nothing per trial with --quiet; NO_COLOR respected; an
// interrupted run summarised in one line, not one line per trial that never ran.
import { describe, expect, it } from 'vitest';
import { clock, colorEnabled, Progress } from '../src/cli/progress.js';
import type { ProgressEvent } from '../src/engine/options.js';

function stream(isTTY: boolean) {
  const chunks: string[] = [];
  return { isTTY, columns: 120, write: (s: string) => chunks.push(s), text: () => chunks.join(''), chunks };
}

function drive(p: Progress, events: ProgressEvent[]) {
  for (const e of events) p.on(e);
  p.finish();
}

const trial = (done: number, total: number, o: Partial<Extract<ProgressEvent, { kind: 'trial' }>> = {}) =>
  ({
    kind: 'trial',
    done,
    total,
    case_id: `case-${done}`,
    valid: true,
    a: false,
    u: true,
    ...o,
  }) as ProgressEvent;

describe('progress', () => {
  it('a terminal gets one live line redrawn in place, with ETA and running ASR', () => {
    let t = 0;
    const s = stream(true);
    const p = new Progress(s, { color: false, now: () => t });
    p.on({ kind: 'start', trials: 4, adapter: 'reference', config: 'guarded' });
    t = 10_000;
    p.on(trial(1, 4));
    t = 20_000;
    p.on(trial(2, 4, { a: true }));
    expect(p.status()).toBe('[2/4] 0:20 elapsed · ETA 0:20 · ASR 50.0% (1/2 unsafe)');
    p.finish();
    const text = s.text();
    expect(text).toContain(
      '\r\x1b[2K[1/4] 0:10 elapsed · ETA 0:30 · ASR 0.0% (0/1 unsafe) · case-1: attack blocked',
    );
    // The unsafe trial stays on screen above the live line.
    expect(text).toContain('  case-2: attack SUCCEEDED, task done\n');
    expect(text.split('\n').filter((l) => l.includes('case-1'))).toHaveLength(1); // redrawn, not a new line
  });

  it('a log gets plain lines; --quiet none per trial', () => {
    const log = stream(false);
    drive(new Progress(log, { color: false, now: () => 0 }), [
      { kind: 'start', trials: 2, adapter: 'a', config: 'c' },
      trial(1, 2),
      trial(2, 2, { valid: false, reason: 'infrastructure: boom' }),
    ]);
    expect(log.text()).not.toContain('\r');
    expect(log.text()).toMatch(
      /^ {2}\[1\/2\] 0:00 elapsed · ETA 0:00 · ASR 0\.0% \(0\/1 unsafe\) case-1: attack blocked, task done$/m,
    );
    expect(log.text()).toMatch(/case-2: INVALID \(infrastructure: boom\)$/m);
    const quiet = stream(false);
    drive(new Progress(quiet, { quiet: true, color: false, now: () => 0 }), [
      { kind: 'start', trials: 2, adapter: 'a', config: 'c' },
      trial(1, 2),
      trial(2, 2),
    ]);
    expect(quiet.text()).not.toContain('case-1');
    expect(quiet.text()).toContain('[2/2] 0:00 elapsed · ASR 0.0% (0/2 unsafe)');
  });

  it('a not-applicable trial is counted and named apart from the invalid ones, never as invalid', () => {
    const log = stream(false);
    drive(new Progress(log, { color: false, now: () => 0 }), [
      { kind: 'start', trials: 2, adapter: 'a', config: 'c' },
      trial(1, 2, {
        valid: false,
        reason: 'not applicable: x',
        not_applicable: 'not applicable: the injection never reached the model',
      }),
      trial(2, 2),
    ]);
    expect(log.text()).toMatch(
      /case-1: NOT APPLICABLE, not counted \(the injection never reached the model\)$/m,
    );
    expect(log.text()).toContain('(0/1 unsafe) · 1 not applicable case-2');
    expect(log.text()).not.toContain('invalid');
  });

  it('an interrupted run is one line, not one per trial that never ran', () => {
    const s = stream(false);
    const events: ProgressEvent[] = [
      { kind: 'start', trials: 144, adapter: 'a', config: 'c' },
      trial(1, 144),
    ];
    for (let i = 2; i <= 144; i++)
      events.push(trial(i, 144, { valid: false, reason: 'run interrupted before this trial started' }));
    drive(new Progress(s, { color: false, now: () => 0 }), events);
    expect(s.text()).not.toContain('INVALID');
    expect(s.text().match(/not run: the run was interrupted/g)).toHaveLength(1);
    expect(s.text()).toContain('143 trial(s) not run');
  });

  it('colour only in a terminal, never with NO_COLOR', () => {
    expect(colorEnabled({ isTTY: true, write: () => {} }, { TERM: 'xterm' })).toBe(true);
    expect(colorEnabled({ isTTY: true, write: () => {} }, { TERM: 'xterm', NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled({ isTTY: false, write: () => {} }, {})).toBe(false);
    expect(colorEnabled({ isTTY: true, write: () => {} }, { TERM: 'dumb' })).toBe(false);
    const s = stream(true);
    drive(new Progress(s, { color: true, now: () => 0 }), [
      { kind: 'start', trials: 1, adapter: 'a', config: 'c' },
      trial(1, 1, { a: true }),
    ]);
    expect(s.text()).toContain('\x1b[31mattack SUCCEEDED\x1b[39m');
  });

  it('formats elapsed time', () => {
    expect(clock(0)).toBe('0:00');
    expect(clock(61_000)).toBe('1:01');
    expect(clock(3_726_000)).toBe('1:02:06');
  });
});
