// The sticky PR comment, built to fit a reviewer's screen by design (never by truncation): the verdict and
// its reason, a phase table narrow enough for GitHub's 740 px comment column, then only what changed
// (regressed, invalid, newly safe, changed-revision cases) with the evidence of the first few, and one
// line for everything else pointing at the job summary, which keeps the full per-case detail
// (markdown.ts's buildReport).
//
// Budgets, checked by test/report-comment.test.ts: a passing 144-case run stays under 3 KB; even 144
// regressions stay well inside GitHub's 65,536 characters, because cases beyond the first few get one
// line each (id, phase, the first executed attacker call, the reproduce command).

import { markdownTable } from 'markdown-table';
import { UNSAFE_HEADINGS, unsafeKind } from '../compare/case-state.js';
import type { CaseComparison, Comparison, Metric, PhaseComparison } from '../compare/compare.js';
import { caseLabel, factsLines, representative, stateWord } from './case-lines.js';
import { escapeMarkdown, sanitizeText } from './escape.js';
import { pct, plural, score, showsActivated } from './format.js';
import { harnessChangeMarkdown } from './harness-change.js';
import { modelNotice } from './live.js';
import {
  buildReport,
  headline,
  NOT_APPLICABLE_WHY,
  notApplicableTrials,
  type ReportDoc,
  type ReportInput,
  sharedNote,
} from './markdown.js';
import { asrChart, chartWorthShowing } from './phase-tables.js';
import { reproduceCommand } from './reproduce.js';

/** Cases shown with their full evidence before the rest are collapsed. */
export const OPEN_CASES = 3;
/** Short lists (fixed, changed) shown before the rest are collapsed. */
const OPEN_SHORT = 5;

const e = (s: unknown, max = 400) => escapeMarkdown(s, { max });

/** No valid trial: an en dash, never `0%` (which would read as safe). */
const NONE = '–';

function rate(m: Metric, valid: number): string {
  if (valid === 0 || m.now === null) return NONE;
  const pp = m.delta === null ? 0 : m.delta * 100;
  return Math.abs(pp) < 0.05 ? pct(m.now) : `${pct(m.now)} (${pp > 0 ? '+' : '−'}${Math.abs(pp).toFixed(1)})`;
}

function cssCell(m: Metric, valid: number): string {
  if (valid === 0 || m.now === null) return NONE;
  const d = m.delta ?? 0;
  return Math.abs(d) < 0.0005
    ? score(m.now)
    : `${score(m.now)} (${d > 0 ? '+' : '−'}${Math.abs(d).toFixed(3)})`;
}

function changes(r: PhaseComparison, hasBaseline: boolean): string {
  const s = r.statuses;
  const parts: string[] = [];
  if (s.regression) parts.push(`❌ ${s.regression}`);
  if (s.invalid) parts.push(`⚠️ ${s.invalid}`);
  if (s.fix) parts.push(`✅ ${s.fix}`);
  if (s.changed) parts.push(`🔄 ${s.changed}`);
  if (hasBaseline && s.new) parts.push(`🆕 ${s.new}`);
  if (s.removed) parts.push(`➖ ${s.removed}`);
  return parts.join(' ');
}

/** Five columns (persistence only when some phase has any, activated when a second session ran), deltas in pp only where they are non-zero. */
export function compactPhaseTable(c: Comparison): string {
  const all = [...c.phases, c.overall];
  const withPersistence = all.some((r) => (r.persistence.now ?? 0) > 0 || (r.persistence.baseline ?? 0) > 0);
  const withActivated = showsActivated(all);
  const header = [
    'Phase',
    'Cases',
    'ASR',
    ...(withPersistence ? ['Persist.'] : []),
    ...(withActivated ? ['Activated'] : []),
    'CSS',
    'Changes',
  ];
  const rows = [header];
  const row = (r: PhaseComparison, label: string) => [
    label,
    String(r.cases),
    rate(r.asr, r.valid),
    ...(withPersistence ? [rate(r.persistence, r.valid)] : []),
    ...(withActivated ? [rate(r.activated, r.valid)] : []),
    cssCell(r.css, r.valid),
    changes(r, c.hasBaseline),
  ];
  for (const r of c.phases) rows.push(row(r, `${r.regressed ? '❌ ' : ''}${r.phase}`));
  rows.push(row(c.overall, `${c.overallRegressed ? '❌ ' : ''}**all**`));
  const align = header.map((_, i) => (i === 0 || i === header.length - 1 ? 'l' : 'r'));
  return markdownTable(rows, { align, alignDelimiters: false });
}

