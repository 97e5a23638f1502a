// Engine runs as the end-to-end tests start them: the scripted model on the smoke cases, two trials at a
// time, one seed, in a temp folder of the test's own; and the evidence a trial kept.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { loadCases } from '../../src/cases/load.js';
import type { LoadedCase } from '../../src/cases/schema.js';
import type { RunOptions } from '../../src/engine/options.js';
import { runSafetyCases } from '../../src/engine/run.js';
import type { Evidence } from '../../src/evidence/types.js';
import type { RunResult } from '../../src/spec/run-result.js';

/** A temp folder made before the file's tests and removed after them; call the getter inside a test. */
export function useTempDir(prefix: string): () => string {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (!dir) throw new Error(`useTempDir(${prefix}): the folder is made in beforeAll; read it in a test`);
    return dir;
  };
}

/** A result file of its own in `dir`, for tests that run the engine many times. */
export const freshOut = (dir: string) => join(dir, `${Math.random().toString(36).slice(2)}.json`);

/** The reference harness (open) on the smoke cases, scripted, process runner; `p` changes any of it. */
export function scriptedRun(p: Partial<RunOptions> & Pick<RunOptions, 'out'>): RunOptions {
  return {
    adapter: 'reference',
    config: 'open',
    cases: ['subset:smoke'],
    runner: 'process',
    concurrency: 2,
    seeds: 1,
    model: 'scripted',
    keep_evidence: false,
    ...p,
  };
}

/** The evidence trial `trialId` of `result` kept (run with keep_evidence); `dir` is the result file's folder. */
export async function trialEvidence(dir: string, result: RunResult, trialId: string): Promise<Evidence> {
  const trial = result.trials.find((t) => t.id === trialId)!;
  return JSON.parse(await readFile(resolve(dir, trial.evidence_file!), 'utf8'));
}

/**
 * A fixture harness over the standard cases `pick` selects, run once before the file's tests (scripted,
 * process runner): the case ids now, the result from inside a test.
 */
export function fixtureOverStandard(
  harness: string,
  config: string,
  pick: (lc: LoadedCase) => boolean,
): { ids: string[]; result: () => RunResult } {
  const ids = loadCases(['subset:standard'])
    .filter(pick)
    .map((lc) => lc.case.id);
  const dir = useTempDir('hr-fixture-run-');
  let result: RunResult | undefined;
  beforeAll(async () => {
    result = await runSafetyCases(
      scriptedRun({
        adapter: harness,
        config,
        cases: ids.map((id) => `id:${id}`),
        out: join(dir(), 'result.json'),
      }),
    );
  }, 600_000);
  return {
    ids,
    result: () => {
      if (!result) throw new Error(`fixtureOverStandard(${harness}): the run is made in beforeAll`);
      return result;
    },
  };
}
