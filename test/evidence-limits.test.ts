// The per-trial connection cap fits the engine's file descriptors (issue 33): read from /proc/self/limits,
// shared by the trials that run at once, never below a handful.
import { describe, expect, it } from 'vitest';
import { fitConnections, openFileLimit, TrialLimits, trialLimitMessage } from '../src/evidence/limits.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             63422                63422                processes
Max open files            1024                 524288               files
`;

describe('evidence limits', () => {
  it('reads the soft open-file limit', () => {
    expect(openFileLimit(LIMITS)).toBe(1024);
    expect(openFileLimit('nothing here')).toBeUndefined();
    expect(openFileLimit()).toBeGreaterThan(0);
  });

  it.each([
    // connections asked, concurrency, RLIMIT_NOFILE → cap
    [256, 2, 20_000, 256],
    [256, 4, 1024, 42],
    [256, 2, 400, 33],
    [256, 64, 400, 8],
    [16, 2, 400, 16],
    [256, 2, undefined, 256],
  ])('%i connections, %i trials at once, %s fds → %i', (asked, concurrency, nofile, want) => {
    expect(fitConnections(asked, concurrency, nofile)).toBe(want);
  });

  it('names each limit with its number', () => {
    const l = TrialLimits.parse({ connections: 5, snapshot_file_bytes: 1000 });
    expect(trialLimitMessage('connections', l, '3 closed')).toBe(
      "connection limit (5 concurrent connections to the trial's endpoint) reached: further connections were closed (3 closed)",
    );
    expect(trialLimitMessage('snapshot_bytes', l)).toMatch(
      /^snapshot hash limit \(1000 bytes a file, 256 MiB in all\)/,
    );
  });
});
