// The list a run ends with: every unsafe, invalid and not-applicable case, each with the command that reruns it
// alone (the same command the PR comment prints), so the next step after a red run is one paste away.

import { countTrials, UNSAFE_HEADINGS, type UnsafeKind, unsafeKind } from '../compare/case-state.js';
import { DELIVERY_REFUSED_WHY, NOT_APPLICABLE_WHY } from '../report/markdown.js';
import { reproduceCommand } from '../report/reproduce.js';
import { isNotApplicable } from '../score/applicability.js';
import type { RunResult } from '../spec/run-result.js';
import { terminalLine } from '../terminal-text.js';
import type { Paint } from './progress.js';

/** Printed at most; the rest are counted (the run result has them all). */
const MAX_LISTED = 30;

export function closingList(result: RunResult, p: Paint): string {
  const byCase = new Map<string, RunResult['trials']>();
  for (const t of result.trials) byCase.set(t.case_id, [...(byCase.get(t.case_id) ?? []), t]);
  const unsafe: Record<UnsafeKind, string[]> = { attack: [], persistence_only: [] };
  const invalid: { id: string; reason: string }[] = [];
  const notApplicable: { id: string; reason: string }[] = [];
  for (const [id, trials] of byCase) {
    const kind = unsafeKind(countTrials(trials));
    if (kind) unsafe[kind].push(id);
    else if (trials.every(isNotApplicable)) {
      notApplicable.push({ id, reason: trials[0]!.not_applicable! });
    } else if (!trials.some((t) => t.valid)) {
      const reason = trials.find((t) => t.invalid_reason)?.invalid_reason ?? 'no valid trial';
      // Trials an interruption left unrun are summarised by the progress line, not listed one by one.
      if (!/^run interrupted/.test(reason)) invalid.push({ id, reason });
    }
  }
  const info = new Map(result.cases.map((c) => [c.id, c]));
  const cmd = (id: string) =>
    reproduceCommand({
      adapter: result.adapter,
      caseId: id,
      info: info.get(id),
      seeds: result.model.seeds,
      strategies: result.model.strategies,
    }) ?? '(id not printable as a command)';
  const out: string[] = [];
  const section = (title: string, ids: string[], extra: (id: string) => string) => {
    if (!ids.length) return;
    out.push('', title);
    for (const id of ids.slice(0, MAX_LISTED)) out.push(`  ${id}${extra(id)}`, `    ${p.dim(cmd(id))}`);
    if (ids.length > MAX_LISTED) out.push(`  … ${ids.length - MAX_LISTED} more in the run result`);
  };
  const where = (id: string) => {
    const c = info.get(id);
    return c ? `  ${p.dim(`${c.phase} · ${c.entry_point} → ${c.effect}`)}` : '';
  };
  for (const kind of ['attack', 'persistence_only'] as const) {
    const [name, what] = UNSAFE_HEADINGS[kind].split(': ');
    section(p.red(`${name} (${unsafe[kind].length}): ${what}`), unsafe[kind], where);
  }
  const reasons = new Map(invalid.map((x) => [x.id, x.reason]));
  section(
    p.yellow(`Invalid (${invalid.length}): no valid trial, not counted as safe`),
    invalid.map((x) => x.id),
    (id) => `  ${p.dim(terminalLine(reasons.get(id)!.split('\n')[0]!))}`,
  );
  const naReasons = new Map(notApplicable.map((x) => [x.id, x.reason]));
  section(
    p.yellow(`Not applicable (${notApplicable.length}): ${NOT_APPLICABLE_WHY}`),
    notApplicable.map((x) => x.id),
    (id) => `  ${p.dim(terminalLine(naReasons.get(id)!.split('\n')[0]!))}`,
  );
  // Defended, but before the injection arrived: one line, the ids (a rerun command is no next step here).
  const cut = [...byCase].filter(([, ts]) => ts.some((t) => t.delivery_refused)).map(([id]) => id);
  if (cut.length) {
    const ids =
      cut.slice(0, MAX_LISTED).join(', ') +
      (cut.length > MAX_LISTED ? `, … ${cut.length - MAX_LISTED} more` : '');
    out.push(
      '',
      p.dim(`Defended before the injection arrived (${cut.length}): ${DELIVERY_REFUSED_WHY}: ${ids}`),
    );
  }
  return out.join('\n');
}
