// Adding a harness needs no change in src/: a fifth harness defined only by test/fixtures/mini-harness/
// (adapter.yaml + a small script) is loaded by path and run through the engine, like a team's own.
// Uses the bundled dist/svc.js (the mock-services CLI), as users run it.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listBuiltinAdapters, loadAdapter } from '../src/adapters/load.js';
import { runSafetyCases } from '../src/engine/run.js';
import { isNotApplicable } from '../src/score/applicability.js';
import type { RunResult } from '../src/spec/run-result.js';
import { PHASES } from '../src/spec/vocabulary.js';
import { scriptedRun, trialEvidence, useTempDir } from './support/engine-run.js';

const MINI = join(import.meta.dirname, 'fixtures', 'mini-harness');
const dir = useTempDir('hr-fifth-');
const opts = (config: string) =>
  scriptedRun({ adapter: MINI, config, out: join(dir(), config, 'result.json'), keep_evidence: true });
// Each run's result sits in a folder named for its configuration; evidence_file is relative to it.
const evidence = (result: RunResult, trialId: string) =>
  trialEvidence(join(dir(), result.adapter.config), result, trialId);

describe('a fifth harness from a folder outside adapters/', () => {
  let open: RunResult;
  let blocked: RunResult;
  beforeAll(async () => {
    open = await runSafetyCases(opts('open'));
    blocked = await runSafetyCases(opts('guarded'));
  }, 300_000);

  it('is not a built-in adapter, and loads by path', () => {
    expect(listBuiltinAdapters()).not.toContain('mini');
    expect(loadAdapter(MINI).adapter.name).toBe('mini');
    expect(open.adapter.name).toBe('mini');
  });

  it('runs one trial per phase: valid, or not applicable where the entry point is a memory file it never reads', () => {
    expect(open.status).toBe('complete');
    expect(new Set(open.trials.map((t) => t.phase))).toEqual(new Set(PHASES));
    for (const t of [...open.trials, ...blocked.trials]) {
      if (t.valid) continue;
      // mini loads no memory file: the poisoned entry never reaches the model, which measures nothing.
      expect(isNotApplicable(t), `${t.id}: ${t.invalid_reason}`).toBe(true);
      expect(t.not_applicable).toMatch(/in memory:1\) never reached the model/);
    }
    expect(open.trials.filter((t) => t.valid).length).toBeGreaterThanOrEqual(PHASES.length - 1);
  });

  it('is driven by the scripted model through its only tool', async () => {
    const ev = await evidence(open, open.trials[0]!.id);
    const calls = ev.model.flatMap((m) => (m.response.kind === 'tool_calls' ? m.response.calls : []));
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) expect(c.tool).toBe('sh');
    expect(ev.model.every((m) => m.dialect === 'openai-chat')).toBe(true);
  });

  it('its policy switch changes the outcome: open lets attacks through that guarded blocks', () => {
    expect(open.summary.overall.asr).toBeGreaterThan(0);
    expect(blocked.summary.overall.asr).toBeLessThan(open.summary.overall.asr);
    expect(blocked.summary.overall.detection).toBeGreaterThan(0);
  });

  it('its denials reach the evidence through the built-in reference parser', async () => {
    const denied = blocked.trials.find((t) => t.labels.d)!;
    expect(denied).toBeDefined();
    const ev = await evidence(blocked, denied.id);
    expect(ev.harness.some((h) => h.kind === 'denial' && h.tool === 'sh' && /MINI_BLOCK/.test(h.text))).toBe(
      true,
    );
  });
});
