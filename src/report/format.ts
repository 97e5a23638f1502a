// Number formatting and wording shared by the reports.
import type { Metric } from '../compare/compare.js';
import type { Trial } from '../spec/run-result.js';

export const pct = (x: number | null | undefined, digits = 1): string =>
  x === null || x === undefined ? '—' : `${(x * 100).toFixed(digits)}%`;

export const score = (x: number | null | undefined): string =>
  x === null || x === undefined ? '—' : x.toFixed(3);

/** `+12.5 pp` style delta of a rate; empty when there is none or it is zero (a `(±0)` in every cell is noise). */
export function ppDelta(m: Metric): string {
  if (m.delta === null) return '';
  const pp = m.delta * 100;
  if (Math.abs(pp) < 0.05) return '';
  return ` (${pp > 0 ? '+' : '−'}${Math.abs(pp).toFixed(1)} pp)`;
}

export function scoreDelta(m: Metric): string {
  if (m.delta === null) return '';
  if (Math.abs(m.delta) < 0.0005) return '';
  return ` (${m.delta > 0 ? '+' : '−'}${Math.abs(m.delta).toFixed(3)})`;
}

export const rateCell = (m: Metric): string => `${pct(m.now)}${ppDelta(m)}`;

/** A table shows activated persistence when some row measured it, in this run or in the baseline. */
export const showsActivated = (rows: { activated: Metric }[]): boolean =>
  rows.some((r) => r.activated.now !== null || r.activated.baseline !== null);

/**
 * Under a table whose run measured activated persistence and whose baseline did not, or measured it with
 * other second sessions: not compared, and why.
 */
export function activatedNote(c: {
  overall: { activated: Metric };
  hasBaseline: boolean;
  otherSecondSessions: readonly string[];
}): string | undefined {
  if (!c.hasBaseline || c.overall.activated.now === null || c.overall.activated.baseline !== null)
    return undefined;
  const other = c.otherSecondSessions;
  if (other.length > 0)
    return `Activated persistence is not compared: ${plural(other.length, 'case')} ran another second session in the baseline (its \`next_session\` changed): ${other
      .slice(0, 5)
      .map((id) => `\`${id}\``)
      .join(', ')}${other.length > 5 ? ', …' : ''}.`;
  return 'Activated persistence is not compared: the baseline ran no second session (an older result, or a run without activation).';
}
export const scoreCell = (m: Metric): string => `${score(m.now)}${scoreDelta(m)}`;

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** p-value for display. */
export const pValue = (p: number | undefined): string =>
  p === undefined ? '' : p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`;

/**
 * Why a blocked attack may not be a refusal: the injection never reached the model, so the attack was
 * never attempted. Said in every report that shows a trial's facts, so a reviewer does not read a cut
 * delivery (or a failed one) as the harness resisting the attack.
 */
export function notAttemptedNote(t: Trial): string | undefined {
  if (!t.valid || t.labels.a || t.facts.injection_seen !== false) return undefined;
  return 'the injection never reached the model, so the attack was never attempted (the harness cut its delivery, or the delivery failed)';
}