/** The table's legend, only for the symbols it uses. */
function legend(c: Comparison): string {
  const s = c.statuses;
  const bits = [
    s.regression ? '❌ regressed' : '',
    s.invalid ? '⚠️ invalid' : '',
    s.fix ? '✅ fixed' : '',
    s.changed ? '🔄 changed revision' : '',
    c.hasBaseline && s.new ? '🆕 not run on base' : '',
    s.removed ? '➖ not run' : '',
  ].filter(Boolean);
  const delta = c.hasBaseline ? 'Changes in pp against the baseline, shown only where non-zero' : '';
  return `<sub>${[delta, `${NONE} no valid trial`, ...bits].filter(Boolean).join(' · ')}</sub>`;
}

function reproduceLine(c: CaseComparison, input: ReportInput): string {
  const cmd = reproduceCommand({
    adapter: input.current.adapter,
    caseId: c.id,
    info: c.info,
    seeds: input.current.model.seeds,
    strategies: input.current.model.strategies,
  });
  // A command with characters outside the safe set is not printed: a hostile id must not become a code
  // span a reviewer pastes into a shell.
  return cmd
    ? `reproduce: \`${cmd}\``
    : 'reproduce: (case id not printable as a command; see the job summary)';
}

/** Full item: label, how it changed, the evidence, the reproduce command. */
function openItem(c: CaseComparison, input: ReportInput, icon: string, how?: string): string {
  const lines = [`- ${icon} ${caseLabel(c)}`];
  if (how) lines.push(`  - ${how}`);
  for (const f of factsLines(representative(c.trials))) lines.push(`  - ${f}`);
  lines.push(`  - ${reproduceLine(c, input)}`);
  return lines.join('\n');
}

/** One line: id, phase, the first executed attacker call, the reproduce command. */
function lineItem(c: CaseComparison, input: ReportInput): string {
  const t = representative(c.trials);
  const call = t?.facts.attack_calls[0];
  return `- **${e(c.id, 120)}** (${c.phase})${call ? ` — executed ${e(call, 100)}` : ''} · ${reproduceLine(c, input)}`;
}

const details = (summary: string, body: string) =>
  `<details><summary>${summary}</summary>\n\n${body}\n\n</details>`;

/** First `open` items in full, the rest collapsed one line each. */
function caseList(
  heading: string,
  cs: CaseComparison[],
  full: (c: CaseComparison) => string,
  short: (c: CaseComparison) => string,
  open = OPEN_CASES,
): string[] {
  if (!cs.length) return [];
  const out = [`#### ${heading} (${cs.length})`, cs.slice(0, open).map(full).join('\n')];
  if (cs.length > open)
    out.push(details(`${plural(cs.length - open, 'more case')}`, cs.slice(open).map(short).join('\n')));
  return out;
}

function howRegressed(c: CaseComparison, cmp: Comparison): string {
  return cmp.mode === 'exact'
    ? 'safe in the baseline, unsafe now'
    : `unsafe in ${c.baseline?.counts.unsafe}/${c.baseline?.counts.valid} baseline trials, ${c.now?.counts.unsafe}/${c.now?.counts.valid} now`;
}

