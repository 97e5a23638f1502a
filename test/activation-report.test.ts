// Activated persistence through compare, report and gate: a run with a second session against a baseline
// without one (not compared, and said so), the tables' column, and the max-activated threshold.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { activationLines } from '../src/cli/phase-table.js';
import { parseBaseline } from '../src/compare/baseline.js';
import { compareRuns } from '../src/compare/compare.js';
import { carriedTrials } from '../src/engine/resume.js';
import { parseGateOptions } from '../src/gate/options.js';
import { evaluateThresholds } from '../src/gate/thresholds.js';
import { compactPhaseTable } from '../src/report/comment-body.js';
import { phaseTable } from '../src/report/phase-tables.js';
import { RunResult } from '../src/spec/run-result.js';

const load = (f: string) => RunResult.parse(JSON.parse(readFileSync(f, 'utf8')));
// A committed measurement (examples/results/activation): pi with a second session on persistence cases.
const withActivation = load('examples/results/activation/pi-default.json');

/** The same run as an older engine (or a run without activation) would have written it. */
function withoutActivation(r: RunResult): RunResult {
  const strip = <T extends { activated?: number; activation_trials?: number }>(s: T): T => {
    const { activated: _a, activation_trials: _n, ...rest } = s;
    return rest as T;
  };
  return {
    ...r,
    trials: r.trials.map(({ activation: _x, ...t }) => {
      const { activated: _y, ...labels } = t.labels;
      return { ...t, labels };
    }),
    summary: {
      ...r.summary,
      overall: strip(r.summary.overall),
      phases: Object.fromEntries(Object.entries(r.summary.phases).map(([p, s]) => [p, strip(s!)])),
    },
  };
}

describe('activated persistence in the comparison and the reports', () => {
  const old = withoutActivation(withActivation);

  it('a baseline without a second session is not compared, and the table says so', () => {
    const c = compareRuns(withActivation, parseBaseline(old, 'old.json'));
    expect(c.overall.activated.now).toBeCloseTo(withActivation.summary.overall.activated!, 6);
    expect(c.overall.activated.baseline).toBeNull();
    expect(c.overall.activated.delta).toBeNull();
    const table = phaseTable(c);
    expect(table).toMatch(/\| Activated \|/);
    expect(table).toMatch(/Activated persistence is not compared: the baseline ran no second session/);
    expect(compactPhaseTable(c)).toMatch(/Activated/);
  });

  it('both sides measured: the delta is shown; neither: no column', () => {
    // A baseline where nothing that persisted acted: every activated label false, the rates 0.
    const lower = structuredClone(withActivation);
    for (const t of lower.trials) if (t.labels.activated !== undefined) t.labels.activated = false;
    for (const s of [lower.summary.overall, ...Object.values(lower.summary.phases)])
      if (s?.activated !== undefined) s.activated = 0;
    const c = compareRuns(withActivation, parseBaseline(lower, 'lower.json'));
    expect(c.overall.activated.baseline).toBe(0);
    expect(c.overall.activated.delta).toBeCloseTo(withActivation.summary.overall.activated!, 6);
    expect(phaseTable(c)).not.toMatch(/not compared/);
    const none = compareRuns(old, parseBaseline(old, 'old.json'));
    expect(phaseTable(none)).not.toMatch(/Activated/);
    expect(compactPhaseTable(none)).not.toMatch(/Activated/);
  });

  it('a case whose second session changed since the baseline: activated is not compared, and the note names it', () => {
    const other = structuredClone(withActivation);
    const t = other.trials.find((x) => x.activation?.ran)!;
    t.activation!.revision = '0123456789ab';
    const c = compareRuns(withActivation, parseBaseline(other, 'other.json'));
    expect(c.otherSecondSessions).toEqual([t.case_id]);
    expect(c.overall.activated.baseline).toBeNull();
    expect(c.phases.find((p) => p.phase === 'persistence')!.activated.baseline).toBeNull();
    // Its first-session labels are still compared trial for trial (the case's revision is the same).
    expect(c.cases.find((x) => x.id === t.case_id)!.status).toBe('unchanged');
    expect(phaseTable(c)).toMatch(
      new RegExp(`1 case ran another second session in the baseline .*\`${t.case_id}\``),
    );
    expect(phaseTable(c)).not.toMatch(/ran no second session/);
  });

  it('the terminal summary gives the rate with its counts', () => {
    expect(activationLines(withActivation)).toMatch(/activated persistence .*: 52% \(13\/25\)/);
    expect(activationLines(old)).toBe('');
  });
});

describe('the max-activated threshold', () => {
  const gate = (over: Record<string, string>) => parseGateOptions((n) => over[n]);

  it('is parsed overall and per phase', () => {
    expect(gate({ 'max-activated': '20%' }).thresholds.overall).toEqual({ maxActivated: 0.2 });
    expect(gate({ 'phase-thresholds': 'persistence: {max-activated: 0}' }).thresholds.phases).toEqual({
      persistence: { maxActivated: 0 },
    });
    expect(() => gate({ 'phase-thresholds': 'persistence: {max-activate: 0}' })).toThrow(
      /max-asr, max-persistence, max-activated, min-css/,
    );
  });

  it('fails a run above it, and a run that measured no activation at all', () => {
    const over = evaluateThresholds(withActivation, gate({ 'max-activated': '50%' }).thresholds);
    expect(over.map((v) => v.message)).toEqual(['overall: activated persistence 52.0% > max 50.0%']);
    expect(evaluateThresholds(withActivation, gate({ 'max-activated': '60%' }).thresholds)).toEqual([]);
    const unmeasured = evaluateThresholds(
      withoutActivation(withActivation),
      gate({ 'max-activated': '50%' }).thresholds,
    );
    expect(unmeasured).toHaveLength(1);
    expect(unmeasured[0]!.actual).toBeNull();
    expect(unmeasured[0]!.message).toMatch(/no trial had a second session/);
  });
});

describe('resume and the activation switch', () => {
  it('a journal of a run with a second session is not resumed without one, nor the other way round', () => {
    const header = {
      adapter: withActivation.adapter,
      model: { ...withActivation.model, activation: true as const },
      selection: withActivation.selection,
    };
    const journal = {
      header,
      trials: withActivation.trials,
      path: 'r.json.journal',
    } as unknown as Parameters<typeof carriedTrials>[0];
    const { activation: _a, ...without } = header.model;
    expect(() => carriedTrials(journal, { ...header, model: without }, new Set())).toThrow(
      /activation was true, now false/,
    );
    expect(carriedTrials(journal, header, new Set(withActivation.trials.map((t) => t.id)))).toHaveLength(30);
  });
});
