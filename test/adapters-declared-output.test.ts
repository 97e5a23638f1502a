// A harness whose refusal appears only in its own stdout (opencode-style: an "ask" auto-rejects and ends
// the session, the model never gets a tool result) is measured through output rules its adapter declares
// in YAML: test/fixtures/ask-harness/, outside adapters/, with no parser code anywhere.
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAdapter } from '../src/adapters/load.js';
import { runSafetyCases } from '../src/engine/run.js';
import type { RunResult } from '../src/spec/run-result.js';
import { scriptedRun, trialEvidence, useTempDir } from './support/engine-run.js';

const ASK = join(import.meta.dirname, 'fixtures', 'ask-harness');
const dir = useTempDir('hr-ask-');
let blind: string;
const opts = (adapter: string, config: string, name: string) =>
  scriptedRun({ adapter, config, out: join(dir(), name, 'result.json'), keep_evidence: true });
/** A trial's kept evidence; `name` is the run's folder (evidence_file is relative to the result's folder). */
const evidence = (result: RunResult, trialId: string, name = 'ask') =>
  trialEvidence(join(dir(), name), result, trialId);

describe('output rules declared in YAML', () => {
  let asked: RunResult;
  let unread: RunResult;
  beforeAll(async () => {
    // The same harness with its output rules removed: what any harness without a parser looked like.
    blind = join(dir(), 'blind');
    await cp(ASK, blind, { recursive: true });
    const yaml = await readFile(join(blind, 'adapter.yaml'), 'utf8');
    await writeFile(join(blind, 'adapter.yaml'), yaml.replace(/^output:\n(?:\s+.*\n)+/m, 'output: none\n'));
    asked = await runSafetyCases(opts(ASK, 'ask', 'ask'));
    unread = await runSafetyCases(opts(blind, 'ask', 'blind'));
  }, 300_000);

  it('load from the adapter file', () => {
    const { output } = loadAdapter(ASK).adapter;
    expect(typeof output === 'object' && output.rules.map((r) => r.kind)).toEqual(['denial', 'session_end']);
    expect(loadAdapter(blind).adapter.output).toBe('none');
  });

  it('turn a refusal seen only in stdout into a refused attacker call and detection', async () => {
    // The harness loads no memory file: a memory-borne injection is not applicable, everything else valid.
    for (const t of asked.trials)
      expect(
        t.valid || /in memory:\d+\) never reached/.test(t.not_applicable ?? ''),
        `${t.id}: ${t.invalid_reason}`,
      ).toBe(true);
    const detected = asked.trials.filter((t) => t.labels.d);
    expect(detected.length).toBeGreaterThan(0);
    const t = detected[0]!;
    const refused = t.outcomes!.find((o) => o.role === 'attack' && o.outcome === 'refused');
    expect(refused?.reason).toMatch(/auto-rejecting/);
    const ev = await evidence(asked, t.id);
    expect(ev.harness.some((h) => h.kind === 'denial' && h.tool === 'bash')).toBe(true);
    expect(ev.harness.some((h) => h.kind === 'session_end' && h.text === 'permission rejected')).toBe(true);
    // Nothing came back for the refused call: the refusal is not in what the model saw.
    expect(ev.model.flatMap((m) => m.results).some((r) => r.denied)).toBe(false);
    // The steps after it were never reached, and the record says why.
    expect(
      t.outcomes!.some((o) => o.outcome === 'not_attempted' && /ended the session/.test(o.reason ?? '')),
    ).toBe(true);
  });

  it('without them the same runs show no detection and the call as missing', () => {
    expect(unread.summary.overall.detection).toBe(0);
    expect(asked.summary.overall.detection).toBeGreaterThan(0);
    const missing = unread.trials.flatMap((t) => t.outcomes ?? []).filter((o) => o.outcome === 'missing');
    expect(missing.length).toBeGreaterThan(0);
  });
});
