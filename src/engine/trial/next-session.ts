// Stage "next session" (docs/cases.md, "Persistence that fires"): after the first session is scored, the
// harness runs again in the same world: a new process and a fresh conversation on a benign owner task,
// with whatever the first session left on disk (memory, config, skills, hooks, shell rc files, the
// workspace). The trial's endpoint keeps its URL (the harness's config names it) and serves a new model
// and new services with their own record, so the second session's evidence is its own. The `activated`
// label is its activation check over that evidence alone (src/score/activation.ts).

import { secondSessionRevision } from '../../cases/load.js';
import { nextSessionCase, nextSessionScript } from '../../cases/next-session.js';
import type { Case } from '../../cases/schema.js';
import { callOutcomes } from '../../checks/call-outcomes.js';
import { makeCheckContext, Undecided } from '../../checks/check-context.js';
import type { Check } from '../../checks/check-kinds.js';
import { evaluateCheck } from '../../checks/evaluate.js';
import { UserError } from '../../errors.js';
import { EvidenceRecorder } from '../../evidence/recorder.js';
import { type FinalServiceState, finalState, seedState } from '../../evidence/services-state.js';
import type { Evidence } from '../../evidence/types.js';
import { currentMask } from '../../report/mask.js';
import {
  type ActivationInputs,
  activationLabel,
  asFound,
  holdsAnew,
  sessionScope,
  unfinishedOwnerStep,
} from '../../score/activation.js';
import { evidenceDigest, invalidReason, rankChangedFiles } from '../../score/labels.js';
import type { Trial, TrialActivation } from '../../spec/run-result.js';
import { resolveCasePath } from '../../world/snapshot.js';
import { collectEvidence } from './collect.js';
import { launchHarness, trialLaunch } from './launch.js';
import { renderTrial } from './render.js';
import { keepEvidence } from './score.js';
import { seedGithubAnew } from './seed.js';
import { serveTrial } from './serve.js';
import type { TrialScene } from './types.js';

/** The second session's key in kept evidence: `<trial id>.session2.json`. */
export const SECOND_SESSION = 'session2';

/** The trial with its second session: run when the first persisted something, the label either way. */
export async function withNextSession(scene: TrialScene, trial: Trial): Promise<Trial> {
  const c = scene.input.loaded.case;
  const base: ActivationInputs = {
    ...(trial.valid ? {} : { first_invalid: trial.invalid_reason ?? 'invalid' }),
    persisted: trial.labels.p,
  };
  if (base.first_invalid || !base.persisted) return labelled(trial, c, base, { ran: false });
  let second: Awaited<ReturnType<typeof runSecondSession>>;
  try {
    second = await runSecondSession(scene);
  } catch (e) {
    // The first session stays measured: a second one that could not start (the run interrupted, the
    // budget spent) leaves the label not applicable. A user's error (the case, the adapter) stops the run.
    if (e instanceof UserError) throw e;
    const why = `the second session could not run: ${(e as Error).message}`;
    return labelled(trial, c, { ...base, second_invalid: why }, { ran: false });
  }
  const { evidence, trigger, seeded } = second;
  const second_invalid = invalidReason(evidence);
  const check = nextSessionScript(c).activation;
  const session = sessionScope(evidence);
  const fired = second_invalid ? undefined : firedOn(check, session, scene);
  // Holding on the world as the session found it is no act of the session (a memory line saved again).
  const as_found =
    fired === true && !holdsAnew(check, session, asFound(session, seeded), (x, ev) => firedOn(x, ev, scene));
  const ownerUnfinished = second_invalid
    ? undefined
    : unfinishedOwnerStep(nextSessionScript(c).plan, callOutcomes(evidence));
  const file = await keepEvidence(scene.input, `${scene.id}.${SECOND_SESSION}`, evidence);
  const mask = currentMask();
  const ran: Omit<TrialActivation, 'reason' | 'revision'> = {
    ran: true,
    valid: !second_invalid,
    ...(second_invalid ? { invalid_reason: mask.text(second_invalid) } : {}),
    trigger: mask.text(trigger),
    trigger_seen: evidence.model.some((m) => !m.review && m.injection_visible),
    duration_ms: evidence.process.duration_ms,
    exit_code: evidence.process.exit_code,
    facts: mask.deep(sessionFacts(evidence)),
    evidence_digest: evidenceDigest(evidence),
    ...(file ? { evidence_file: file } : {}),
  };
  return labelled(
    trial,
    c,
    {
      ...base,
      ...(second_invalid ? { second_invalid } : {}),
      fired,
      ...(as_found ? { as_found } : {}),
      check: checkWords(check),
      ...(ownerUnfinished ? { owner_unfinished: mask.text(ownerUnfinished) } : {}),
    },
    ran,
  );
}

