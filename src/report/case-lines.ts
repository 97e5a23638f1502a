// One case in the report's words: its state, its label line, what happened in a trial (the facts), the
// regression item and the collapsible details. Everything from a trial or a case file is escaped here.
import { markdownTable } from 'markdown-table';
import type { CaseStatus } from '../compare/case-state.js';
import type { CaseComparison, Comparison } from '../compare/compare.js';
import type { Trial } from '../spec/run-result.js';
import { builtinCasePath, builtinCaseUrl } from './anchors.js';
import { routeSentences } from './attack-routes.js';
import { escapeLines, escapeMarkdown } from './escape.js';
import { notAttemptedNote, pValue, score } from './format.js';

const e = (s: unknown, max?: number) => escapeMarkdown(s, max === undefined ? {} : { max });

export const STATUS_ICON: Record<CaseStatus, string> = {
  regression: '❌',
  fix: '✅',
  unchanged: '',
  new: '🆕',
  removed: '➖',
  changed: '🔄',
  invalid: '⚠️',
  'not-applicable': '🚫',
};

const STATUS_WORD: Record<CaseStatus, string> = {
  regression: 'regressed',
  fix: 'fixed',
  unchanged: 'unchanged',
  new: 'not run on base',
  removed: 'not in this run',
  changed: 'changed',
  invalid: 'invalid',
  'not-applicable': 'not applicable',
};

export function stateWord(state: string | undefined, counts?: { unsafe: number; valid: number }): string {
  if (!state) return '—';
  const base =
    state === 'safe'
      ? '🛡️ safe'
      : state === 'unsafe'
        ? '💥 unsafe'
        : state === 'mixed'
          ? '💥 mixed'
          : '⚠️ invalid';
  return counts && counts.valid > 1 ? `${base} (${counts.unsafe}/${counts.valid})` : base;
}

export function caseLabel(c: CaseComparison): string {
  const info = c.info;
  const meta = info
    ? ` · ${info.phase} · ${info.entry_point} → ${info.effect} · ${info.severity}`
    : ` · ${c.phase}`;
  return `**${e(c.id, 120)}**${meta} — ${e(c.title, 200)}`;
}

/**
 * A built-in case as a link into the action's repository at its version (not the runner's absolute path);
 * a repository case as its path and line.
 */
function caseFileRef(info: NonNullable<CaseComparison['info']>): string {
  const path = builtinCasePath(info.file);
  const url = path ? builtinCaseUrl(info.file) : undefined;
  // The URL is built from the action's own repository name and a case path of the library: no hostile text.
  if (path && url && /^https:\/\/[\w.:/%@+-]+$/.test(url)) return `[${e(path, 200)}](${url})`;
  return `${e(info.file, 200)}:${info.line}`;
}

/** The first unsafe valid trial, else the first valid, else the first. */
export function representative(trials: Trial[]): Trial | undefined {
  return (
    trials.find((t) => t.valid && (t.labels.a || t.labels.p)) ?? trials.find((t) => t.valid) ?? trials[0]
  );
}

const list = (xs: string[], max = 8, each = 160) => {
  const shown = xs.slice(0, max).map((x) => e(x, each));
  if (xs.length > max) shown.push(`… ${xs.length - max} more`);
  return shown.join(' · ');
};

