// The markdown report, built once and rendered three ways: the sticky PR comment, the check run's output
// and the job summary. A report is a head (always kept), self-contained sections (dropped from the end
// when GitHub's size limit is near, with a note) and a foot (always kept).
//
// Every string that comes from a trial, a case file, an adapter file or an error goes through
// `escapeMarkdown` (src/report/escape.ts); numbers and the enum values of the schema are the only things
// written raw.
import type { CaseStatus } from '../compare/case-state.js';
import type { Comparison } from '../compare/compare.js';
import { isUncontained } from '../gate/index.js';
import type { ThresholdViolation } from '../gate/thresholds.js';
import type { FailOn, FindingKind, Verdict } from '../gate/verdict.js';
import { describeEngine } from '../result/engine-name.js';
import type { RunResult } from '../spec/run-result.js';
import { PHASES } from '../spec/vocabulary.js';
import { caseDetails, caseLabel, regressionItem, STATUS_ICON } from './case-lines.js';
import { escapeMarkdown, markerSafe, sanitizeText } from './escape.js';
import { pct, plural, score } from './format.js';
import { type HarnessChange, harnessChangeMarkdown, harnessChangeTitle } from './harness-change.js';
import { modelNotice } from './live.js';
import { asrChart, chartWorthShowing, phaseTable, strategyTable } from './phase-tables.js';
import { taxonomySection } from './taxonomy-table.js';

export interface ReportInput {
  current: RunResult;
  comparison: Comparison;
  violations: ThresholdViolation[];
  verdict: Verdict;
  failOn: FailOn;
  /** Link to the workflow run. */
  runUrl?: string;
  /** Extra lines for the notices section (e.g. why the comment or check was skipped). */
  notices?: string[];
  /** The pull request bumps the harness: said at the top (and the bisect's first bad version, if run). */
  harness?: HarnessChange;
}

export interface ReportDoc {
  /** `<!-- harness-risk-action:{adapter}:{config} -->`. */
  marker: string;
  /** Plain-text one-liner (check-run title). */
  title: string;
  head: string[];
  sections: string[];
  foot: string[];
}

/** The hidden marker that identifies the sticky comment of one adapter/config. */
export function stickyMarker(adapter: string, config: string): string {
  return `<!-- harness-risk-action:${markerSafe(adapter)}:${markerSafe(config)} -->`;
}

/** Order of cases in lists and details: what needs a reviewer's eyes first. */
const STATUS_ORDER: CaseStatus[] = [
  'regression',
  'invalid',
  'not-applicable',
  'changed',
  'new',
  'fix',
  'removed',
  'unchanged',
];

/** Why a not-applicable trial is counted apart, in the words every report uses. */
export const NOT_APPLICABLE_WHY =
  'nothing was measured (the injection never reached the model, or the adapter lacks what the case needs): in no rate, not counted as a defended attack';

/** Why a trial defended before the injection arrived is counted apart, in the words every report uses. */
export const DELIVERY_REFUSED_WHY =
  "the harness refused the owner's call that delivers the injection: counted as defended, with the owner's task stopped too, not by a guard against the attack";

/** Trials of the run whose entry point never reached the model (cases with valid trials too). */
export const notApplicableTrials = (c: Comparison): number =>
  c.cases.reduce((n, x) => n + (x.now?.counts.not_applicable ?? 0), 0);

const e = (s: unknown, max?: number) => escapeMarkdown(s, max === undefined ? {} : { max });

/** What the headline says for the finding that decides the verdict (the first one, in this order). */
const HEADLINE: [FindingKind, string][] = [
  ['build', 'Build failed'],
  ['no-valid-trial', 'Harness was not measured: no valid trial'],
  ['incomplete', 'Incomplete results'],
  ['regression', 'Safety regression'],
  ['invalid', 'Unmeasured cases'],
  ['threshold', 'Safety threshold not met'],
  ['flaky', 'Flaky attacks'],
  ['uncontained', 'Uncontained runner'],
  ['missing-baseline', 'Not compared: no baseline'],
  ['untrusted', 'Untrusted result: not a gate'],
];

/**
 * When the runs hold different cases: what the deltas are over, and what only one side ran (counted
 * apart, never a regression or a drop).
 */
export function sharedNote(c: Comparison): string | undefined {
  if (!c.hasBaseline || c.overall.shared === undefined) return undefined;
  const bits = [`changes over the ${plural(c.overall.shared, 'case')} both runs hold`];
  if (c.onlyHere) bits.push(`not run on base: ${c.onlyHere}`);
  if (c.onlyBaseline) bits.push(`not in this run: ${c.onlyBaseline}`);
  return bits.join(' · ');
}

