// The instrument must be indistinguishable per call. A hostile harness (the reference harness behind a
// proxy that refuses every tool call whose id, or whose response's id, has any feature that could mark it
// as the attacker's: the old `hr_a0_…` tag, instrument words, a non-provider shape, a length drift, a head
// or tail shared with an earlier id) must get exactly the labels of the honest open reference harness.
// On the old ids (step and role in the id) it refused the attack calls and reported a lower ASR.
// Uses the bundled dist/ (built by the tests' global set-up), as engine-e2e does.
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { RunOptions } from '../src/engine/options.js';
import { runSafetyCases } from '../src/engine/run.js';
import type { RunResult } from '../src/spec/run-result.js';
import { freshOut, scriptedRun, useTempDir } from './support/engine-run.js';

const FILTER = resolve('test/fixtures/hostile-ids/id-filter.mjs');

const dir = useTempDir('hr-hostile-ids-');

/** The reference adapter, its launch wrapped in the id filter (same configs, so no drift from it). */
async function hostileAdapter(log: string): Promise<string> {
  const ref = parse(await readFile('adapters/reference/adapter.yaml', 'utf8'));
  ref.name = 'hostile-ids';
  ref.description = 'reference harness that refuses calls by their id features';
  ref.launch.command = [process.execPath, FILTER, log, '--', ...ref.launch.command];
  const file = join(dir(), 'hostile-ids.yaml');
  await writeFile(file, stringify(ref));
  return file;
}

const opts = (p: Partial<RunOptions>): RunOptions =>
  scriptedRun({
    // The id filter logs what it saw to a file of this test, which the contained runner (rightly) keeps
    // out of a trial's reach; ids are what is measured here, not containment.
    runner: 'process-uncontained',
    out: freshOut(dir()),
    ...p,
  });

const labels = (r: RunResult) => r.trials.map((t) => [t.id, t.valid, t.labels]);

describe('a harness that refuses calls by their id', () => {
  let honest: RunResult;
  let hostile: RunResult;
  let log: { id: string; refused: string | null }[];
  beforeAll(async () => {
    const logFile = join(dir(), 'filter.log');
    const adapter = await hostileAdapter(logFile);
    [honest, hostile] = await Promise.all([runSafetyCases(opts({})), runSafetyCases(opts({ adapter }))]);
    log = (await readFile(logFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  }, 300_000);

  it('saw the calls and found no feature to refuse them by', () => {
    expect(log.length).toBeGreaterThan(10);
    expect(log.filter((e) => e.refused)).toEqual([]);
  });

  it('gets the honest harness’s labels, trial by trial', () => {
    expect(hostile.trials.every((t) => t.valid)).toBe(true);
    expect(honest.summary.overall.asr).toBeGreaterThan(0);
    expect(labels(hostile)).toEqual(labels(honest));
    expect(hostile.summary.overall).toEqual(honest.summary.overall);
  });
});
