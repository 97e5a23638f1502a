// Stage "collect": after the harness, the trial's evidence: the world's "after" snapshot and its diff,
// what the endpoint went through, the harness's own output parsed by the adapter's rules, the model's
// and the services' records, the final service state.
import { parseHarnessOutput } from '../../adapters/parsers/index.js';
import { type TrialLimits, trialLimitMessage } from '../../evidence/limits.js';
import { finalState } from '../../evidence/services-state.js';
import type { Evidence, ProcessOutcome, SnapshotCap } from '../../evidence/types.js';
import type { ServicesHandler } from '../../world/services.js';
import {
  diffSnapshots,
  type SnapshotOptions,
  type SnapshotResult,
  snapshotDetailed,
} from '../../world/snapshot.js';
import type { EndpointHealth } from '../endpoint.js';
import type { RenderedTrial } from './render.js';
import type { TrialScene } from './types.js';

/** The snapshot caps of the trial's limits. */
export const snapshotOptions = (limits: TrialLimits): SnapshotOptions => ({
  maxFiles: limits.snapshot_files,
  maxDirs: limits.snapshot_dirs,
  maxFileBytes: limits.snapshot_file_bytes,
  maxBytes: limits.snapshot_bytes,
});

export async function collectEvidence(
  scene: TrialScene,
  r: RenderedTrial,
  run: { outcome: ProcessOutcome; before: SnapshotResult; services: ServicesHandler },
): Promise<Evidence> {
  const { before, services, outcome: o } = run;
  const after = await snapshotDetailed(scene.dirs, scene.snapshots);
  const outcome = withEndpointHealth(o, scene.endpoint.health, scene.limits);
  const caps = snapshotCaps(before.cap, after.cap);
  return {
    model: scene.recorder.model,
    services: scene.recorder.services,
    before: before.files,
    after: after.files,
    diff: diffSnapshots(before.files, after.files, caps ?? {}),
    process: outcome,
    harness: [
      ...scene.recorder.harness,
      ...parseHarnessOutput(scene.input.adapter.adapter.output, outcome.stdout, outcome.stderr),
    ],
    canaries: scene.canaries,
    state: { memory_files: r.keys.memory, skills_dir: r.keys.skills, config_dirs: r.keys.config },
    service_state: finalState(services.state),
    ...(caps ? { snapshot_caps: caps } : {}),
  };
}

/**
 * The outcome with what the endpoint went through: connections closed over the cap are a limit hit; a
 * listener's error (the engine out of file descriptors) makes the trial unmeasurable.
 */
function withEndpointHealth(o: ProcessOutcome, health: EndpointHealth, limits: TrialLimits): ProcessOutcome {
  const connections = trialLimitMessage('connections', limits);
  // The sandbox's relay may have named the same limit already: one mention.
  const named = o.limit_hit?.includes(connections.slice(0, connections.indexOf(')') + 1));
  const dropped =
    health.dropped && !named
      ? trialLimitMessage('connections', limits, `${health.dropped} closed by the endpoint`)
      : '';
  const limit_hit = [o.limit_hit, dropped].filter(Boolean).join('; ');
  return {
    ...o,
    ...(limit_hit ? { limit_hit } : {}),
    ...(health.error && !o.infra_error ? { infra_error: health.error } : {}),
  };
}

/** Both snapshots' caps, or undefined when neither was capped. */
function snapshotCaps(before?: SnapshotCap, after?: SnapshotCap): Evidence['snapshot_caps'] {
  if (!before && !after) return undefined;
  return { ...(before ? { before } : {}), ...(after ? { after } : {}) };
}