export function headline(input: ReportInput): { md: string; title: string } {
  const { comparison: c, verdict, current } = input;
  const who = `${current.adapter.name} · ${current.adapter.config}`;
  const n = c.regressions.length;
  const regressed = c.regressedPhases.length > 0 || c.overallRegressed;
  const first = (pred: (f: Verdict['findings'][number]) => boolean) =>
    HEADLINE.find(([kind]) => verdict.findings.some((f) => f.kind === kind && pred(f)))?.[1];
  let icon: string;
  let what: string;
  if (verdict.verdict === 'fail') {
    icon = '❌';
    what = first((f) => f.gating) ?? 'Failed';
  } else if (verdict.verdict === 'neutral') {
    icon = '⚠️';
    const w = first((f) => f.blocksSuccess) ?? 'Not measured';
    what = verdict.findings.some(
      (f) => f.blocksSuccess && (f.kind === 'regression' || f.kind === 'threshold'),
    )
      ? `${w} (not gating)`
      : w;
  } else {
    icon = '✅';
    what = c.hasBaseline ? 'No safety regression' : 'Thresholds met';
  }
  const o = c.overall;
  const facts: string[] = [];
  if (regressed) {
    facts.push(
      n > 0
        ? `**${plural(n, 'case')} went from safe to unsafe** in ${c.regressedPhases.join(', ') || 'all phases'}`
        : `**significant increase of unsafe trials** in ${c.regressedPhases.join(', ') || 'all phases'}`,
    );
  }
  facts.push(`${plural(o.cases, 'case')}, ${plural(o.valid, 'valid trial')}`);
  facts.push(
    c.hasBaseline && o.asr.baseline !== null
      ? `ASR ${pct(o.asr.baseline)} → ${pct(o.asr.now)}`
      : `ASR ${pct(o.asr.now)}`,
  );
  facts.push(
    c.hasBaseline && o.css.baseline !== null
      ? `CSS ${score(o.css.baseline)} → ${score(o.css.now)}`
      : `CSS ${score(o.css.now)}`,
  );
  if (c.statuses.fix) facts.push(`${plural(c.statuses.fix, 'fix', 'fixes')}`);
  const flaky = c.cases.filter((x) => x.flaky).length;
  if (flaky) facts.push(`🎲 ${flaky} flaky (unsafe in some seeds)`);
  if (c.statuses.invalid) facts.push(`⚠️ ${c.statuses.invalid} invalid (not counted as safe)`);
  const na = notApplicableTrials(c);
  if (na) facts.push(`🚫 ${na} not applicable (${NOT_APPLICABLE_WHY})`);
  const cut = input.current.summary.overall.delivery_refused;
  if (cut) facts.push(`🧱 ${cut} defended before the injection arrived (${DELIVERY_REFUSED_WHY})`);
  if (input.violations.length) facts.push(`${plural(input.violations.length, 'threshold')} not met`);
  if (!c.hasBaseline) facts.push('no baseline');
  const shared = sharedNote(c);
  if (shared) facts.push(shared);
  const md = `### ${icon} ${what}: ${e(who, 120)}\n\n${input.harness ? `${harnessChangeMarkdown(input.harness)}\n\n` : ''}${facts.join(' · ')}`;
  // Over different case sets the title keeps this run's own numbers, without a delta.
  const own = input.current.summary.overall;
  const title = sanitizeText(
    o.shared !== undefined
      ? `${what}: ${regressed ? `${plural(n, 'case')} regressed; ` : ''}ASR ${pct(own.valid ? own.asr : null)}, CSS ${score(own.valid ? own.css : null)}`
      : `${what}: ${regressed ? `${plural(n, 'case')} regressed; ` : ''}ASR ${pct(o.asr.now)}${o.asr.delta !== null ? ` (${o.asr.delta >= 0 ? '+' : '−'}${Math.abs(o.asr.delta * 100).toFixed(1)} pp)` : ''}, CSS ${score(o.css.now)}`,
    200,
  );
  // The bump (and its first bad version) leads the title: it is what a reviewer of a bump asks first.
  return {
    md,
    title: input.harness ? sanitizeText(`${harnessChangeTitle(input.harness)} · ${title}`, 250) : title,
  };
}

/**
 * Uncontained trials are named in the head (kept whatever the size): what a harness did there was not
 * measured against any boundary, and it could read this job's environment.
 */
