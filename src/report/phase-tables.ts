// The report's tables and chart over a run's comparison: the phase table (rates with deltas and what
// changed), the ASR-by-phase chart (only where it shows a change) and the per-strategy table. Phase and
// strategy names are the schema's enums and the run's options; strategy names are escaped all the same.
import { markdownTable } from 'markdown-table';
import type { Comparison, PhaseComparison } from '../compare/compare.js';
import type { RunResult } from '../spec/run-result.js';
import { PHASES } from '../spec/vocabulary.js';
import { escapeMarkdown } from './escape.js';
import { activatedNote, pct, pValue, rateCell, score, scoreCell, showsActivated } from './format.js';

const e = (s: unknown, max?: number) => escapeMarkdown(s, max === undefined ? {} : { max });

function changesCell(row: PhaseComparison, hasBaseline: boolean): string {
  const s = row.statuses;
  const parts: string[] = [];
  if (s.regression) parts.push(`❌ ${s.regression} regressed`);
  if (s.fix) parts.push(`✅ ${s.fix} fixed`);
  if (s.invalid) parts.push(`⚠️ ${s.invalid} invalid`);
  if (s.changed) parts.push(`🔄 ${s.changed} changed`);
  if (hasBaseline && s.new) parts.push(`🆕 ${s.new} not run on base`);
  if (s.removed) parts.push(`➖ ${s.removed} not run`);
  if (row.p !== undefined && row.matched.baseValid > 0) parts.push(pValue(row.p));
  return parts.join(' · ') || (hasBaseline ? 'no change' : '');
}

export function phaseTable(comparison: Comparison): string {
  // Activated persistence only when a second session measured it (docs/cases.md, "Persistence that fires").
  const activated = showsActivated([...comparison.phases, comparison.overall]);
  const rows: string[][] = [
    [
      'Phase',
      'Cases',
      'ASR',
      'Persistence',
      ...(activated ? ['Activated'] : []),
      'Utility',
      'Detection',
      'CSS',
      'Changes',
    ],
  ];
  const row = (r: PhaseComparison, label: string) => [
    label,
    String(r.cases),
    rateCell(r.asr),
    rateCell(r.persistence),
    ...(activated ? [rateCell(r.activated)] : []),
    rateCell(r.utility),
    rateCell(r.detection),
    scoreCell(r.css),
    changesCell(r, comparison.hasBaseline),
  ];
  for (const r of comparison.phases) rows.push(row(r, `${r.regressed ? '❌ ' : ''}${r.phase}`));
  rows.push(row(comparison.overall, `${comparison.overall.regressed ? '❌ ' : ''}**all phases**`));
  const align = rows[0]!.map((_, i, all) => (i === 0 || i === all.length - 1 ? 'l' : 'r'));
  const table = markdownTable(rows, { align, alignDelimiters: false });
  const note = activatedNote(comparison);
  return note ? `${table}\n\n${note}` : table;
}

/** ASR moved by at least 0.05 pp (what rounds to a visible change), or the phase regressed. */
const moved = (r: PhaseComparison) =>
  r.regressed || (r.asr.delta !== null && Math.abs(r.asr.delta) >= 0.0005);

/**
 * A chart only where it shows a change: a baseline, at least two phases to set side by side, and some
 * phase whose ASR moved. A pass with nothing moved, a run without a baseline and a one-phase run have
 * nothing the table does not already say.
 */
export function chartWorthShowing(c: Comparison): boolean {
  return c.hasBaseline && c.phases.length > 1 && c.phases.some(moved);
}

/** The y-axis top: the largest value rounded up to 10, so small rates are not flattened against 100. */
export function chartTop(values: number[]): number {
  return Math.min(100, Math.max(10, Math.ceil(Math.max(0, ...values) / 10) * 10));
}

/**
 * Mermaid chart of ASR by phase: bars = this run, line = baseline (phase names are schema enums). The
 * baseline is a line because it is often 0 % everywhere, and a bar of 0 is invisible; this run's bars are
 * what changed.
 */
export function asrChart(comparison: Comparison): string {
  const phases = PHASES.filter((p) => comparison.phases.some((r) => r.phase === p));
  if (phases.length === 0) return '';
  const byPhase = new Map(comparison.phases.map((r) => [r.phase, r]));
  const val = (x: number | null | undefined) =>
    x === null || x === undefined ? 0 : Math.round(x * 1000) / 10;
  const now = phases.map((p) => val(byPhase.get(p)?.asr.now));
  const base = phases.map((p) => val(byPhase.get(p)?.asr.baseline));
  const withBase = comparison.hasBaseline;
  const lines = [
    '```mermaid',
    'xychart-beta',
    `  title "ASR by phase (%)${withBase ? ': bars = this run, line = baseline' : ''}"`,
    `  x-axis [${phases.map((p) => `"${p}"`).join(', ')}]`,
    `  y-axis "ASR (%)" 0 --> ${chartTop([...now, ...(withBase ? base : [])])}`,
    `  bar [${now.join(', ')}]`,
    ...(withBase ? [`  line [${base.join(', ')}]`] : []),
    '```',
  ];
  return lines.join('\n');
}

/**
 * With several attack strategies: ASR and the other rates of each strategy's own trials (the phase table
 * counts a case × seed as unsafe when any strategy got through). Strategy names are the run's options.
 */
export function strategyTable(current: RunResult): string | undefined {
  const s = current.summary.strategies;
  if (!s) return undefined;
  const rows: string[][] = [
    ['Strategy', 'Cases', 'Valid', 'ASR', 'Persistence', 'Utility', 'Detection', 'CSS'],
  ];
  for (const [name, st] of Object.entries(s)) {
    const rate = (x: number) => (st.valid ? pct(x) : '—');
    rows.push([
      e(name, 40),
      String(st.cases),
      `${st.valid}/${st.trials}`,
      rate(st.asr),
      rate(st.persistence),
      rate(st.utility),
      rate(st.detection),
      st.valid ? score(st.css) : '—',
    ]);
  }
  const table = markdownTable(rows, {
    align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    alignDelimiters: false,
  });
  return `#### By attack strategy\n\nThe phase table counts a case as unsafe when any strategy got through (docs/strategies.md).\n\n${table}`;
}