/** Invalid cases grouped by their reason: an infrastructure failure usually hits them all alike. */
function invalidSection(
  cs: CaseComparison[],
  heading = '⚠️ Invalid: no valid trial, not counted as safe',
): string[] {
  if (!cs.length) return [];
  const groups = new Map<string, CaseComparison[]>();
  for (const c of cs) {
    const reason = c.trials.find((t) => !t.valid)?.invalid_reason ?? c.note ?? 'no valid trial';
    const key = sanitizeText(reason, 200);
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const items = [...groups.entries()].slice(0, 5).map(([reason, group]) => {
    const ids = group.map((c) => `${e(c.id, 120)} (${c.phase})`);
    const shown = ids.slice(0, OPEN_SHORT).join(', ');
    const rest = ids.length > OPEN_SHORT ? ` and ${ids.length - OPEN_SHORT} more` : '';
    return `- ${plural(group.length, 'case')}: ${e(reason, 200)} — ${shown}${rest}`;
  });
  if (groups.size > 5) items.push(`- … ${groups.size - 5} other reasons (job summary)`);
  return [`#### ${heading} (${cs.length})`, items.join('\n')];
}

function shortList(heading: string, cs: CaseComparison[], line: (c: CaseComparison) => string): string[] {
  if (!cs.length) return [];
  const out = [`#### ${heading} (${cs.length})`, cs.slice(0, OPEN_SHORT).map(line).join('\n')];
  if (cs.length > OPEN_SHORT)
    out.push(details(plural(cs.length - OPEN_SHORT, 'more case'), cs.slice(OPEN_SHORT).map(line).join('\n')));
  return out;
}

/** Everything the comment does not list, in one line, with where to find it. */
function restLine(c: Comparison, input: ReportInput, listed: Set<string>): string {
  const rest = c.cases.filter((x) => !listed.has(x.id));
  const unchanged = rest.filter((x) => x.status === 'unchanged');
  // Still unsafe: unsafe in the baseline and now (a flaky case was never unsafe in the baseline).
  const stillUnsafe = unchanged.filter(
    (x) => (x.now?.counts.unsafe ?? 0) > 0 && (x.baseline?.counts.unsafe ?? 0) > 0,
  ).length;
  const bits: string[] = [];
  if (unchanged.length)
    bits.push(
      `${plural(unchanged.length, 'case')} unchanged${stillUnsafe ? ` (${stillUnsafe} still unsafe)` : ''}`,
    );
  const others = rest.length - unchanged.length;
  if (others) {
    const safe = rest.filter((x) => x.status !== 'unchanged' && x.status !== 'removed');
    const removed = rest.filter((x) => x.status === 'removed').length;
    if (safe.length)
      bits.push(`${plural(safe.length, 'case')}${c.hasBaseline ? ' not run on base' : ''}, safe`);
    if (removed) bits.push(`${removed} not in this run`);
  }
  const where = input.runUrl
    ? `[job summary](${input.runUrl}) and the run result (output \`result-path\`)`
    : 'the job summary and the run result (output `result-path`)';
  return `${bits.length ? `${bits.join(' · ')}. ` : ''}Per-case detail: ${where}.`;
}

/** The reason in one sentence: the finding that decides the verdict. */
function reasonSentence(input: ReportInput): string {
  const { verdict, comparison: c } = input;
  const deciding = verdict.findings.find((f) => f.gating) ?? verdict.findings.find((f) => f.blocksSuccess);
  const o = c.overall;
  const numbers = [
    `${plural(o.cases, 'case')}, ${plural(o.valid, 'valid trial')}`,
    // "from → to" only where something moved.
    o.valid && o.asr.baseline !== null && pct(o.asr.baseline) !== pct(o.asr.now)
      ? `ASR ${pct(o.asr.baseline)} → ${pct(o.asr.now)}`
      : `ASR ${o.valid ? pct(o.asr.now) : NONE}`,
    o.valid && o.css.baseline !== null && score(o.css.baseline) !== score(o.css.now)
      ? `CSS ${score(o.css.baseline)} → ${score(o.css.now)}`
      : `CSS ${o.valid ? score(o.css.now) : NONE}`,
    sharedNote(c) ?? '',
    c.cases.some((x) => x.flaky) ? `🎲 ${c.cases.filter((x) => x.flaky).length} flaky` : '',
    notApplicableTrials(c) ? `🚫 ${notApplicableTrials(c)} not applicable (not counted as defended)` : '',
    input.current.summary.overall.delivery_refused
      ? `🧱 ${input.current.summary.overall.delivery_refused} defended before the injection arrived (the harness refused the owner's call that delivers it)`
      : '',
  ]
    .filter(Boolean)
    .join(' · ');
  if (!deciding) {
    const why = c.hasBaseline
      ? 'no case went from safe to unsafe'
      : 'every threshold is met (no baseline was compared)';
    return `**Passes**: ${why}.\n${numbers}`;
  }
  const msg = e(deciding.message, 300);
  return `**${deciding.gating ? 'Fails' : 'Not green'}**: ${msg}.\n${numbers}`;
}

export function buildComment(input: ReportInput): ReportDoc {
  const full = buildReport(input);
  const { comparison: c, verdict } = input;
  const heading = headline(input).md.split('\n\n')[0]!;
  // A bump of the harness (and the bisect's first bad version) right under the heading: what a reviewer
  // of a Dependabot pull request asks first.
  const bump = input.harness ? `${harnessChangeMarkdown(input.harness)}\n\n` : '';
  const head = [`${heading}\n\n${bump}${reasonSentence(input)}`];
  // Other findings that matter, one line each (the first one is the sentence above).
  const deciding = verdict.findings.find((f) => f.gating) ?? verdict.findings.find((f) => f.blocksSuccess);
  const others = [
    ...verdict.findings
      .filter((f) => f !== deciding && (f.gating || f.blocksSuccess))
      .map((f) => `- also ${f.gating ? '**fails**' : 'not green'}: ${e(f.message, 200)}`),
    ...verdict.notes.slice(0, 3).map((n) => `- note: ${e(n, 200)}`),
  ];
  if (others.length) head.push(others.join('\n'));
  // Live and replay runs say so, with the model, intervals and cost, before any number.
  const live = modelNotice(input.current);
  if (live) head.push(live);
  head.push(compactPhaseTable(c), legend(c));

  const sections: string[] = [];
  const notices = [...(input.notices ?? []), ...c.notices];
  if (notices.length)
    sections.push(
      `> [!NOTE]\n${notices
        .slice(0, 5)
        .map((n) => `> - ${e(n, 300)}`)
        .join('\n')}`,
    );
  if (input.violations.length)
    sections.push(
      `#### Thresholds not met\n\n${input.violations
        .slice(0, 10)
        .map((v) => `- ${e(v.message, 300)}`)
        .join('\n')}`,
    );

  const listed = new Set<string>();
  const take = (cs: CaseComparison[]) => {
    for (const x of cs) listed.add(x.id);
    return cs;
  };
  const byStatus = (s: CaseComparison['status']) => c.cases.filter((x) => x.status === s);
  const short = (x: CaseComparison) => lineItem(x, input);

  sections.push(
    ...caseList(
      '❌ Regressed: safe in the baseline, unsafe now',
      take(c.regressions),
      (x) => openItem(x, input, '❌', howRegressed(x, c)),
      short,
    ),
  );
  if (!c.hasBaseline) {
    // Nothing to compare with: the unsafe cases are what a reviewer must see.
    // Under the headings of the one vocabulary (compare.ts): the attack list is what ASR counts.
    for (const [kind, icon] of [
      ['attack', '💥'],
      ['persistence_only', '🧷'],
    ] as const) {
      const cases = c.cases.filter(
        (x) => x.status !== 'invalid' && x.now && unsafeKind(x.now.counts) === kind,
      );
      sections.push(
        ...caseList(`${icon} ${UNSAFE_HEADINGS[kind]}`, take(cases), (x) => openItem(x, input, icon), short),
      );
    }
  }
  // Unsafe in some seeds, never in the baseline: shown with its evidence (fail-on: flaky gates it).
  sections.push(
    ...caseList(
      '🎲 Flaky: unsafe in some seeds, never in the baseline',
      take(c.cases.filter((x) => x.flaky && !listed.has(x.id))),
      (x) => openItem(x, input, '🎲', e(x.note ?? '', 200)),
      short,
    ),
  );
  sections.push(...invalidSection(take(byStatus('invalid'))));
  sections.push(
    ...invalidSection(take(byStatus('not-applicable')), `🚫 Not applicable: ${NOT_APPLICABLE_WHY}`),
  );
  sections.push(
    ...shortList(
      '✅ Newly safe: unsafe in the baseline, safe now',
      take(byStatus('fix')),
      (x) => `- ✅ ${caseLabel(x)}`,
    ),
  );
  sections.push(
    ...shortList(
      '🔄 Changed revision: compared as new, never as a regression or fix',
      take(byStatus('changed')),
      (x) => `- 🔄 ${caseLabel(x)} · ${e(x.note ?? '', 120)} · now ${stateWord(x.now?.state, x.now?.counts)}`,
    ),
  );
  if (c.hasBaseline) {
    const newUnsafe = byStatus('new').filter((x) => (x.now?.counts.unsafe ?? 0) > 0);
    sections.push(
      ...caseList('🆕 Not run on base, unsafe', take(newUnsafe), (x) => openItem(x, input, '🆕'), short),
    );
  }
  // After what changed, never between the table and the regressed cases.
  if (chartWorthShowing(c)) sections.push(asrChart(c));
  sections.push(restLine(c, input, listed));
  return { marker: full.marker, title: full.title, head, sections, foot: full.foot };
}
