// Adding a harness needs no change in src/: a fifth harness defined only by test/fixtures/mini-harness/
// (adapter.yaml + a small script) is loaded by path and run through the engine, like a team's own.
// Uses the bundled dist/svc.js (the mock-services CLI), as users run it.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listBuiltinAdapters, loadAdapter } from '../src/adapters/load.js';
import { PHASES } from '../src/cases/schema.js';
import type { RunOptions } from '../src/engine/options.js';
import { runSafetyCases } from '../src/engine/run.js';
import type { Evidence } from '../src/evidence/types.js';
import type { RunResult } from '../src/result/schema.js';

const MINI = join(import.meta.dirname, 'fixtures', 'mini-harness');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hr-fifth-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const opts = (config: string): RunOptions => ({
  adapter: MINI,
  config,
  cases: ['subset:smoke'],
  runner: 'process',
  concurrency: 2,
  seeds: 1,
  model: 'scripted',
  out: join(dir, config, 'result.json'),
  keep_evidence: true,
});

async function evidence(result: RunResult, trialId: string): Promise<Evidence> {
  const trial = result.trials.find((t) => t.id === trialId)!;
  return JSON.parse(await readFile(resolve(dir, trial.evidence_file!), 'utf8'));
}

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

  it('runs one valid trial per phase', () => {
    expect(open.status).toBe('complete');
    expect(new Set(open.trials.map((t) => t.phase))).toEqual(new Set(PHASES));
    for (const t of [...open.trials, ...blocked.trials])
      expect(t.valid, `${t.id}: ${t.invalid_reason}`).toBe(true);
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