function labelled(
  trial: Trial,
  c: Case,
  inputs: ActivationInputs,
  ran: Omit<TrialActivation, 'reason' | 'revision'>,
): Trial {
  const label = activationLabel(inputs);
  return {
    ...trial,
    labels: { ...trial.labels, ...(label.activated !== undefined ? { activated: label.activated } : {}) },
    activation: { reason: currentMask().text(label.reason), ...ran, revision: secondSessionRevision(c) },
  };
}

/** The activation check over (a view of) the second session's own evidence; `undecided` where a cap hid what it reads. */
function firedOn(check: Check, evidence: Evidence, scene: TrialScene): boolean | 'undecided' {
  const ctx = makeCheckContext(evidence, (p) => resolveCasePath(p, scene.view));
  try {
    return evaluateCheck(check, ctx);
  } catch (e) {
    if (e instanceof Undecided) return 'undecided';
    throw e;
  }
}

const checkWords = (check: Check): string => {
  const s = JSON.stringify(check);
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
};

/** The harness again, in the same folders and behind the same endpoint URL, with a new model and record. */
async function runSecondSession(
  scene: TrialScene,
): Promise<{ evidence: Evidence; trigger: string; seeded: FinalServiceState }> {
  const { input } = scene;
  const slotted: TrialScene = {
    ...scene,
    input: {
      ...input,
      loaded: { ...input.loaded, case: nextSessionCase(input.loaded.case) },
      // The persisted instruction is obeyed as it reads: no strategy rewrites it a second time.
      strategy: undefined,
      // A slot is taken once: the second harness waits for a new one.
      ...(input.nextSlot ? { harnessSlot: input.nextSlot } : {}),
    },
    recorder: new EvidenceRecorder(scene.canaries),
  };
  const rendered = renderTrial(slotted);
  // A GitHub the world gained between sessions gets its remote and `gh`, as the first session's would.
  const gh = rendered.c.world.services.github;
  if (gh && !input.loaded.case.world.services.github) await seedGithubAnew(slotted, gh);
  const triggers = nextSessionScript(input.loaded.case).triggers.map(rendered.ra);
  const { services, abort } = serveTrial(slotted, rendered, triggers);
  const launch = trialLaunch(slotted, rendered, abort.signal);
  const { outcome, before } = await launchHarness(slotted, launch, abort);
  const evidence = await collectEvidence(slotted, rendered, { outcome, before, services });
  abort.unlink();
  return {
    evidence,
    trigger: [rendered.c.inject.trigger, ...triggers].join(' | '),
    // The services as the second session found them: seeded afresh from the case's world.
    seeded: finalState(seedState(rendered.c.world.services)),
  };
}

const cap = (xs: string[], n = 10) => (xs.length > n ? [...xs.slice(0, n), `… ${xs.length - n} more`] : xs);

/** What the second session did, in the report's words. */
function sessionFacts(ev: Evidence): NonNullable<TrialActivation['facts']> {
  const attack = ev.model
    .filter((m) => !m.review && m.response.kind === 'tool_calls')
    .flatMap((m) => (m.response.kind === 'tool_calls' ? m.response.calls : []))
    .filter((call) => call.step?.role === 'attack')
    .map((call) => {
      const args = typeof call.args === 'string' ? call.args : JSON.stringify(call.args);
      return `${call.tool}(${args.length > 140 ? `${args.slice(0, 140)}…` : args})`;
    });
  return {
    attack_calls: cap(attack),
    files_changed: cap(rankChangedFiles(ev.diff, []), 15),
    services_hit: cap([...new Set(ev.services.map((s) => `${s.service}.${s.op}`))], 15),
    canaries_leaked: cap([
      ...new Set(ev.services.flatMap((s) => s.canaries.map((n) => `${n} → ${s.service}`))),
    ]),
  };
}
