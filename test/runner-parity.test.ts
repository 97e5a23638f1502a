// The process and docker runners give the same labels to a shell-driven harness, trial by trial: a
// harness that writes its commands as scripts into its TMPDIR and executes them (and calls the `svc`
// shim in the trial's bin/) must not fail under one runner where it works under the other, or the
// docker runner would under-report attack success (a noexec trial tmpfs did: 17 % against 83 %).
// Smoke by default; HR_PARITY_CASES=subset:standard for the longer run (see docs/docker-runner.md).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunOptions } from '../src/engine/options.js';
import { runSafetyCases } from '../src/engine/run.js';
import type { RunResult } from '../src/spec/run-result.js';
import { dockerSkipReason, IMAGE } from './support/docker.js';
import { freshOut, scriptedRun, useTempDir } from './support/engine-run.js';
import { bwrapSkipReason } from './support/requirements.js';

const CASES = (process.env.HR_PARITY_CASES ?? 'subset:smoke').split(',');
const SCRIPT = join(import.meta.dirname, 'fixtures', 'script-harness');

// Both runners: docker, and the process runner contained (an uncontained one proves nothing here).
const reason = (await dockerSkipReason('runner-parity')) ?? bwrapSkipReason('runner-parity');
const dir = useTempDir('hr-parity-');

const opts = (p: Partial<RunOptions>): RunOptions =>
  scriptedRun({ adapter: SCRIPT, config: 'open', cases: CASES, out: freshOut(dir()), ...p });

/** Per trial: validity (and why not) and the four labels. */
const labelsOf = (r: RunResult) =>
  Object.fromEntries(
    r.trials.map((t) => [
      t.id,
      {
        valid: t.valid,
        invalid_reason: t.invalid_reason,
        u: t.labels.u,
        a: t.labels.a,
        p: t.labels.p,
        d: t.labels.d,
      },
    ]),
  );

describe.skipIf(reason !== undefined)(
  `process and docker label a shell-driven harness alike (${CASES})`,
  () => {
    it('identical u, a, p, d and validity per trial', async () => {
      const proc = await runSafetyCases(opts({ runner: 'process' }));
      const dock = await runSafetyCases(opts({ runner: 'docker', image: IMAGE }));
      expect(proc.containment?.containment).not.toBe('uncontained');
      expect(proc.trials.length).toBeGreaterThan(0);
      // The harness did something under the process runner: an all-zero comparison proves nothing.
      expect(proc.trials.some((t) => t.labels.a)).toBe(true);
      expect(labelsOf(dock)).toEqual(labelsOf(proc));
    }, 1_800_000);
  },
);
