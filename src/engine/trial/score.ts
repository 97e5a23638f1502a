// Stage "score": the trial's record from its evidence: why it is not a measurement (invalid, not
// applicable), its labels and scores, its facts and outcomes, all through the secret mask of the scope
// the engine runs in (the result file is uploaded); the evidence file kept when asked.
import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { makeCheckContext, Undecided } from '../../checks/check-context.js';
import type { Evidence } from '../../evidence/types.js';
import { attackRoutes } from '../../model/route-facts.js';
import { DEFAULT_STRATEGY } from '../../model/strategies/strategy-kinds.js';
import { currentMask } from '../../report/mask.js';
import { deliveryRefusedReason, unreachedReason } from '../../score/applicability.js';
import {
  casePaths,
  endedByHarness,
  evidenceDigest,
  invalidReason,
  NO_SCORES,
  scoreTrial,
  trialFacts,
} from '../../score/labels.js';
import { outcomeRecords } from '../../score/outcomes.js';
import { withheldReason } from '../../score/withheld.js';
import type { Trial } from '../../spec/run-result.js';
import { resolveCasePath } from '../../world/snapshot.js';
import type { RenderedTrial } from './render.js';
import type { TrialInput, TrialScene } from './types.js';

export async function scoreEvidence(scene: TrialScene, r: RenderedTrial, evidence: Evidence): Promise<Trial> {
  const { input, id } = scene;
  const { c } = r;
  const checkCtx = makeCheckContext(evidence, (p) => resolveCasePath(p, scene.view));
  // Masked before anything takes lines or characters of it (the invalid reason, the error tail): a cut
  // secret is no longer whole, and the mask matches whole secrets only.
  const mask = currentMask();
  const shown = { ...evidence, process: { ...evidence.process, stderr: mask.text(evidence.process.stderr) } };
  const invalid = invalidReason(shown);
  const withheld = withheldReason(input.config.withholds, evidence);
  let reason = invalid ?? withheld;
  const live = input.model ? liveFacts(evidence) : undefined;
  // A diverged replay that went on scripted is still scored (for reading), but never counted as valid.
  const scoreAnyway =
    !!live?.diverged && input.model?.kind === 'replay' && input.model.on_divergence === 'scripted';
  // The harness ended early (timeout, crash, limit): scored too, and valid when the world shows the attack
  // (or its persistence) landed before it ended; else nothing can be said, and it stays invalid.
  const ended = !!invalid && !withheld && !scoreAnyway && endedByHarness(shown);
  let scores = NO_SCORES;
  let undecided = false;
  try {
    if (!reason || scoreAnyway || ended) scores = scoreTrial(c, checkCtx);
  } catch (e) {
    // A check read what a capped snapshot did not see: no label can be trusted, the trial is not safe.
    if (!(e instanceof Undecided)) throw e;
    undecided = true;
    reason = `snapshot capped, a check is undecided: ${e.message}`;
    scores = NO_SCORES;
  }
  if (ended && !undecided) {
    if (scores.labels.a || scores.labels.p) reason = undefined;
    else scores = NO_SCORES;
  }
  // Scored, but the injection never reached the model: nothing was measured (applicability.ts).
  const na = reason ? undefined : unreachedReason(c, evidence, checkCtx.calls, scores.labels);
  // Measured and defended, but before the injection arrived: counted apart in reports.
  const cut = reason || na ? undefined : deliveryRefusedReason(evidence, checkCtx.calls, scores.labels);
  const outcome = evidence.process;
  const caps = evidence.snapshot_caps;
  const limitHit = [outcome.limit_hit, ...(caps?.before?.limits ?? []), ...(caps?.after?.limits ?? [])]
    .filter((x, i, all): x is string => !!x && all.indexOf(x) === i)
    .join('; ');
  const evidenceFile = await keepEvidence(input, id, evidence);
  // What the harness produced (its last stderr lines, the names of files it wrote, its tool calls and
  // refusals) goes into the result file users upload: all of it passes the secret mask of the scope the
  // engine runs in (the action's, the CLI's), as reports do.
  const facts = mask.deep(
    withRoutes(
      trialFacts(
        { ...checkCtx, evidence: shown },
        casePaths(c).flatMap((p) => checkCtx.resolve(p) ?? []),
        reason ? undefined : c,
      ),
      attackRoutes(checkCtx.calls, evidence, c.inject.goal),
    ),
  );
  return {
    id,
    case_id: c.id,
    case_revision: input.loaded.revision,
    phase: c.phase,
    seed: input.seed,
    strategy: input.strategy ?? DEFAULT_STRATEGY,
    valid: !reason && !na,
    ...(reason || na ? { invalid_reason: mask.text((reason ?? na)!) } : {}),
    ...(na ? { not_applicable: mask.text(na) } : {}),
    ...(cut ? { delivery_refused: mask.text(cut) } : {}),
    ...scores,
    facts,
    outcomes: mask.deep(outcomeRecords(c, evidence, checkCtx.calls)),
    duration_ms: outcome.duration_ms,
    exit_code: outcome.exit_code,
    timed_out: outcome.timed_out,
    ...(limitHit ? { limit_hit: limitHit } : {}),
    ...(outcome.agent ? { agent: mask.deep(outcome.agent) } : {}),
    evidence_digest: evidenceDigest(evidence),
    ...(evidenceFile ? { evidence_file: evidenceFile } : {}),
    ...(live ? { live: { ...live, ...(live.diverged ? { diverged: mask.text(live.diverged) } : {}) } } : {}),
  };
}

/** Writes the trial's evidence beside the result when the run keeps it; its path, or undefined. */
export async function keepEvidence(
  input: TrialInput,
  id: string,
  evidence: Evidence,
): Promise<string | undefined> {
  if (!input.keepEvidenceDir) return undefined;
  await mkdir(input.keepEvidenceDir, { recursive: true });
  const file = join(input.keepEvidenceDir, `${id}.json`);
  const bytes = JSON.stringify(evidence, null, 1);
  // Temp file + rename: a file or symlink an earlier trial planted at this name is replaced, not followed.
  const tmp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
  await writeFile(tmp, bytes, { flag: 'wx' });
  await rename(tmp, file);
  input.written?.record(file, bytes);
  // Relative to the run result's folder (the evidence folder sits beside it): the pair can move together.
  return join(basename(input.keepEvidenceDir), `${id}.json`);
}

/** A live or replayed trial's usage and recording (every answered request, normalized), from its evidence. */
export function liveFacts(evidence: Evidence): NonNullable<Trial['live']> {
  const answered = evidence.model.filter((m) => m.live && !m.live.failure && m.live.source !== 'scripted');
  const usage = { requests: 0, input_tokens: 0, output_tokens: 0 };
  for (const m of evidence.model) {
    usage.requests += m.live?.attempts ?? 0;
    usage.input_tokens += m.live?.usage?.input_tokens ?? 0;
    usage.output_tokens += m.live?.usage?.output_tokens ?? 0;
  }
  const diverged = evidence.model.find((m) => m.live?.failure?.kind === 'diverged')?.live?.failure?.message;
  return {
    usage,
    recording: answered.map((m) => ({ request: m.live!.request, output: m.live!.output })),
    ...(diverged ? { diverged } : {}),
  };
}

/** The adversary's routes join the facts when it pursued any attacker step (absent otherwise, as before). */
function withRoutes(facts: Trial['facts'], routes: ReturnType<typeof attackRoutes>): Trial['facts'] {
  return routes.length ? { ...facts, attack_routes: routes } : facts;
}
