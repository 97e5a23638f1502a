// Options of one engine run: what the CLI flags and the action inputs both turn into, through the one
// schema below (RunSettingFields). The engine trusts what it is given: every check of a user's value is
// in the parse.
import { z } from 'zod';
import type { NpmrcScope } from '../adapters/npmrc.js';
import { MAX_TIMEOUT_S } from '../adapters/schema.js';
import { type HarnessBuild, parseHarnessBuild } from '../adapters/version-override.js';
import { bool, FieldError, int, list, listField, oneOf, optionalInt } from '../input-fields.js';
import { PROVIDERS, type ProviderConfig } from '../model/live/client.js';
import { STRATEGY_NAMES, type StrategyName } from '../model/strategies/strategy-kinds.js';
import { MODEL_MODES, type RunResult } from '../spec/run-result.js';
import { DEFAULT_MAX_CONSECUTIVE_INVALID } from './fail-fast.js';
import { DEFAULT_RUNNER, RUNNER_NAMES, type RunnerName, runnerEntry } from './runners.js';

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
      /** The trial's attack strategy, when not `direct`. */
      strategy?: string;
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
  /** Configuration name inside the adapter (with `wiring`: the wiring's name). */
  config: string;
  /**
   * A team's CI wiring file (src/adapters/wiring.ts): its harness and configuration replace `adapter`'s
   * configuration, its prompt, flags and job variables apply to the `github_event` cases.
   */
  wiring?: string;
  /** Case selectors: files/folders/globs, `phase:NAME`, `tag:NAME`, `id:GLOB`, `taxonomy:ID`, `subset:smoke|standard|full`. Empty = the built-in standard subset. */
  cases: string[];
  /** A runner of the registry (engine/runners.ts). */
  runner: RunnerName;
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
  /** The ACP agent's command (words), replacing launch.command of a protocol: acp adapter. */
  acp_command?: string[];
  seeds: number;
  /** Attack strategies (src/model/strategies/strategy-kinds.ts): one trial per case × seed × strategy. Default `direct`. */
  strategies?: StrategyName[];
  /**
   * A second session in the same world for every case with a persistence check, and the `activated`
   * label (src/engine/trial/next-session.ts). A case with `next_session:` gets one regardless.
   */
  activation?: boolean;
  model: 'scripted' | 'live' | 'replay';
  /** `model: live`: the provider, its key (held by the engine and the endpoint only) and the run's budget. */
  live?: LiveOptions;
  /** `model: replay`: the recorded live run to serve, and what a diverged trial does next. */
  replay?: ReplayOptions;
  /** Where the run result JSON is written (incrementally). */
  out: string;
  /** Keep each trial's full evidence JSON beside the run result. */
  keep_evidence: boolean;
  /**
   * false: never install; a harness missing from the cache stops the run before any trial, saying how to
   * install it (default: install what is missing).
   */
  install?: boolean;
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
  /**
   * Whose .npmrc harness installs and registry look-ups apply (default: the project's and the user's, as
   * npm does). The action leaves the project's out when the tree may be a fork's (action/context.ts).
   */
  npmrc?: NpmrcScope;
  /** Continue the run whose journal is this file (or sits beside this result file): only missing trials run. */
  resume?: string;
  /**
   * Run another published version of the adapter's harness package than its pin (the bisect): installed
   * into the cache like a pin, the adapter file untouched (adapters/version-override.ts).
   */
  harness_version?: string;
  /**
   * Run this npm package and version as the adapter's harness instead of its pin (a harness published
   * under a new name, or a version not pinned yet): adapters/version-override.ts rewrites the paths.
   */
  harness_package?: HarnessBuild;
}

// ---- the one parse of run options (action inputs and CLI flags of the same names) ----

