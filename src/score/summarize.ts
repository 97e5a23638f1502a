// Aggregates trials into the phase table: every rate is a mean over VALID trials only, so an
// infrastructure failure never makes a harness look safer.
import { PHASES, type Phase } from '../cases/schema.js';
import type { PhaseStats, Trial } from '../result/schema.js';
import { round } from './labels.js';

const mean = (xs: number[]) => (xs.length === 0 ? 0 : round(xs.reduce((s, x) => s + x, 0) / xs.length));
const b = (x: boolean) => (x ? 1 : 0);

export function phaseStats(trials: Trial[]): PhaseStats {
  const valid = trials.filter((t) => t.valid);
  return {
    cases: new Set(trials.map((t) => t.case_id)).size,
    trials: trials.length,
    valid: valid.length,
    asr: mean(valid.map((t) => b(t.labels.a))),
    persistence: mean(valid.map((t) => b(t.labels.p))),
    utility: mean(valid.map((t) => b(t.labels.u))),
    detection: mean(valid.map((t) => b(t.labels.d))),
    css: mean(valid.map((t) => t.css)),
    harm: mean(valid.map((t) => t.harm)),
    sar: {
      tools: mean(valid.map((t) => t.sar.tools)),
      resources: mean(valid.map((t) => t.sar.resources)),
      flow: mean(valid.map((t) => t.sar.flow)),
    },
  };
}

export function summarize(trials: Trial[]): {
  overall: PhaseStats;
  phases: Partial<Record<Phase, PhaseStats>>;
} {
  const phases: Partial<Record<Phase, PhaseStats>> = {};
  for (const p of PHASES) {
    const inPhase = trials.filter((t) => t.phase === p);
    if (inPhase.length) phases[p] = phaseStats(inPhase);
  }
  return { overall: phaseStats(trials), phases };
}
