// One trial: case × adapter configuration × seed, in its own folders, with its own endpoint (model +
// mock services) and its own evidence. Everything the agent could touch is created here and thrown away.
// The trial runs as named stages (./trial/): endpoint, render, seed, serve, launch, collect, score.
import { runsNextSession } from '../cases/next-session.js';
import { TrialLimits } from '../evidence/limits.js';
import { EvidenceRecorder } from '../evidence/recorder.js';
import { DEFAULT_STRATEGY } from '../model/strategies/strategy-kinds.js';
import { makeCanaries } from '../world/canaries.js';
import type { TrialDirs } from '../world/trial-dirs.js';
import { createTrialDirs, removeTrialDirs, TRIAL_DIR_PREFIX } from '../world/trial-dirs.js';
import { TrialEndpoint } from './endpoint.js';
import { collectEvidence, snapshotOptions } from './trial/collect.js';
import { launchHarness, trialLaunch } from './trial/launch.js';
import { withNextSession } from './trial/next-session.js';
import { renderTrial } from './trial/render.js';
import { scoreEvidence } from './trial/score.js';
import { seedWorld } from './trial/seed.js';
import { serveTrial } from './trial/serve.js';
import type { TrialInput, TrialOutput, TrialScene } from './trial/types.js';

/**
 * A trial's key: case × seed × strategy. A `direct` trial keeps the id it had before strategies existed,
 * so resumed runs and baselines of older versions pair with it.
 */
export function trialId(caseId: string, seed: number, strategy: string = DEFAULT_STRATEGY): string {
  return strategy === DEFAULT_STRATEGY ? `${caseId}.s${seed}` : `${caseId}.s${seed}.${strategy}`;
}

/** A job's trial id. */
export const jobTrialId = (j: { lc: { case: { id: string } }; seed: number; strategy: string }): string =>
  trialId(j.lc.case.id, j.seed, j.strategy);

export async function runTrial(input: TrialInput): Promise<TrialOutput> {
  // An opaque folder name: the harness reads its own path (cwd, HOME, the mount table), and a path
  // naming the case would tell it which calls are the attack.
  const dirs = await createTrialDirs(input.workRoot, TRIAL_DIR_PREFIX);
  let endpoint: TrialEndpoint | undefined;
  try {
    // Before anything is written: the runner may mount the trial's size-capped disk here.
    await input.runner.prepare?.(dirs);
    const scene = await openScene(input, dirs);
    endpoint = scene.endpoint;
    const rendered = renderTrial(scene);
    await seedWorld(scene, rendered);
    const { services, abort } = serveTrial(scene, rendered);
    const launch = trialLaunch(scene, rendered, abort.signal);
    const { outcome, before } = await launchHarness(scene, launch, abort);
    const evidence = await collectEvidence(scene, rendered, { outcome, before, services });
    abort.unlink();
    const first = await scoreEvidence(scene, rendered, evidence);
    const trial = runsNextSession(input.loaded.case, input.activation ?? false)
      ? await withNextSession(scene, first)
      : first;
    return { trial, evidence, notices: scene.notices };
  } finally {
    await endpoint?.close();
    if (!input.keepTrialDirs) {
      await input.runner.release?.(dirs).catch(() => {});
      await removeTrialDirs(dirs).catch(() => {});
    }
  }
}

/** Stage "endpoint": the trial's view, canaries and record, and its endpoint (its URL is {{svc}}). */
async function openScene(input: TrialInput, dirs: TrialDirs): Promise<TrialScene> {
  const id = trialId(input.loaded.case.id, input.seed, input.strategy);
  const limits = TrialLimits.parse(input.limits ?? {});
  const view = input.runner.view(dirs);
  const canaries = makeCanaries(input.loaded.case.world.canaries, input.runKey, id);
  const recorder = new EvidenceRecorder(canaries);
  // The endpoint must exist before rendering: its URL is {{svc}} and {{model_url}}.
  const endpoint = await TrialEndpoint.open(view, limits.connections);
  return {
    input,
    id,
    dirs,
    view,
    limits,
    snapshots: snapshotOptions(limits),
    canaries,
    recorder,
    endpoint,
    notices: [],
  };
}