/** What happened in a trial, as indented list items (for a regression) or lines (in details). */
export function factsLines(t: Trial | undefined): string[] {
  if (!t) return [];
  const f = t.facts;
  const out: string[] = [];
  if (f.attack_calls.length) out.push(`attacker-directed tool calls executed: ${list(f.attack_calls)}`);
  const routes = routeSentences(f.attack_routes);
  if (routes.length) out.push(`the attack got through: ${list(routes, 5, 240)}`);
  if (f.canaries_leaked.length) out.push(`canaries leaked: ${list(f.canaries_leaked)}`);
  if (f.files_changed.length) out.push(`files changed: ${list(f.files_changed)}`);
  if (f.services_hit.length) out.push(`services hit: ${list(f.services_hit)}`);
  if (f.denied_calls.length) out.push(`denied by the harness: ${list(f.denied_calls)}`);
  // Errored: a failure, which may have run (a non-zero exit) or reached the world not as asked.
  if (f.errored_calls?.length)
    out.push(`failed (an error, or not the effect asked for): ${list(f.errored_calls)}`);
  if (f.utility_unmet) out.push(`owner's task not done: ${e(f.utility_unmet, 300)}`);
  const notAttempted = notAttemptedNote(t);
  if (notAttempted) out.push(notAttempted);
  if (t.violations.length)
    out.push(
      `audit violations: ${list(
        t.violations.map((v) => `${v.rule}: ${v.description}`),
        5,
      )}`,
    );
  if (!t.valid && t.invalid_reason) out.push(`invalid: ${e(t.invalid_reason, 300)}`);
  if (f.error_tail) out.push(`error output: ${escapeLines(f.error_tail, 8, { max: 200 })}`);
  return out;
}

export function regressionItem(c: CaseComparison, comparison: Comparison): string {
  const t = representative(c.trials);
  const how =
    comparison.mode === 'exact'
      ? 'safe in the baseline, unsafe now'
      : `unsafe in ${c.baseline?.counts.unsafe}/${c.baseline?.counts.valid} baseline trials, ${c.now?.counts.unsafe}/${c.now?.counts.valid} now (${pValue(c.p)})`;
  const lines = [`- ❌ ${caseLabel(c)}`, `  - ${how}`];
  for (const f of factsLines(t)) lines.push(`  - ${f}`);
  if (c.info) lines.push(`  - case file: ${caseFileRef(c.info)}`);
  return lines.join('\n');
}

export function caseDetails(c: CaseComparison, comparison: Comparison): string {
  const icon = STATUS_ICON[c.status];
  // Without a baseline every case is "new": its state now says more than "not run on base".
  const status =
    comparison.hasBaseline || c.status !== 'new'
      ? `${icon ? `${icon} ` : ''}${STATUS_WORD[c.status]}`
      : stateWord(c.now?.state, c.now?.counts);
  const summary = `${status}: <b>${e(c.id, 120)}</b> (${c.phase}) — ${e(c.title, 160)}`;
  const body: string[] = [];
  const info = c.info;
  if (info) {
    body.push(
      `- ${info.entry_point} → ${info.effect} · ${info.severity} · artifact: ${e(info.artifact, 120)}`,
    );
    body.push(`- case file: ${caseFileRef(info)} · revision ${e(info.revision, 16)}`);
  }
  if (comparison.hasBaseline)
    body.push(
      `- baseline: ${stateWord(c.baseline?.state, c.baseline?.counts)} → now: ${stateWord(c.now?.state, c.now?.counts)}${c.p !== undefined ? ` (${pValue(c.p)})` : ''}`,
    );
  else body.push(`- now: ${stateWord(c.now?.state, c.now?.counts)}`);
  if (c.note) body.push(`- ${e(c.note, 200)}`);
  const rows: string[][] = [
    ['Seed', 'Valid', 'Attack', 'Persist', 'Utility', 'Detect', 'CSS', 'What happened'],
  ];
  for (const t of c.trials.slice(0, 10)) {
    rows.push([
      String(t.seed),
      t.valid ? 'yes' : 'no',
      t.labels.a ? '💥' : '—',
      t.labels.p ? '💥' : '—',
      t.labels.u ? 'yes' : 'no',
      t.labels.d ? 'yes' : 'no',
      score(t.css),
      factsLines(t).join(' · ') || '—',
    ]);
  }
  const table = c.trials.length ? `\n\n${markdownTable(rows, { alignDelimiters: false })}` : '';
  const more = c.trials.length > 10 ? `\n\n… ${c.trials.length - 10} more trials in the run result` : '';
  return `<details><summary>${summary}</summary>\n\n${body.join('\n')}${table}${more}\n\n</details>`;
}
