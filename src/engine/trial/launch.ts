// Stage "launch": the harness's environment (policed once, here, for every runner), its launch as the
// runner contract has it, and its run: staged while the world's "before" snapshot is taken, then started
// in a harness slot. A start that fails is the outcome of the trial (infra_error), except a trial the
// run no longer wants (TrialNotStarted), which is thrown on.
import type { AcpSessionResult } from '../../adapters/acp/session.js';
import type { ProcessOutcome } from '../../evidence/types.js';
import type { TrialLaunch } from '../../runner/types.js';
import { githubEnv } from '../../world/github-world.js';
import { type SnapshotResult, snapshotDetailed } from '../../world/snapshot.js';
import { buildTrialEnv } from '../env.js';
import { TrialNotStarted } from '../schedule.js';
import { acpConversation, withAcpResult } from './acp.js';
import type { RenderedTrial } from './render.js';
import type { TrialAbort } from './serve.js';
import type { TrialScene } from './types.js';

/** Environment canaries: NAME → value for every canary that declares `env` (values made for this trial). */
export function canaryEnv(
  declared: TrialScene['input']['loaded']['case']['world']['canaries'],
  values: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(declared.flatMap((k) => (k.env ? [[k.env, values[k.name]!] as const] : [])));
}

/** The runner contract's launch, plus the ACP session's result once it is over (protocol: acp). */
export interface HarnessLaunch extends TrialLaunch {
  acpResult?: () => AcpSessionResult | undefined;
}

/** The launch of this trial's harness (the runner contract's TrialLaunch); dropped variables are noticed. */
export function trialLaunch(scene: TrialScene, r: RenderedTrial, signal: AbortSignal): HarnessLaunch {
  const { input, view } = scene;
  const { adapter, config } = input;
  const { launch } = adapter.adapter;
  const rendered = (env: Record<string, string>) =>
    Object.fromEntries(Object.entries(env).map(([k, v]) => [k, r.ra(v)]));
  const { env, dropped } = buildTrialEnv({
    view,
    endpoint: scene.endpoint.url,
    endpointHost: view.endpointHost,
    skillsDir: r.skillsDir,
    memoryFile: r.memoryFile,
    cwd: r.ra(launch.cwd),
    adapterEnv: rendered(launch.env),
    configEnv: rendered({ ...config.env, ...(r.mcp?.env ?? {}) }),
    canaryEnv: canaryEnv(input.loaded.case.world.canaries, scene.canaries),
    worldEnv: githubEnv(r.c.world.services.github, scene.endpoint.url),
  });
  if (dropped.length)
    scene.notices.push(`${adapter.file}: refused to pass ${dropped.join(', ')} to the harness`);
  const acp = acpConversation(scene, r);
  return {
    ...(acp ? { converse: acp.converse, acpResult: acp.result } : {}),
    trial_id: scene.id,
    dirs: scene.dirs,
    command: [...launch.command, ...config.args, ...(r.mcp?.args ?? [])].map(r.ra),
    cwd: r.ra(launch.cwd),
    env,
    stdin: launch.stdin === undefined ? undefined : r.ra(launch.stdin),
    timeout_ms: input.timeoutMs,
    read_only: input.readOnly,
    hide: input.hidden,
    endpoint_port: scene.endpoint.port,
    max_connections: scene.limits.connections,
    signal,
  };
}

/** An outcome for a harness the runner could not start (never the harness's doing). */
const notRun = (e: Error): ProcessOutcome => ({
  exit_code: null,
  signal: null,
  timed_out: false,
  duration_ms: 0,
  stdout: '',
  stderr: '',
  infra_error: e.message,
});

/** Runs the harness; its outcome and the world's snapshot from just before it started. */
export async function launchHarness(
  scene: TrialScene,
  launch: HarnessLaunch,
  abort: TrialAbort,
): Promise<{ outcome: ProcessOutcome; before: SnapshotResult }> {
  const { runner } = scene.input;
  const inSlot = scene.input.harnessSlot ?? ((start) => start(() => {}));
  // What of the start needs no slot (the sandbox started, its init waiting; docker: a container and the
  // copy-in) is done before waiting, while the world's snapshot is taken: neither changes a file, and
  // the harness starts only at run().
  const staging = Promise.resolve(runner.stage?.(launch));
  staging.catch(() => {});
  const before = await snapshotDetailed(scene.dirs, scene.snapshots);
  try {
    await staging;
    // The slot is free once the harness has exited; the runner's copy-back then runs beside the next.
    const outcome = await inSlot((free) => runner.run({ ...launch, harness_exited: free }));
    return { outcome: withAcpResult(outcome, launch.acpResult?.()), before };
  } catch (e) {
    abort.unlink();
    // Never started: not an outcome of the harness (the trial's tear-down still runs).
    if (e instanceof TrialNotStarted) throw e;
    return { outcome: notRun(e as Error), before };
  }
}
