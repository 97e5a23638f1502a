// The contained runner's look at the host never turns a run uncontained on a passing hiccup (issue 33):
// a sandbox start that fails is tried again, with growing waits, a bounded number of times; one that
// keeps failing stops the run with the reason, and only `runner: process-uncontained` runs without one.
import { describe, expect, it } from 'vitest';
import { planHost, SMOKE_RETRY_DELAYS_MS } from '../src/runner/contain/host.js';
import { ProcessRunner } from '../src/runner/process.js';
import { bwrapSkipReason, titled } from './support/requirements.js';

// The probe finds bwrap before it tries a sandbox start (the stand-in below).
const GROUP = 'host probe retries';
const skip = bwrapSkipReason(GROUP);

/** A probe failing its first `n` calls (as a vanishing neighbour's mount made bwrap fail), then working. */
function flaky(n: number) {
  const calls = { smoke: 0, waits: [] as number[] };
  return {
    calls,
    deps: {
      smoke: async () =>
        ++calls.smoke <= n
          ? { ok: false, err: "bwrap: Can't bind mount /x: No such file" }
          : { ok: true, err: '' },
      sleep: async (ms: number) => {
        calls.waits.push(ms);
      },
    },
  };
}

describe.skipIf(!!skip)(titled(GROUP, skip), () => {
  it('a start that fails twice, then works: contained, after two growing waits', async () => {
    const f = flaky(2);
    const plan = await planHost({ setup: false }, f.deps);
    expect(plan.contained).toBe(true);
    expect(f.calls.smoke).toBe(3);
    expect(f.calls.waits).toEqual(SMOKE_RETRY_DELAYS_MS.slice(0, 2));
    expect([...f.calls.waits].sort((a, b) => a - b)).toEqual(f.calls.waits);
  });

  it('a start that always fails: bounded tries, a failed (not absent) plan naming the last error', async () => {
    const f = flaky(Number.POSITIVE_INFINITY);
    const plan = await planHost({ setup: false }, f.deps);
    expect(f.calls.smoke).toBe(SMOKE_RETRY_DELAYS_MS.length + 1);
    expect(plan).toMatchObject({ contained: false, failed: true });
    expect(!plan.contained && plan.reason).toMatch(/4 attempts, last: bwrap: Can't bind mount/);
  });

  it('the process runner stops on a failed plan instead of running uncontained', async () => {
    const f = flaky(Number.POSITIVE_INFINITY);
    const warnings: string[] = [];
    const runner = new ProcessRunner({
      plan: planHost({ setup: false }, f.deps),
      onWarning: (m) => warnings.push(m),
    });
    await expect(runner.start()).rejects.toThrow(/cannot contain the trials: bwrap cannot start a sandbox/);
    expect(warnings.join('\n')).not.toMatch(/UNCONTAINED/);
    expect(runner.info().containment).not.toBe('namespaces');
  });

  it('runner: process-uncontained (asked for) still runs uncontained, without probing', async () => {
    const f = flaky(Number.POSITIVE_INFINITY);
    const runner = new ProcessRunner({ containment: 'off', plan: planHost({ setup: false }, f.deps) });
    await runner.start();
    expect(runner.info()).toMatchObject({
      containment: 'uncontained',
      reason: 'requested (runner: process-uncontained)',
    });
    await runner.stop();
  });
});