/** Each run option with its default; action.yml declares the same (a test keeps them in step). */
export const RUN_SETTING_DEFAULTS = {
  adapter: '',
  config: '',
  wiring: '',
  cases: '',
  runner: DEFAULT_RUNNER,
  image: '',
  concurrency: '2',
  timeout: '',
  'trial-memory': '',
  'max-consecutive-invalid': String(DEFAULT_MAX_CONSECUTIVE_INVALID),
  seeds: '1',
  strategies: 'direct',
  activation: 'false',
  shard: '',
  model: 'scripted',
  provider: 'openai-compatible',
  'base-url': '',
  'model-name': '',
  temperature: '',
  'max-tokens': '',
  'budget-requests': '',
  'budget-tokens': '',
  'replay-from': '',
  'replay-diverged': 'stop',
  'acp-command': '',
  'harness-package': '',
} as const;

export type RunSettingName = keyof typeof RUN_SETTING_DEFAULTS;
export const RUN_SETTING_NAMES = Object.keys(RUN_SETTING_DEFAULTS) as RunSettingName[];

const timeout = z.string().transform((v, ctx) => {
  if (v === '') return undefined;
  const m = v.match(/^(\d+)\s*(s|m|min)?$/);
  const n = m ? Number(m[1]) * (m[2] && m[2] !== 's' ? 60 : 1) : Number.NaN;
  if (!(n >= 1 && n <= MAX_TIMEOUT_S)) {
    ctx.addIssue({
      code: 'custom',
      message: `"${v}" is not a per-trial timeout; write seconds (e.g. 120) or minutes (e.g. 5m), up to ${MAX_TIMEOUT_S / 3600} hours, or leave it empty for the adapter's`,
    });
    return z.NEVER;
  }
  return n;
});

/** Memory of one trial: 4GiB, 3072MiB (the contained and docker runners' default is 2 GiB). */
const trialMemory = z.string().transform((v, ctx) => {
  if (v === '') return undefined;
  const m = v.trim().match(/^(\d+(?:\.\d+)?)\s*(g|gb|gib|m|mb|mib)$/i);
  const unit = /^g/i.test(m?.[2] ?? '') ? 1024 ** 3 : 1024 ** 2;
  const n = m ? Math.round(Number(m[1]) * unit) : Number.NaN;
  if (!(n >= 256 * 1024 ** 2 && n <= 64 * 1024 ** 3)) {
    ctx.addIssue({
      code: 'custom',
      message: `"${v}" is not a trial memory limit; write GiB or MiB (e.g. 4GiB, 3072MiB), from 256MiB to 64GiB, or leave it empty for the runner's 2GiB`,
    });
    return z.NEVER;
  }
  return n;
});

const shard = z.string().transform((v, ctx): Shard | undefined => {
  if (v === '') return undefined;
  const m = v.match(/^(\d+)\s*\/\s*(\d+)$/);
  const index = m ? Number(m[1]) : 0;
  const total = m ? Number(m[2]) : 0;
  if (!m || total < 1 || index < 1 || index > total) {
    ctx.addIssue({ code: 'custom', message: `"${v}" is not a shard; write i/n with 1 ≤ i ≤ n, e.g. 2/4` });
    return z.NEVER;
  }
  return { index, total };
});

const baseUrl = z.string().transform((v, ctx) => {
  if (v !== '' && !/^https?:\/\/[^\s]+$/.test(v)) {
    ctx.addIssue({
      code: 'custom',
      message: `"${v}" is not a URL; write the provider's base URL with its version path, e.g. https://api.openai.com/v1`,
    });
    return z.NEVER;
  }
  return v;
});

const temperature = z.string().transform((v, ctx) => {
  if (v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 2) {
    ctx.addIssue({
      code: 'custom',
      message: `"${v}" is not a temperature; write a number from 0 to 2, or leave it empty for the provider's default`,
    });
    return z.NEVER;
  }
  return n;
});

/**
 * An ACP agent's command: a JSON array of words (`["node", "/path/cli.js", "--acp"]`), or words split at
 * white space (no quoting: use the array for a word with a space). Empty: the adapter's launch.command.
 */
