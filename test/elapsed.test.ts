// Durations are monotonic: a wall-clock jump backwards (an NTP step, a test's fake time) between the start
// and the end of an interval does not make the recorded offset or duration negative.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mark, sinceMs } from '../src/elapsed.js';
import { EvidenceRecorder } from '../src/evidence/recorder.js';

afterEach(() => vi.restoreAllMocks());

describe('monotonic intervals', () => {
  it('an evidence offset stays non-negative when the wall clock steps back an hour', () => {
    const rec = new EvidenceRecorder();
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now - 3_600_000);
    const entry = rec.addService(
      { service: 'web', method: 'GET', path: '/x', headers: {}, body: '' } as never,
      'GET /x',
    );
    expect(entry.at).toBeGreaterThanOrEqual(0);
    expect(entry.at).toBeLessThan(60_000);
  });

  it('sinceMs ignores a wall-clock jump and is never negative', () => {
    const t0 = mark();
    vi.spyOn(Date, 'now').mockReturnValue(0);
    const d = sinceMs(t0);
    expect(d).toBeGreaterThanOrEqual(0);
    expect(d).toBeLessThan(60_000);
    expect(sinceMs(performance.now() + 1_000)).toBe(0);
  });
});
