// What one trial is given and what it gives back, and the scene its stages share (trial.ts runs the
// stages: endpoint, render, seed, serve, launch, collect, score). Types only.
import type { AdapterConfig, LoadedAdapter } from '../../adapters/schema.js';
import type { LoadedCase } from '../../cases/schema.js';
import type { TrialLimits } from '../../evidence/limits.js';
import type { EvidenceRecorder } from '../../evidence/recorder.js';
import type { Evidence } from '../../evidence/types.js';
import type { Recorded } from '../../model/live/backend.js';
import type { Budget } from '../../model/live/budget.js';
import type { ProviderConfig } from '../../model/live/client.js';
import type { WrittenFiles } from '../../result/integrity.js';
import type { Runner, SandboxView } from '../../runner/types.js';
import type { Trial } from '../../spec/run-result.js';
import type { SnapshotOptions } from '../../world/snapshot.js';
import type { TrialDirs } from '../../world/trial-dirs.js';
import type { TrialEndpoint } from '../endpoint.js';

export interface TrialInput {
  loaded: LoadedCase;
  adapter: LoadedAdapter;
  configName: string;
  config: AdapterConfig;
  seed: number;
  /** The attack strategy (src/model/strategies/strategy-kinds.ts); absent: `direct`. */
  strategy?: string;
  runner: Runner;
  runKey: string;
  workRoot: string;
  cacheDir: string;
  /** The user's repository (GITHUB_WORKSPACE or the CLI's cwd): {{repo}}. */
  repoDir: string;
  /** Host folders the harness may read but not write (mounted read-only under docker). */
  readOnly: string[];
  /** Host paths no harness may see (the result file, kept evidence). */
  hidden?: string[];
  timeoutMs: number;
  keepEvidenceDir?: string;
  keepTrialDirs?: boolean;
  signal?: AbortSignal;
  /** Records what the engine writes (the evidence file), so it can verify it at the end of the run. */
  written?: WrittenFiles;
  /** Live or replay (absent: the scripted model). */
  model?: TrialModel;
  /**
   * Starts the harness when one of the run's harness slots is free (absent: at once). Everything before
   * and after it (the world, the snapshots, scoring) runs outside the slot, beside other trials' harnesses.
   */
  harnessSlot?: <T>(start: (free: () => void) => Promise<T>) => Promise<T>;
  /** Endpoint connections and snapshot caps (defaults in src/evidence/limits.ts). */
  limits?: Partial<TrialLimits>;
  /**
   * The run's activation switch: a second session for every case with a persistence check (a case with
   * `next_session:` has one regardless). See src/engine/trial/next-session.ts.
   */
  activation?: boolean;
  /** A new harness slot for the second session (`harnessSlot` is taken once); absent: at once. */
  nextSlot?: <T>(start: (free: () => void) => Promise<T>) => Promise<T>;
}

export type TrialModel =
  | { kind: 'live'; provider: ProviderConfig; budget: Budget }
  | { kind: 'replay'; recording: Recorded[]; on_divergence: 'stop' | 'scripted' };

export interface TrialOutput {
  trial: Trial;
  evidence: Evidence;
  notices: string[];
}

/** What every stage after the endpoint shares: the trial's folders, its view, its endpoint, its record. */
export interface TrialScene {
  input: TrialInput;
  id: string;
  dirs: TrialDirs;
  view: SandboxView;
  limits: TrialLimits;
  snapshots: SnapshotOptions;
  canaries: Record<string, string>;
  recorder: EvidenceRecorder;
  endpoint: TrialEndpoint;
  /** Notices for the run's progress (a world the adapter could not fully place, dropped variables). */
  notices: string[];
}