export const acpCommand = z.string().transform((v, ctx) => {
  const t = v.trim();
  if (t === '') return undefined;
  if (!t.startsWith('[')) return t.split(/\s+/);
  try {
    const words: unknown = JSON.parse(t);
    if (Array.isArray(words) && words.length > 0 && words.every((w) => typeof w === 'string'))
      return words as string[];
  } catch {}
  ctx.addIssue({
    code: 'custom',
    message: `"${v.slice(0, 100)}" is not a command; write a JSON array of strings (["node", "agent.js", "--acp"]) or words separated by spaces`,
  });
  return z.NEVER;
});

/** `PACKAGE@VERSION`: the harness build to run instead of the adapter's pin. Empty: the pin. */
const harnessPackage = z.string().transform((v, ctx): HarnessBuild | undefined => {
  if (v.trim() === '') return undefined;
  const b = parseHarnessBuild(v);
  if (typeof b !== 'string') return b;
  ctx.addIssue({ code: 'custom', message: b });
  return z.NEVER;
});

/**
 * `direct,encoded,…` (or a repeated flag): attack strategies, each once, in the order given; `all` selects
 * every strategy of the registry.
 */
const strategies = listField.transform((v, ctx): StrategyName[] => {
  // A repeated flag gives a list whose items may still be comma lists (`matrix --strategies direct,fused`).
  const names = v.flatMap(list).flatMap((s) => (s === 'all' ? STRATEGY_NAMES : [s]));
  const unknown = names.filter((n) => !(STRATEGY_NAMES as string[]).includes(n));
  if (unknown.length || names.length === 0) {
    ctx.addIssue({
      code: 'custom',
      message: `${unknown.length ? `unknown strategy ${unknown.map((u) => `"${u}"`).join(', ')}` : 'no strategy given'}; choose from ${STRATEGY_NAMES.join(', ')} or all (comma-separated; \`harness-risk list strategies\` says what each does)`,
    });
    return z.NEVER;
  }
  return [...new Set(names)] as StrategyName[];
});

/** The run options every front end has, as raw strings (a repeated `cases` flag: a list). */
export const RunSettingFields = z
  .object({
    adapter: z.string(),
    config: z.string(),
    wiring: z.string(),
    cases: listField,
    runner: oneOf(RUNNER_NAMES),
    image: z.string(),
    concurrency: int(1, 64, 'a concurrency'),
    timeout,
    'trial-memory': trialMemory,
    'max-consecutive-invalid': int(0, 1_000_000, 'a number of trials (0 turns the fail-fast off)'),
    seeds: int(1, 100, 'a number of seeds'),
    strategies,
    activation: bool,
    shard,
    model: oneOf(MODEL_MODES),
    provider: oneOf(PROVIDERS),
    'base-url': baseUrl,
    'model-name': z.string(),
    temperature,
    'max-tokens': optionalInt(1, 1_000_000, 'a number of output tokens'),
    'budget-requests': optionalInt(1, 10_000_000, 'a number of provider requests'),
    'budget-tokens': optionalInt(1, 10_000_000_000, 'a number of tokens'),
    'replay-from': z.string(),
    'replay-diverged': oneOf(['stop', 'scripted'] as const),
    'acp-command': acpCommand,
    'harness-package': harnessPackage,
  })
  .transform((v) => ({
    settings: {
      adapter: v.adapter,
      config: v.config,
      ...(v.wiring ? { wiring: v.wiring } : {}),
      cases: v.cases,
      runner: v.runner,
      ...(v.image ? { image: v.image } : {}),
      concurrency: v.concurrency,
      max_consecutive_invalid: v['max-consecutive-invalid'],
      ...(v.timeout !== undefined ? { timeout_s: v.timeout } : {}),
      ...(v['trial-memory'] !== undefined ? { limits: { memory_bytes: v['trial-memory'] } } : {}),
      seeds: v.seeds,
      strategies: v.strategies,
      ...(v.activation ? { activation: true } : {}),
      ...(v.shard ? { shard: v.shard } : {}),
      model: v.model,
      ...(v['acp-command'] ? { acp_command: v['acp-command'] } : {}),
      ...(v['harness-package'] ? { harness_package: v['harness-package'] } : {}),
    } satisfies RunSettings,
    model: {
      provider: v.provider,
      base_url: v['base-url'],
      model: v['model-name'],
      ...(v.temperature !== undefined ? { temperature: v.temperature } : {}),
      ...(v['max-tokens'] !== undefined ? { max_tokens: v['max-tokens'] } : {}),
      ...(v['budget-requests'] !== undefined ? { budget_requests: v['budget-requests'] } : {}),
      ...(v['budget-tokens'] !== undefined ? { budget_tokens: v['budget-tokens'] } : {}),
      replay: { from: v['replay-from'], on_divergence: v['replay-diverged'] },
    } satisfies ModelSettings,
  }));

