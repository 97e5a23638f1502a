// End to end on the embedded default: built-in cases → scripted model → reference harness → labels.
// Uses the bundled dist/ (reference harness and svc CLI), as users run it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunOptions } from '../src/engine/options.js';
import { runSafetyCases } from '../src/engine/run.js';
import { UserError } from '../src/errors.js';
import { evidenceFileOf } from '../src/result/files.js';
import { RunResult } from '../src/spec/run-result.js';
import { PHASES } from '../src/spec/vocabulary.js';
import { freshOut, scriptedRun, useTempDir } from './support/engine-run.js';

const dir = useTempDir('hr-e2e-');

const opts = (p: Partial<RunOptions>): RunOptions => scriptedRun({ out: freshOut(dir()), ...p });

const labels = (r: RunResult) => JSON.stringify(r.trials.map((t) => [t.id, t.valid, t.labels]));

describe('reference harness on the smoke cases', () => {
  let open: RunResult;
  let guarded: RunResult;
  const guardedOut = () => join(dir(), 'guarded.json');
  beforeAll(async () => {
    open = await runSafetyCases(opts({ config: 'open' }));
    guarded = await runSafetyCases(opts({ config: 'guarded', out: guardedOut() }));
  }, 300_000);

  it('open: every phase has a successful attack', () => {
    for (const p of PHASES) expect(open.summary.phases[p]?.asr, p).toBeGreaterThan(0);
    expect(open.trials.every((t) => t.valid)).toBe(true);
  });

  it('guarded: no attack succeeds and the owner’s tasks get done', () => {
    expect(guarded.summary.overall.asr).toBe(0);
    expect(guarded.summary.overall.utility).toBeGreaterThanOrEqual(0.8);
    expect(guarded.summary.overall.detection).toBeGreaterThan(0);
    expect(guarded.summary.overall.css).toBeGreaterThan(open.summary.overall.css);
  });

  it('the run result on disk is complete and valid', async () => {
    const onDisk = RunResult.parse(JSON.parse(await readFile(guardedOut(), 'utf8')));
    expect(onDisk.status).toBe('complete');
    expect(onDisk.trials).toHaveLength(guarded.trials.length);
  });

  it('running the same cases again gives byte-identical labels', async () => {
    const again = await runSafetyCases(opts({ config: 'open' }));
    expect(labels(again)).toBe(labels(open));
  }, 120_000);
});

describe('failures are clear and never count as safe', () => {
  it('a run whose signal fired before it began runs no trial and is marked interrupted', async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await runSafetyCases(
      opts({ adapter: 'test/fixtures/adapters/hang', config: 'default', signal: ac.signal }),
    );
    expect(r.status).toBe('interrupted');
    expect(r.trials.length).toBeGreaterThan(0);
    for (const t of r.trials) {
      expect(t.valid).toBe(false);
      expect(t.invalid_reason).toMatch(/interrupted before this trial started/);
    }
  });

  it('a hanging harness is killed at its timeout and recorded invalid; the other trials complete', async () => {
    const t0 = Date.now();
    const r = await runSafetyCases(
      opts({
        adapter: 'test/fixtures/adapters/hang',
        config: 'default',
        cases: ['subset:smoke', 'phase:runtime'],
      }),
    );
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(r.trials.length).toBeGreaterThanOrEqual(1);
    for (const t of r.trials) {
      expect(t.valid).toBe(false);
      expect(t.timed_out).toBe(true);
      expect(t.invalid_reason).toMatch(/did not finish within the timeout/);
    }
    expect(r.summary.overall.valid).toBe(0);
    expect(r.status).toBe('complete');
  }, 60_000);

  it('a crashing harness gives its own error line', async () => {
    const r = await runSafetyCases(
      opts({
        adapter: 'test/fixtures/adapters/crash',
        config: 'default',
        cases: ['subset:smoke', 'phase:action'],
      }),
    );
    expect(r.trials[0]!.valid).toBe(false);
    expect(r.trials[0]!.invalid_reason).toMatch(
      /never called the model endpoint \(exit 3\): Error: cannot load plugin foo/,
    );
  });

  it('an unknown adapter and an unknown config are user errors', async () => {
    await expect(runSafetyCases(opts({ adapter: 'nope' }))).rejects.toThrow(UserError);
    await expect(runSafetyCases(opts({ config: 'wide-open' }))).rejects.toThrow(
      /has no configuration "wide-open"[\s\S]*use one of open, guarded/,
    );
  });

  it('the harness sees none of the parent environment', async () => {
    process.env.HR_PLANTED_E2E = 'planted-e2e-secret';
    process.env.GITHUB_TOKEN = 'ghs_planted';
    try {
      const r = await runSafetyCases(
        opts({
          adapter: 'test/fixtures/adapters/envdump',
          config: 'default',
          cases: ['subset:smoke', 'phase:recovery'],
          keep_evidence: true,
        }),
      );
      const t = r.trials[0]!;
      const evidence = JSON.parse(
        await readFile(evidenceFileOf(join(dir(), 'r.json'), t.evidence_file!), 'utf8'),
      );
      const envText: string = evidence.after['ws/env.json'].text;
      expect(envText).toContain('"HOME"');
      expect(envText).not.toContain('planted-e2e-secret');
      expect(envText).not.toContain('ghs_planted');
    } finally {
      delete process.env.HR_PLANTED_E2E;
      delete process.env.GITHUB_TOKEN;
    }
  });
});
