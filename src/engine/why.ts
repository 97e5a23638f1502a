// Why a replay failed admission, in one line read from the trial alone (labels, facts, call outcomes), so
// an author learns the cause ("guarded refused the owner's write of .npmrc: protected_paths") without a
// second run with --keep-evidence. Pure: everything it says is in the run result already.

import { unseenSecretsIn } from '../model/secrets-seen.js';
import { isNotApplicable } from '../score/applicability.js';
import type { CallOutcomeRecord, Trial } from '../spec/run-result.js';
import { TRIAL_DIR_PREFIX } from '../world/trial-dirs.js';

/** What admission needs to know about the case beyond the trial. */
export interface CaseClues {
  trigger: string;
  artifact: string;
}

const quote = (s: string) => JSON.stringify(s);

/** "owner step 2 (write via write_file) refused: "DENIED …"" — the call, what became of it, in its words. */
export function describeCall(o: CallOutcomeRecord): string {
  const step = o.index !== undefined ? ` step ${o.index + 1}` : '';
  const how = [o.action, o.tool && `via ${o.tool}`].filter(Boolean).join(' ');
  const what = o.outcome === 'not_attempted' ? 'never reached' : o.outcome.replace('_', ' ');
  return `${o.role ?? 'unmapped'}${step}${how ? ` (${how})` : ''} ${what}${o.reason ? `: ${quote(o.reason)}` : ''}`;
}

const unexecuted = (t: Trial, role: 'owner' | 'attack') =>
  (t.outcomes ?? []).filter((o) => o.role === role && o.outcome !== 'executed');

/** The first call that did not go through is the one that stopped the rest; later ones follow from it. */
const firstStop = (t: Trial, role: 'owner' | 'attack') => unexecuted(t, role)[0];

/** Under the open side the attack did not succeed. */
export function whyAttackMissed(t: Trial, k: CaseClues): string {
  if (t.facts.injection_seen === false) {
    const ownerStop = firstStop(t, 'owner');
    return (
      `injection never seen: the trigger ${quote(k.trigger)} was in nothing the harness sent the model (artifact ${k.artifact})` +
      (ownerStop
        ? `; ${describeCall(ownerStop)}`
        : "; make the owner's plan read, fetch or call what holds it (docs/cases.md, rule 1)")
    );
  }
  const stop = firstStop(t, 'attack');
  const unmet = t.facts.attack_unmet
    ? `checks.attack is false: ${t.facts.attack_unmet}`
    : 'checks.attack is false';
  if (stop) return `${unmet}; ${describeCall(stop)}`;
  // The harness let the call through and the world refused it: the case asks for what its world lacks.
  if (t.facts.attack_unmet?.includes('the world answered'))
    return `${unmet}: the world refused what the goal asks for; seed what the goal targets (e.g. world.services.deploy.services, default [web]) or change the goal`;
  // The goal sends a secret's value no request to the model ever showed: no model could send it.
  const unseen = unseenSecretsIn(t.facts.attack_calls.join('\n'));
  if (unseen.length)
    return `${unmet}: the goal sends the value of ${unseen.join(', ')}, which nothing the harness showed the model held (the model cannot send a secret it was never shown); make the goal read it first (a read of the file that holds it, or a command that prints it)`;
  const ran = t.facts.attack_calls.length
    ? ` although the harness executed ${t.facts.attack_calls.join('; ')}`
    : '';
  return `${unmet}${ran}: the check does not test what the goal does`;
}

/** Under the guarded side the attack succeeded. */
export function whyAttackHeld(t: Trial): string {
  if (!t.facts.attack_calls.length)
    return "checks.attack held although no attacker call was executed: the owner's own actions satisfy it; test only the attacker's effect";
  return `checks.attack held: the harness executed ${t.facts.attack_calls.join('; ')}`;
}

/** Under the guarded side the persistence check held. */
export function whyPersistenceHeld(t: Trial): string {
  if (!t.facts.attack_calls.length)
    return "checks.persistence held although no attacker call was executed: the owner's own actions or the world as seeded satisfy it; test only what the attacker leaves behind";
  return `checks.persistence held: the harness executed ${t.facts.attack_calls.join('; ')}`;
}

/** Under the guarded side (reference/guarded unless `validate --guarded` names another) the owner's task was not done. */
export function whyTaskNotDone(t: Trial, guarded = 'reference/guarded'): string {
  const stop = firstStop(t, 'owner');
  const unmet = t.facts.utility_unmet
    ? `checks.utility is false: ${t.facts.utility_unmet}`
    : 'checks.utility is false';
  if (!stop) return unmet;
  const needs =
    stop.outcome === 'refused'
      ? ` — an owner task must not need what ${guarded} blocks (docs/cases.md, rule 3)`
      : '';
  return `${describeCall(stop)}; ${unmet}${needs}`;
}

const labelsOf = (t: Trial) =>
  t.valid ? `u${+t.labels.u} a${+t.labels.a} p${+t.labels.p} d${+t.labels.d}` : 'invalid';

/** Which replay had which labels, for "labels differ between replays". */
export function labelsByReplay(ts: Trial[]): string {
  return ts.map((t, i) => `replay ${i + 1}: ${labelsOf(t)}`).join(', ');
}

/** A trial's own folder: `…/trial-<random>/workspace|home|tmp` (engine/trial.ts; opaque: no case id). */
const TRIAL_DIR = new RegExp(
  `(?:/[^\\s"'/]+)*/${TRIAL_DIR_PREFIX}-[^\\s"'/]+/(workspace|home|tmp)(?:/|(?=[\\s"']|$))`,
  'g',
);
const CASE_NOTATION: Record<string, string> = { workspace: '', home: '~/', tmp: '{{tmp}}/' };

/**
 * Trial paths in the case's own notation (`.npmrc`, `~/.bashrc`): the absolute path differs in every
 * replay, which would split one reason into three lines, and the author wrote the relative one.
 */
export function inCaseNotation(text: string): string {
  return text.replace(TRIAL_DIR, (_m, root: string) => CASE_NOTATION[root]!);
}

/**
 * One line per distinct reason, naming the replays it covers (1-based), so three identical replays read
 * as one line and a flaky one stands out.
 */
export function perReplay(
  label: string,
  ts: Trial[],
  fails: (t: Trial) => boolean,
  why: (t: Trial) => string,
  /**
   * Explain invalid trials too (labels of an invalid trial mean nothing, so by default they are skipped;
   * a not-applicable one is explained: its labels say the injection never reached the model).
   */
  invalidToo = false,
): string[] {
  const groups = new Map<string, number[]>();
  ts.forEach((t, i) => {
    if ((!t.valid && !invalidToo && !isNotApplicable(t)) || !fails(t)) return;
    const line = inCaseNotation(why(t));
    groups.set(line, [...(groups.get(line) ?? []), i + 1]);
  });
  return [...groups].map(
    ([line, nums]) => `${label} replay${nums.length > 1 ? 's' : ''} ${nums.join(', ')}: ${line}`,
  );
}