function containmentNotice(current: RunResult): string | undefined {
  const c = current.containment;
  if (c?.containment === 'unverified')
    return `> [!WARNING]\n> **Containment unverified**: the result claims ${e(c.claimed ?? 'containment', 40)}, but ${e(c.reason ?? 'it carries no engine attestation', 300)}. Whoever could write the file could also have run the harness uncontained; it counts as uncontained and does not pass.`;
  if (c?.containment !== 'uncontained') return undefined;
  return `> [!WARNING]\n> **Trials ran uncontained** (${e(c.reason ?? 'no reason recorded', 300)}): each harness was a plain child process with this job's user, able to read the job's environment, other trials and local ports. Results of an uncontained run do not pass.`;
}

/** Credential files the adapter let the harness read (`expose_credentials`): a reader must know. */
function exposedNotice(current: RunResult): string | undefined {
  const exposed = current.view?.credentials_exposed ?? [];
  if (!exposed.length) return undefined;
  // Escaped text, not code spans: an entity inside backticks would show as typed.
  const list = exposed.slice(0, 10).map((p) => e(p, 120));
  const more = exposed.length > 10 ? ` and ${exposed.length - 10} more` : '';
  return `> [!NOTE]\n> **The adapter exposes credential files to the harness** (\`expose_credentials\`): ${list.join(', ')}${more}. Every other credential file of the repository was hidden from it.`;
}

export function buildReport(input: ReportInput): ReportDoc {
  const { comparison, current, verdict } = input;
  const marker = stickyMarker(current.adapter.name, current.adapter.config);
  const { md, title } = headline(input);
  const head: string[] = [md];
  const lines = [
    ...verdict.findings
      .filter((f) => f.gating || f.blocksSuccess)
      .map((f) => `- ${f.gating ? '**fails**' : '**not green**'}: ${e(f.message, 600)}`),
    ...verdict.notes.map((n) => `- note: ${e(n, 400)}`),
  ];
  if (lines.length) head.push(lines.join('\n'));
  const contained = containmentNotice(current);
  if (contained) head.push(contained);
  const exposed = exposedNotice(current);
  if (exposed) head.push(exposed);
  const live = modelNotice(current);
  if (live) head.push(live);
  head.push(phaseTable(comparison));
  const strategies = strategyTable(current);
  if (strategies) head.push(strategies);

  const sections: string[] = [];

  const notices = [...(input.notices ?? []), ...comparison.notices];
  if (notices.length) sections.push(notices.map((n) => `> [!NOTE]\n> ${e(n, 500)}`).join('\n\n'));

  if (input.violations.length) {
    sections.push(
      [
        `#### Thresholds not met${input.failOn.threshold ? '' : ' (not gating: fail-on excludes threshold)'}`,
        '',
        ...input.violations.map((v) => `- ${e(v.message, 300)}`),
      ].join('\n'),
    );
  }

  if (comparison.regressions.length) {
    sections.push(`#### Regressed cases (${comparison.regressions.length})`);
    for (const c of comparison.regressions) sections.push(regressionItem(c, comparison));
  }

  const byStatus = (s: CaseStatus) => comparison.cases.filter((c) => c.status === s);
  const shortList = (s: CaseStatus, heading: string) => {
    const cs = byStatus(s);
    if (!cs.length || (s === 'new' && !comparison.hasBaseline)) return;
    const items = cs
      .slice(0, 50)
      .map((c) => `- ${STATUS_ICON[s]} ${caseLabel(c)}${c.note ? ` (${e(c.note, 120)})` : ''}`);
    if (cs.length > 50) items.push(`- … ${cs.length - 50} more`);
    sections.push(`#### ${heading} (${cs.length})\n\n${items.join('\n')}`);
  };
  const flakyCases = comparison.cases.filter((c) => c.flaky);
  if (flakyCases.length)
    sections.push(
      `#### Flaky: unsafe in some seeds, never in the baseline (${flakyCases.length})\n\n${flakyCases
        .slice(0, 50)
        .map((c) => `- 🎲 ${caseLabel(c)} (${e(c.note ?? '', 160)})`)
        .join('\n')}`,
    );
  shortList('invalid', 'Invalid: no valid trial, not counted as safe');
  shortList('not-applicable', `Not applicable: ${NOT_APPLICABLE_WHY}`);
  shortList('fix', 'Fixed: unsafe in the baseline, safe now');
  shortList('changed', 'Changed cases: compared as new, never as a regression or fix');
  shortList('new', 'Not run on base: new, or outside the base run’s selection (not compared)');
  shortList('removed', 'Not in this run: removed, or not selected');
  // After what changed, never between the table and the regressed cases.
  if (chartWorthShowing(comparison)) sections.push(asrChart(comparison));
  const byTaxonomy = taxonomySection(comparison);
  if (byTaxonomy) sections.push(byTaxonomy);

  const ordered = [...comparison.cases].sort(
    (a, b) =>
      STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) ||
      PHASES.indexOf(a.phase) - PHASES.indexOf(b.phase) ||
      a.id.localeCompare(b.id),
  );
  if (ordered.length) {
    sections.push(`#### Per-case detail (${ordered.length})`);
    for (const c of ordered) sections.push(caseDetails(c, comparison));
  }

  const foot: string[] = [];
  const b = comparison.baseline;
  const bits: string[] = [];
  if (input.runUrl) bits.push(`[workflow run](${input.runUrl})`);
  bits.push(
    b
      ? `baseline: ${e(b.source, 200)}${b.commit?.sha ? ` @ ${e(b.commit.sha.slice(0, 7), 7)}` : ''}${b.level === 'labels' ? ` (schema v${b.schemaVersion}, labels only)` : ''}`
      : 'no baseline',
  );
  bits.push(
    `${current.model.mode} model${current.model.name ? ` ${e(current.model.name, 80)}` : ''}, ${plural(current.model.seeds, 'seed')}, ${comparison.mode} comparison`,
  );
  if (current.containment?.containment && !isUncontained(current))
    bits.push(`runner ${current.runner}: ${e(current.containment.mechanism, 160)}`);
  if (comparison.mode === 'statistical')
    bits.push(
      `α = ${comparison.options.alpha}, min effect ${(comparison.options.minEffect * 100).toFixed(0)} pp`,
    );
  bits.push(`${current.runner} runner`);
  // Which harness build ran (the package as installed: a moved harness says which name it ran under).
  const h = current.harness;
  if (h?.package || h?.version)
    bits.push(
      `harness ${[h.package, h.version ?? '(version unknown)']
        .filter((x) => x)
        .map((x) => e(x, 120))
        .join(' ')}`,
    );
  bits.push(`harness-risk-action ${e(describeEngine(current.tool), 160)}`);
  foot.push(`<sub>${bits.join(' · ')}</sub>`);
  return { marker, title, head, sections, foot };
}

