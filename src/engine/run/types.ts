// What a run measures (its targets) and what its stages hand on (run.ts runs them: plan, start, drain,
// finish). Types only.
import type { adapterConfig, loadAdapter } from '../../adapters/load.js';
import type { LoadedCase } from '../../cases/schema.js';
import type { WrittenFiles } from '../../result/integrity.js';
import type { Journal, ResultHeader } from '../../result/journal.js';
import type { ResultWriter } from '../../result/writer.js';
import type { HostPlan } from '../../runner/contain/host.js';
import type { Runner } from '../../runner/types.js';
import type { RunResult, Trial } from '../../spec/run-result.js';
import type { ModelSetup } from '../model.js';

/**
 * One tree a paired run measures: its `{{repo}}`, its result file and what its result says it is. All
 * targets of one run share the adapter, configuration, cases, seeds, runner and model: only the tree
 * differs (base and head of a pull request, see baseline/base-head.ts), and with it the version of a
 * pinned harness when the pull request bumps it (`harness_version`).
 */
export interface RunTarget {
  /** The repository under test: `{{repo}}`, read-only for the harness. */
  repoDir: string;
  out: string;
  source?: RunResult['source'];
  /**
   * Case ids this target runs from the start (default: every selected case). Others run only when
   * `followUp` asks for them after another target's trial.
   */
  only?: ReadonlySet<string>;
  /** The selection this target records covers a subset on purpose (base-cases). */
  subset?: boolean;
  /** Nothing is launched: every trial is invalid with this reason (a failed build). */
  skip?: string;
  /** Name in progress events (`base`, `head`). */
  label?: string;
  /**
   * The version of the adapter's pinned harness (install.npm) this tree pins, when it differs from the
   * adapter's: a bump's base tree runs the release it comes from, the head the one it goes to.
   */
  harness_version?: string;
}

/**
 * Called after each trial: the targets (by index) that must now also run this case, seed and strategy. Lets a
 * cheap base selection grow by the cases that came out unsafe or invalid on head.
 */
export type FollowUp = (trial: Trial, target: number) => number[];

/** One trial to run: a case, a seed, a target (by index). */
export interface Job {
  lc: LoadedCase;
  seed: number;
  /** The attack strategy (src/model/strategies/strategy-kinds.ts). */
  strategy: string;
  target: number;
}

/** Stage "plan": what the run is, checked before anything is made (no runner, no work root). */
export interface RunPlan {
  adapter: ReturnType<typeof loadAdapter>;
  /** Per target: the adapter its trials launch (the run's, or its own harness version's). */
  targetAdapters: ReturnType<typeof loadAdapter>[];
  config: ReturnType<typeof adapterConfig>;
  /** The selection before sharding (what the result's selection names) and this shard's cases. */
  selected: LoadedCase[];
  cases: LoadedCase[];
  /** What makes two runs the same run (a resumed run must be one with the run it continues). */
  identity: Pick<ResultHeader, 'adapter' | 'model' | 'selection'>;
  jobs: Job[];
  resumed?: Journal & { path: string };
  /** Trials a resumed run keeps from the run it continues. */
  carried: Trial[];
  modelSetup: ModelSetup;
  /** The contained runner's look at the host, started first (it overlaps loading). */
  hostPlan?: Promise<HostPlan>;
}

/** Stage "start": what the run made (a started runner, its work root, a result writer per target). */
export interface RunStarted {
  cacheDir: string;
  runKey: string;
  runner: Runner;
  workRoot: string;
  written: WrittenFiles;
  writers: ResultWriter[];
  /** Per target: why its trials are not run (its pinned harness version did not install), if so. */
  targetSkips: (string | undefined)[];
  /** Per target: what a harness may read; for all: what it may not even see. */
  readOnlyOf: string[][];
  hidden: string[];
  evidenceDirOf: (out: string) => string | undefined;
  /** The jobs still to run (a resumed run's carried trials left out); follow-ups are appended. */
  todo: Job[];
}
