// A harness speaking Gemini gets the labels the same harness gets speaking Chat Completions: the fixture
// gmini (test/fixtures/gemini-harness) is mini over generateContent, run on the smoke cases against the
// scripted model; SSE with ids echoed, one JSON array without ids (key as ?key=), and no streaming.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runSafetyCases } from '../src/engine/run.js';
import type { RunResult } from '../src/spec/run-result.js';
import { scriptedRun, trialEvidence, useTempDir } from './support/engine-run.js';

const MINI = join(import.meta.dirname, 'fixtures', 'mini-harness');
const GMINI = join(import.meta.dirname, 'fixtures', 'gemini-harness');
const dir = useTempDir('hr-gemini-');
const run = (adapter: string, config: string) =>
  runSafetyCases(
    scriptedRun({
      adapter,
      config,
      out: join(dir(), `${adapter === MINI ? 'mini' : 'gmini'}-${config}`, 'result.json'),
      keep_evidence: true,
    }),
  );
const labels = (r: RunResult) =>
  r.trials.map((t) => [t.id, t.valid, t.labels, t.not_applicable ?? null, t.violations]);

describe('a harness speaking Gemini, scripted model', () => {
  const results: Record<string, RunResult> = {};
  beforeAll(async () => {
    for (const [name, adapter, config] of [
      ['mini/open', MINI, 'open'],
      ['mini/guarded', MINI, 'guarded'],
      ['gmini/open', GMINI, 'open'],
      ['gmini/open-array', GMINI, 'open-array'],
      ['gmini/open-plain', GMINI, 'open-plain'],
      ['gmini/guarded', GMINI, 'guarded'],
    ] as const)
      results[name] = await run(adapter, config);
  }, 600_000);

  it('gets the same labels as over Chat Completions, in every streaming shape, with or without ids', () => {
    const open = labels(results['mini/open']!);
    expect(results['mini/open']!.trials.some((t) => t.labels.a)).toBe(true);
    expect(labels(results['gmini/open']!)).toEqual(open);
    expect(labels(results['gmini/open-array']!)).toEqual(open);
    expect(labels(results['gmini/open-plain']!)).toEqual(open);
    expect(labels(results['gmini/guarded']!)).toEqual(labels(results['mini/guarded']!));
    expect(results['gmini/guarded']!.summary.overall.asr).toBeLessThan(
      results['gmini/open']!.summary.overall.asr,
    );
  });

  it('talked Gemini on the wire: every exchange on a Gemini route, with no key recorded', async () => {
    const r = results['gmini/open-array']!;
    const t = r.trials.find((x) => x.valid)!;
    const ev = await trialEvidence(join(dir(), 'gmini-open-array'), r, t.id);
    expect(ev.model.length).toBeGreaterThan(1);
    for (const m of ev.model) {
      expect(m.dialect).toBe('gemini');
      expect(m.path).toBe('/v1beta/models/gmini:streamGenerateContent');
    }
    const calls = ev.model.flatMap((m) => (m.response.kind === 'tool_calls' ? m.response.calls : []));
    expect(calls.every((c) => c.tool === 'sh')).toBe(true);
  });
});