export interface RenderOptions {
  /** Largest output. */
  limit: number;
  /** How to measure: UTF-16 characters (comments, check runs; never under-counts) or UTF-8 bytes (job summary). */
  unit: 'chars' | 'bytes';
  /** Put the hidden marker first (the sticky comment). */
  marker?: boolean;
  parts?: { head?: boolean; sections?: boolean; foot?: boolean };
  /** Where the full report is, for the truncation note. */
  fullReportHint?: string;
}

const SEP = '\n\n';

/**
 * Joins head, sections and foot, dropping whole sections from the end (never cutting one) until the
 * output fits, with a note saying how many were left out. Head and foot are always kept (they are small;
 * if even they do not fit, the text is cut hard as a last resort).
 */
export function renderReport(doc: ReportDoc, opts: RenderOptions): string {
  const measure =
    opts.unit === 'bytes' ? (s: string) => Buffer.byteLength(s, 'utf8') : (s: string) => s.length;
  const parts = { head: true, sections: true, foot: true, ...opts.parts };
  const head = [...(opts.marker ? [doc.marker] : []), ...(parts.head ? doc.head : [])];
  const foot = parts.foot ? doc.foot : [];
  const sections = parts.sections ? doc.sections : [];
  const join = (xs: string[]) => xs.join(SEP);
  const full = join([...head, ...sections, ...foot]);
  if (measure(full) <= opts.limit) return full;
  const note = (omitted: number) =>
    `> [!WARNING]\n> Report truncated: ${omitted} more section${omitted === 1 ? '' : 's'} left out to stay within GitHub's limit of ${opts.limit.toLocaleString('en-US')} ${opts.unit === 'bytes' ? 'bytes' : 'characters'}.${opts.fullReportHint ? ` ${opts.fullReportHint}` : ''}`;
  let used = measure(join([...head, note(sections.length), ...foot])) + measure(SEP);
  let kept = 0;
  for (const s of sections) {
    const size = measure(s) + measure(SEP);
    if (used + size > opts.limit) break;
    used += size;
    kept++;
  }
  const out = join([...head, ...sections.slice(0, kept), note(sections.length - kept), ...foot]);
  if (measure(out) <= opts.limit) return out;
  // Last resort (a head larger than the limit): cut, keeping the marker.
  let cut = out;
  while (measure(cut) > opts.limit) cut = cut.slice(0, Math.floor(cut.length * 0.9));
  return cut;
}
