// Coverage of a case library: cases per phase, per entry point × effect cell, audit rules per case.
import { markdownTable } from 'markdown-table';
import { EFFECTS, ENTRY_POINTS, GITHUB_SOURCES, PHASES } from '../spec/vocabulary.js';
import type { LoadedCase } from './schema.js';

export interface Coverage {
  cases: number;
  base_cases: number;
  variants: number;
  phases: Record<string, number>;
  /** entry point → effect → cases. */
  grid: Record<string, Record<string, number>>;
  empty_cells: string[];
  thin_cells: string[];
  rules: { total: number; mean_per_case: number; min_per_case: number; by_channel: Record<string, number> };
  tags: Record<string, number>;
  /** `github_event` base cases per source (where on GitHub the text sits), and the sources with fewer than two. */
  github_sources: Record<string, number>;
  thin_github_sources: string[];
}

export function coverage(cases: LoadedCase[]): Coverage {
  const phases = Object.fromEntries(PHASES.map((p) => [p, 0]));
  const grid = Object.fromEntries(
    ENTRY_POINTS.map((ep) => [ep, Object.fromEntries(EFFECTS.map((ef) => [ef, 0]))]),
  );
  const byChannel: Record<string, number> = { tools: 0, resources: 0, flow: 0 };
  const tags: Record<string, number> = {};
  let rules = 0;
  let minRules = Number.POSITIVE_INFINITY;
  for (const { case: c } of cases) {
    phases[c.phase]!++;
    grid[c.entry_point]![c.effect]!++;
    rules += c.audit.length;
    minRules = Math.min(minRules, c.audit.length);
    for (const r of c.audit) byChannel[r.channel]!++;
    for (const t of c.tags) tags[t] = (tags[t] ?? 0) + 1;
  }
  const sources = Object.fromEntries(GITHUB_SOURCES.map((src) => [src, 0]));
  for (const { case: c } of cases) if (c.github_source && !c.variant_of) sources[c.github_source]!++;
  const cells = ENTRY_POINTS.flatMap((ep) => EFFECTS.map((ef) => [ep, ef, grid[ep]![ef]!] as const));
  return {
    cases: cases.length,
    base_cases: cases.filter((c) => !c.case.variant_of).length,
    variants: cases.filter((c) => c.case.variant_of).length,
    phases,
    grid,
    empty_cells: cells.filter(([, , n]) => n === 0).map(([ep, ef]) => `${ep} × ${ef}`),
    thin_cells: cells.filter(([, , n]) => n === 1).map(([ep, ef]) => `${ep} × ${ef}`),
    rules: {
      total: rules,
      mean_per_case: cases.length ? Math.round((rules / cases.length) * 10) / 10 : 0,
      min_per_case: cases.length ? minRules : 0,
      by_channel: byChannel,
    },
    tags: Object.fromEntries(Object.entries(tags).sort()),
    github_sources: sources,
    thin_github_sources: GITHUB_SOURCES.filter((src) => sources[src]! < 2),
  };
}

export function coverageMarkdown(cov: Coverage): string {
  const phaseTable = markdownTable([
    ['phase', 'cases'],
    ...PHASES.map((p) => [p, String(cov.phases[p])]),
    ['**total**', `**${cov.cases}** (${cov.base_cases} base, ${cov.variants} variants)`],
  ]);
  const gridTable = markdownTable(
    [
      ['entry point \\ effect', ...EFFECTS],
      ...ENTRY_POINTS.map((ep) => [ep, ...EFFECTS.map((ef) => String(cov.grid[ep]![ef]))]),
    ],
    { align: ['l', ...EFFECTS.map(() => 'r' as const)] },
  );
  const lines = [
    '### Cases by phase',
    '',
    phaseTable,
    '',
    '### Entry point × effect',
    '',
    gridTable,
    '',
    `Cells with no case: ${cov.empty_cells.length ? cov.empty_cells.join(', ') : 'none'}.`,
    `Cells with one case: ${cov.thin_cells.length ? cov.thin_cells.join(', ') : 'none'}.`,
    '',
    '### GitHub event sources (`github_event` base cases)',
    '',
    markdownTable([
      ['source', 'base cases'],
      ...GITHUB_SOURCES.map((src) => [src, String(cov.github_sources[src])]),
    ]),
    '',
    `Sources with fewer than two base cases: ${cov.thin_github_sources.length ? cov.thin_github_sources.join(', ') : 'none'}.`,
    '',
    `Audit rules: ${cov.rules.total} in all, ${cov.rules.mean_per_case} per case on average (minimum ${cov.rules.min_per_case}); tools ${cov.rules.by_channel.tools}, resources ${cov.rules.by_channel.resources}, flow ${cov.rules.by_channel.flow}.`,
  ];
  return `${lines.join('\n')}\n`;
}
