// The terminal phase table: cases, ASR, persistence, utility, detection, CSS by phase.

import type { PhaseStats, RunResult } from '../spec/run-result.js';
import { PHASES } from '../spec/vocabulary.js';

const pct = (x: number) => `${Math.round(x * 100)}%`;
/** No valid trial: nothing was measured, so `–`, never `0%` (which reads as safe). */
const NONE = '–';

const statsRow = (name: string, s: PhaseStats): string[] => {
  const m = (x: number, f: (x: number) => string) => (s.valid ? f(x) : NONE);
  return [
    name,
    String(s.cases),
    s.valid === s.trials ? String(s.trials) : `${s.valid}/${s.trials}`,
    m(s.asr, pct),
    m(s.persistence, pct),
    m(s.utility, pct),
    m(s.detection, pct),
    m(s.css, (x) => x.toFixed(2)),
  ];
};

export function phaseRows(result: RunResult): string[][] {
  const rows = PHASES.filter((p) => result.summary.phases[p]).map((p) =>
    statsRow(p, result.summary.phases[p]!),
  );
  rows.push(statsRow('overall', result.summary.overall));
  return rows;
}

/** With several strategies: each strategy's own rates, under the worst-case phase table. */
export function strategyTable(result: RunResult): string {
  const s = result.summary.strategies;
  if (!s) return '';
  const rows = Object.entries(s).map(([name, stats]) => statsRow(name, stats));
  return `\n\nby strategy (the phase rates above count a case × seed as unsafe when any strategy got through):\n${formatTable(['strategy', ...PHASE_HEADER.slice(1)], rows)}`;
}

/** Activated persistence (a run with a second session): its rate and counts, overall and by phase. */
export function activationLines(result: RunResult): string {
  const o = result.summary.overall;
  if (o.activated === undefined || !o.activation_trials) return '';
  const of = (s: PhaseStats) =>
    `${pct(s.activated!)} (${Math.round(s.activated! * s.activation_trials!)}/${s.activation_trials})`;
  const phases = PHASES.flatMap((p) => {
    const s = result.summary.phases[p];
    return s?.activated !== undefined && s.activation_trials ? [`${p} ${of(s)}`] : [];
  });
  return `\n\nactivated persistence (what persisted acted in a second session, of the trials that persisted): ${of(o)}${phases.length > 1 ? `; ${phases.join(', ')}` : ''}`;
}

export const PHASE_HEADER = ['phase', 'cases', 'valid', 'ASR', 'persist', 'utility', 'detect', 'CSS'];

export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * Live and replay runs add the ASR's 95% Wilson interval per phase and say which model and what it
 * cost: sampled rates without their uncertainty read as more than they are.
 */
export function phaseTable(result: RunResult): string {
  const table =
    formatTable(PHASE_HEADER, phaseRows(result)) + strategyTable(result) + activationLines(result);
  if (result.model.mode === 'scripted') return table;
  const ci = (s: PhaseStats | undefined) =>
    s?.valid && s.asr_interval ? `${pct(s.asr_interval[0])}–${pct(s.asr_interval[1])}` : NONE;
  const withCi = formatTable(
    [...PHASE_HEADER, 'ASR 95% CI'],
    phaseRows(result).map((r) => [
      ...r,
      ci(
        r[0] === 'overall'
          ? result.summary.overall
          : result.summary.phases[r[0] as keyof typeof result.summary.phases],
      ),
    ]),
  );
  const m = result.model;
  const what = `${m.mode === 'live' ? 'live run' : 'replay of a live run'}: model ${m.name ?? '(unnamed)'}${m.provider ? ` (${m.provider})` : ''}, ${m.seeds} seed(s) per case`;
  const usage = result.usage
    ? `; ${result.usage.requests} provider requests, ${result.usage.input_tokens} input + ${result.usage.output_tokens} output tokens`
    : '';
  return `${what}${usage}\n${withCi}${strategyTable(result)}${activationLines(result)}`;
}
