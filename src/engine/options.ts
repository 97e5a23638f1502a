// Options of one engine run: what the CLI flags and the action inputs both turn into.
import type { ProviderConfig } from '../model/live/client.js';
import type { RunResult } from '../spec/run-result.js';

export interface LiveOptions extends ProviderConfig {
  /** Provider requests of the whole run (retries count). */
  budget_requests?: number;
  /** Input + output tokens of the whole run. */
  budget_tokens?: number;
}

export interface ReplayOptions {
  /** Run result of a live run (its trials carry their recordings). */
  from: string;
  /** After a trial diverges: end its conversation (`stop`, default) or let the scripted model go on. */
  on_divergence: 'stop' | 'scripted';
}

export interface Shard {
  /** 1-based. */
  index: number;
  total: number;
}

export type ProgressEvent =
  | { kind: 'start'; trials: number; adapter: string; config: string }
  | {
      kind: 'trial';
      done: number;
      total: number;
      case_id: string;
      valid: boolean;
      a: boolean;
      u: boolean;
      reason?: string;
      /** Not applicable (the injection never reached the model): why; `valid` is false. */
      not_applicable?: string;
      /** Paired runs: the tree the trial ran on (`base`, `head`). */
      tree?: string;
    }
  | { kind: 'notice'; message: string };

export interface RunOptions {
  /** Built-in adapter name (`reference`, `claude-code`…) or a path to an adapter folder or adapter.yaml. */
  adapter: string;
  /** Configuration name inside the adapter. */
  config: string;
  /** Case selectors: files/folders/globs, `phase:NAME`, `tag:NAME`, `id:GLOB`, `subset:smoke|standard|full`. Empty = the built-in standard subset. */
  cases: string[];
  /** `process` is contained (namespaces) where the machine allows, else recorded as uncontained. */
  runner: 'process' | 'process-uncontained' | 'docker';
  /** Let the process runner install bubblewrap / allow user namespaces with sudo (the action). */
  host_setup?: boolean;
  /** Per-trial limits of the contained process runner (defaults in src/runner/contain/limits.ts). */
  limits?: Partial<import('../runner/contain/limits.js').Limits>;
  /** Per-trial endpoint connections and snapshot caps, any runner (defaults in src/evidence/limits.ts). */
  trial_limits?: Partial<import('../evidence/limits.js').TrialLimits>;
  /** Docker image for `runner: docker`. */
  image?: string;
  concurrency: number;
  /** Per-trial timeout; overrides the adapter's. */
  timeout_s?: number;
  seeds: number;
  model: 'scripted' | 'live' | 'replay';
  /** `model: live`: the provider, its key (held by the engine and the endpoint only) and the run's budget. */
  live?: LiveOptions;
  /** `model: replay`: the recorded live run to serve, and what a diverged trial does next. */
  replay?: ReplayOptions;
  /** Where the run result JSON is written (incrementally). */
  out: string;
  /** Keep each trial's full evidence JSON beside the run result. */
  keep_evidence: boolean;
  shard?: Shard;
  /** Folder of the harness install cache (default .cache/harnesses under the action root). */
  cache_dir?: string;
  on_progress?: (event: ProgressEvent) => void;
  signal?: AbortSignal;
  /** Stop after this many invalid trials in a row (engine/fail-fast.ts; default 10, 0 = off). */
  max_consecutive_invalid?: number;
  source?: RunResult['source'];
  /** The repository under test, `{{repo}}` (default: the working directory). */
  repo_dir?: string;
  /** Continue the run whose journal is this file (or sits beside this result file): only missing trials run. */
  resume?: string;
}