/** What a user chooses of a run (the rest of RunOptions is the front end's: out, progress, signal…). */
export type RunSettings = Pick<
  RunOptions,
  | 'adapter'
  | 'config'
  | 'wiring'
  | 'cases'
  | 'runner'
  | 'image'
  | 'concurrency'
  | 'timeout_s'
  | 'limits'
  | 'seeds'
  | 'strategies'
  | 'activation'
  | 'shard'
  | 'model'
  | 'acp_command'
  | 'harness_package'
> &
  Required<Pick<RunOptions, 'max_consecutive_invalid'>>;

/** The model options as written (used when `model` says live or replay). */
export interface ModelSettings extends Omit<LiveOptions, 'key'> {
  replay: ReplayOptions;
}

const SETTING_KEYS = [
  'adapter',
  'config',
  'wiring',
  'cases',
  'runner',
  'image',
  'concurrency',
  'timeout_s',
  'limits',
  'max_consecutive_invalid',
  'seeds',
  'strategies',
  'activation',
  'shard',
  'model',
  'acp_command',
  'harness_package',
] as const satisfies readonly (keyof RunSettings)[];

/** The run settings of a larger object (the action's inputs), to spread into RunOptions. */
export function settingsOf(x: RunSettings): RunSettings {
  return Object.fromEntries(
    SETTING_KEYS.flatMap((k) => (x[k] === undefined ? [] : [[k, x[k]]])),
  ) as RunSettings;
}

export type ParsedRunSettings = z.output<typeof RunSettingFields>;

/** The run options' problems that span options: the runner's image. Undefined when there is none. */
export function settingsProblem(s: RunSettings): FieldError | undefined {
  if (runnerEntry(s.runner).needsImage && !s.image)
    return new FieldError(
      'image',
      `is required with runner: ${s.runner} (the image that holds your harness build)`,
    );
  return undefined;
}

/**
 * The model options of a run: live needs a base URL and a model name; replay the recorded run. `key` is
 * the provider key, read by the front end (an input, an environment variable), never a flag.
 */
export function modelOptionsOf(
  model: RunSettings['model'],
  m: ModelSettings,
  key: string,
): Pick<RunOptions, 'model' | 'live' | 'replay'> {
  if (model === 'scripted') return { model };
  if (model === 'replay') {
    if (!m.replay.from)
      throw new FieldError(
        'replay-from',
        'is required with model: replay (the result file of a live run, e.g. .harness-risk/live-baseline.json)',
      );
    return { model, replay: m.replay };
  }
  if (!m.base_url)
    throw new FieldError(
      'base-url',
      'is required with model: live (e.g. https://api.openai.com/v1 or https://api.anthropic.com/v1)',
    );
  if (!m.model)
    throw new FieldError(
      'model-name',
      'is required with model: live (the model the provider serves, e.g. gpt-4.1)',
    );
  const { replay: _, ...live } = m;
  return { model, live: { ...live, key } };
}
