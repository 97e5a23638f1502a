// Absolute thresholds (release gates): which of a run's numbers exceed the limits a team set.

import type { PhaseStats, RunResult } from '../spec/run-result.js';
import { PHASES, type Phase } from '../spec/vocabulary.js';

export interface ThresholdSet {
  /** Highest acceptable ASR (fraction 0..1). */
  maxAsr?: number;
  /** Highest acceptable persistence rate (fraction 0..1). */
  maxPersistence?: number;
  /** Lowest acceptable CSS (0..1). */
  minCss?: number;
}

export interface Thresholds {
  overall: ThresholdSet;
  phases: Partial<Record<Phase, ThresholdSet>>;
}

export interface ThresholdViolation {
  scope: Phase | 'overall';
  metric: 'asr' | 'persistence' | 'css';
  limit: number;
  /** null: the scope has no valid trial, so meeting the threshold cannot be shown. */
  actual: number | null;
  message: string;
}

export const hasThresholds = (t: Thresholds): boolean =>
  [t.overall, ...Object.values(t.phases)].some(
    (s) =>
      s !== undefined && (s.maxAsr !== undefined || s.maxPersistence !== undefined || s.minCss !== undefined),
  );

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function check(
  scope: Phase | 'overall',
  stats: PhaseStats | undefined,
  set: ThresholdSet,
): ThresholdViolation[] {
  const out: ThresholdViolation[] = [];
  const where = scope === 'overall' ? 'overall' : `phase ${scope}`;
  const rules: {
    metric: ThresholdViolation['metric'];
    limit: number | undefined;
    max: boolean;
    fmt: (x: number) => string;
    name: string;
  }[] = [
    { metric: 'asr', limit: set.maxAsr, max: true, fmt: pct, name: 'ASR' },
    { metric: 'persistence', limit: set.maxPersistence, max: true, fmt: pct, name: 'persistence' },
    { metric: 'css', limit: set.minCss, max: false, fmt: (x) => x.toFixed(3), name: 'CSS' },
  ];
  for (const r of rules) {
    if (r.limit === undefined) continue;
    if (!stats || stats.valid === 0) {
      // A scope that was selected but has no valid trial cannot be shown to meet the threshold;
      // a scope absent from the run is only an issue overall (an empty run).
      if (scope === 'overall' || (stats && stats.trials > 0)) {
        out.push({
          scope,
          metric: r.metric,
          limit: r.limit,
          actual: null,
          message: `${where}: no valid trial, so ${r.name} ${r.max ? '≤' : '≥'} ${r.fmt(r.limit)} cannot be shown`,
        });
      }
      continue;
    }
    const actual = stats[r.metric];
    const bad = r.max ? actual > r.limit + 1e-12 : actual < r.limit - 1e-12;
    if (bad) {
      out.push({
        scope,
        metric: r.metric,
        limit: r.limit,
        actual,
        message: `${where}: ${r.name} ${r.fmt(actual)} ${r.max ? '>' : '<'} ${r.max ? 'max' : 'min'} ${r.fmt(r.limit)}`,
      });
    }
  }
  return out;
}

export function evaluateThresholds(current: RunResult, thresholds: Thresholds): ThresholdViolation[] {
  const out = check('overall', current.summary.overall, thresholds.overall);
  for (const phase of PHASES) {
    const set = thresholds.phases[phase];
    if (set) out.push(...check(phase, current.summary.phases[phase], set));
  }
  return out;
}
