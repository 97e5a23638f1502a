// Absolute thresholds (release gates): which of a run's numbers exceed the limits a team set.

import type { PhaseStats, RunResult } from '../spec/run-result.js';
import { PHASES, type Phase } from '../spec/vocabulary.js';

export interface ThresholdSet {
  /** Highest acceptable ASR (fraction 0..1). */
  maxAsr?: number;
  /** Highest acceptable persistence rate (fraction 0..1). */
  maxPersistence?: number;
  /** Highest acceptable activated-persistence rate (fraction 0..1; needs a run with a second session). */
  maxActivated?: number;
  /** Lowest acceptable CSS (0..1). */
  minCss?: number;
}

export interface Thresholds {
  overall: ThresholdSet;
  phases: Partial<Record<Phase, ThresholdSet>>;
}

export interface ThresholdViolation {
  scope: Phase | 'overall';
  metric: ThresholdMetric['metric'];
  limit: number;
  /** null: the scope has no valid trial, so meeting the threshold cannot be shown. */
  actual: number | null;
  message: string;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/**
 * The gated metrics, the one place they are listed: the option (`max-asr`, also a key of
 * `phase-thresholds`), the ThresholdSet field, the PhaseStats rate it reads, its direction and words.
 */
export const THRESHOLD_METRICS = [
  { input: 'max-asr', key: 'maxAsr', metric: 'asr', max: true, name: 'ASR', fmt: pct },
  {
    input: 'max-persistence',
    key: 'maxPersistence',
    metric: 'persistence',
    max: true,
    name: 'persistence',
    fmt: pct,
  },
  {
    input: 'max-activated',
    key: 'maxActivated',
    metric: 'activated',
    max: true,
    name: 'activated persistence',
    fmt: pct,
    // Measured only by a run with a second session: absent otherwise, and then never shown to be met.
    unmeasured: 'no trial had a second session (run with activation on, or cases with next_session)',
  },
  {
    input: 'min-css',
    key: 'minCss',
    metric: 'css',
    max: false,
    name: 'CSS',
    fmt: (x: number) => x.toFixed(3),
  },
] as const satisfies readonly {
  input: string;
  key: keyof ThresholdSet;
  metric: keyof PhaseStats;
  max: boolean;
  name: string;
  fmt: (x: number) => string;
  unmeasured?: string;
}[];
export type ThresholdMetric = (typeof THRESHOLD_METRICS)[number];
export type ThresholdInput = ThresholdMetric['input'];

export const hasThresholds = (t: Thresholds): boolean =>
  [t.overall, ...Object.values(t.phases)].some(
    (s) => s !== undefined && THRESHOLD_METRICS.some((m) => s[m.key] !== undefined),
  );

/** A ThresholdSet from values keyed by option name (`max-asr`…); absent values set nothing. */
export function thresholdSet(values: Partial<Record<ThresholdInput, number>>): ThresholdSet {
  return Object.fromEntries(
    THRESHOLD_METRICS.flatMap((m) => (values[m.input] === undefined ? [] : [[m.key, values[m.input]]])),
  ) as ThresholdSet;
}

function check(
  scope: Phase | 'overall',
  stats: PhaseStats | undefined,
  set: ThresholdSet,
): ThresholdViolation[] {
  const out: ThresholdViolation[] = [];
  const where = scope === 'overall' ? 'overall' : `phase ${scope}`;
  for (const r of THRESHOLD_METRICS) {
    const limit = set[r.key];
    if (limit === undefined) continue;
    if (!stats || stats.valid === 0) {
      // A scope that was selected but has no valid trial cannot be shown to meet the threshold;
      // a scope absent from the run is only an issue overall (an empty run).
      if (scope === 'overall' || (stats && stats.trials > 0)) {
        out.push({
          scope,
          metric: r.metric,
          limit,
          actual: null,
          message: `${where}: no valid trial, so ${r.name} ${r.max ? '≤' : '≥'} ${r.fmt(limit)} cannot be shown`,
        });
      }
      continue;
    }
    const actual = stats[r.metric];
    if (actual === undefined) {
      const why = 'unmeasured' in r ? r.unmeasured : 'not measured';
      out.push({
        scope,
        metric: r.metric,
        limit,
        actual: null,
        message: `${where}: ${why}, so ${r.name} ${r.max ? '≤' : '≥'} ${r.fmt(limit)} cannot be shown`,
      });
      continue;
    }
    const bad = r.max ? actual > limit + 1e-12 : actual < limit - 1e-12;
    if (bad) {
      out.push({
        scope,
        metric: r.metric,
        limit,
        actual,
        message: `${where}: ${r.name} ${r.fmt(actual)} ${r.max ? '>' : '<'} ${r.max ? 'max' : 'min'} ${r.fmt(limit)}`,
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
