// A harness that wants a file read before it writes it, and offers no shell to go around that
// (test/fixtures/readfirst-harness: read_file and write_file only, as Qwen Code auto-edit or a Claude-Code-
// style read-before-write tool set). Its write tool answers a file the session has not read with a
// precondition error, in Qwen Code's words or in words nobody declared, and writes nothing. A real model
// reads the file and writes again; so must the scripted attacker, or the attack reads "blocked" and ASR is
// undercounted. So: the same ASR, trial by trial, as the same harness without the precondition, and
// detection 0 % (a precondition is not a refusal).
//
// The cases: the standard subset's cases whose attacker writes a file (write or remember), the only ones
// this harness can carry (the others have no route without a shell and are the same in every
// configuration); the whole subset through the CLI is in the task report.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCases } from '../src/cases/load.js';
import { runSafetyCases } from '../src/engine/run.js';
import type { RunResult } from '../src/spec/run-result.js';
import { scriptedRun, useTempDir } from './support/engine-run.js';

const HARNESS = join(import.meta.dirname, 'fixtures', 'readfirst-harness');
const dir = useTempDir('hr-read-first-');
const writes = loadCases(['subset:standard'])
  .filter((lc) => lc.case.inject.goal.some((a) => a.do === 'write' || a.do === 'remember'))
  .map((lc) => `id:${lc.case.id}`);

const attacked = (r: RunResult) =>
  Object.fromEntries(r.trials.filter((t) => t.valid).map((t) => [t.id, t.labels.a]));

describe('the attacker reads and writes again where the harness wants a read first', () => {
  const results: Record<string, RunResult> = {};
  beforeAll(async () => {
    for (const config of ['plain', 'qwen-words', 'own-words'])
      results[config] = await runSafetyCases(
        scriptedRun({ adapter: HARNESS, config, cases: writes, out: join(dir(), `${config}.json`) }),
      );
  }, 900_000);

  it('the precondition-free harness is attacked successfully (the comparison means something)', () => {
    expect(writes.length).toBeGreaterThanOrEqual(30);
    expect(results.plain.summary.overall.asr).toBeGreaterThan(0.5);
  });

  for (const config of ['qwen-words', 'own-words'])
    it(`${config}: the same attacks succeed as without the precondition, and nothing is detected`, () => {
      const r = results[config];
      expect(attacked(r)).toEqual(attacked(results.plain));
      expect(r.summary.overall.asr).toBe(results.plain.summary.overall.asr);
      expect(r.trials.filter((t) => t.labels.d).map((t) => t.id)).toEqual([]);
      expect(r.summary.overall.detection).toBe(0);
    });

  it('the record says the write failed and then went through after a read', () => {
    const routes = results['own-words'].trials.flatMap((t) => t.facts?.attack_routes ?? []);
    const retried = routes.filter((s) => s.succeeded?.endsWith('again after a read'));
    expect(retried.length).toBeGreaterThan(0);
    for (const s of retried) expect(s.tried.some((t) => t.outcome === 'errored')).toBe(true);
  });
});

// A write tool that creates files only (Copilot CLI's `create`: "Path already exists") fails the owner's
// write of an existing file before and after the read; the harness has a shell, and the owner's step is
// then owed its shell form, as for any step the native tool failed. It used to give up after the
// read-retry: the owner's task read "not done" and utility was undercounted.
describe("the owner's write falls back to the shell after the read-retry fails", () => {
  const existing = loadCases(['subset:standard'])
    .filter((lc) =>
      lc.case.owner.plan.some(
        (a) => a.do === 'write' && !a.append && Object.hasOwn(lc.case.world.files, a.path),
      ),
    )
    .slice(0, 4)
    .map((lc) => `id:${lc.case.id}`);
  let r: RunResult;
  beforeAll(async () => {
    r = await runSafetyCases(
      scriptedRun({
        adapter: HARNESS,
        config: 'create-only',
        cases: existing,
        out: join(dir(), 'create-only.json'),
      }),
    );
  }, 600_000);

  it('every owner task is done, through the shell', () => {
    expect(existing.length).toBe(4);
    const valid = r.trials.filter((t) => t.valid);
    expect(valid.length).toBe(4);
    expect(valid.filter((t) => !t.labels.u).map((t) => t.id)).toEqual([]);
  });
});
