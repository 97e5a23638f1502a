// The action's inputs: the raw strings GitHub passes (INPUT_* variables) to typed options, through the
// run's own schema (engine/options.ts), the gate's (gate/options.ts) and the few only the action has. A
// bad value fails the step with a message naming the input and what to write instead.

import { z } from 'zod';
import { loadWiring, wiringAdapterRef } from '../adapters/wiring.js';
import { type BaselineSource, parseBaselineSource } from '../baseline/source.js';
import {
  type LiveOptions,
  modelOptionsOf,
  type ParsedRunSettings,
  type ReplayOptions,
  RUN_SETTING_DEFAULTS,
  RUN_SETTING_NAMES,
  RunSettingFields,
  type RunSettings,
  type Shard,
  settingsProblem,
} from '../engine/options.js';
import type { GateOptions } from '../gate/index.js';
import { GATE_OPTION_DEFAULTS, GATE_OPTION_NAMES, GateOptionFields } from '../gate/options.js';
import { bool, FieldError, int, list, oneOf, parseFields } from '../input-fields.js';

/** Every input of action.yml, with the default action.yml declares (kept in step by a test). */
export const INPUT_DEFAULTS = {
  ...RUN_SETTING_DEFAULTS,
  ...GATE_OPTION_DEFAULTS,
  baseline: 'cache',
  build: '',
  'base-cases': '',
  'save-baseline': 'auto',
  bisect: 'false',
  'bisect-max-versions': '8',
  'bisect-max-trials': '200',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a JS template
  'github-token': '${{ github.token }}',
  comment: 'true',
  'check-run': 'true',
  annotations: 'true',
  'result-path': '',
  'run-result': '',
  'pull-request': '',
  sarif: '',
  junit: '',
  'model-key': '',
  'live-fallback': 'scripted',
} as const;

export type InputName = keyof typeof INPUT_DEFAULTS;
export const INPUT_NAMES = Object.keys(INPUT_DEFAULTS) as InputName[];

export interface LiveInputs extends Omit<LiveOptions, 'key'> {
  key: string;
  /** What to do when the key is empty: run the scripted model with a notice, or fail. */
  fallback: 'scripted' | 'fail';
}

/** The run as the user chose it (the engine's own options, engine/options.ts) and what only the action has. */
export type ActionInputs = RunSettings & {
  /** model: live — the provider; `key` may be '' (a fork PR gets no secrets): see liveFallback. */
  live?: LiveInputs;
  /** model: replay — the recorded live run. */
  replay?: ReplayOptions;
  baseline: BaselineSource;
  /** The team's build, run in each tree with baseline: base (`sh -c`); absent = no build. */
  build?: string;
  /** baseline: base: selectors of the cases run on the base tree; absent = the same as head. */
  baseCases?: string[];
  saveBaseline: 'auto' | 'true' | 'false';
  /** baseline: base on a harness bump that regressed: bisect the releases in between, within these caps. */
  bisect?: { maxVersions: number; maxTrials: number };
  /** Everything the gate needs (fail-on, thresholds, alpha…), as the CLI's `compare` builds it too. */
  gate: GateOptions;
  githubToken: string;
  comment: boolean;
  /** Create a check run (false in shard jobs: the merge job reports). */
  checkRun: boolean;
  annotations: boolean;
  /** Where this run's result is written (resolved default: .harness-risk/{adapter}-{config}[-shard-i-of-n].json). */
  resultPath?: string;
  /** Report-only mode: existing run results to report on (merged when several). */
  runResult: string[];
  /** With `run-result` on a `workflow_run` event: the pull request to report on (fork PRs, see README). */
  pullRequest?: number;
  sarif?: string;
  junit?: string;
};

export class InputError extends Error {
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(`Input "${input}": ${message}`);
    this.name = 'InputError';
  }
}

/** The inputs only the action has (the run's and the gate's are engine/options.ts and gate/options.ts). */
const ActionFields = z.object({
  baseline: z.string().transform((v, ctx): BaselineSource => {
    const source = parseBaselineSource(v);
    if (source) return source;
    ctx.addIssue({
      code: 'custom',
      message: `"${v}" is not a baseline source; write file:PATH (a committed run result), cache (the base branch's latest result), base (build and run the pull request's base commit in this job) or none`,
    });
    return z.NEVER;
  }),
  build: z.string(),
  'base-cases': z.string().transform(list),
  'save-baseline': oneOf(['auto', 'true', 'false'] as const),
  bisect: bool,
  'bisect-max-versions': int(1, 64, 'versions tried by the bisect'),
  'bisect-max-trials': int(1, 100_000, 'trials run by the bisect'),
  // An unevaluated expression (a local runner that does not evaluate `${{ github.token }}`) is no token.
  'github-token': z.string().transform((v) => (/^\$\{\{.*\}\}$/.test(v) ? '' : v)),
  comment: bool,
  'check-run': bool,
  annotations: bool,
  'pull-request': z.string().transform((v, ctx): number | undefined => {
    if (v.trim() === '') return undefined;
    if (!/^\d+$/.test(v.trim()) || Number(v) < 1) {
      ctx.addIssue({ code: 'custom', message: `"${v}" is not a pull request number` });
      return z.NEVER;
    }
    return Number(v);
  }),
  'result-path': z.string(),
  'run-result': z.string().transform(list),
  sarif: z.string(),
  junit: z.string(),
  'model-key': z.string(),
  'live-fallback': oneOf(['scripted', 'fail'] as const),
});
const ACTION_FIELD_NAMES = Object.keys(ActionFields.shape) as InputName[];

/** FieldError → InputError: the message names the input. */
function asInput<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof FieldError) throw new InputError(e.field, e.problem);
    throw e;
  }
}

/**
 * Reads and validates every input. `get` returns the raw (trimmed) value, '' when unset — core.getInput.
 * Throws InputError naming the first bad input.
 */
export function parseInputs(get: (name: InputName) => string): ActionInputs {
  const raw = (n: string) => get(n as InputName);
  const run = asInput(() => parseFields(RunSettingFields, RUN_SETTING_NAMES, raw));
  const gate = asInput(() => parseFields(GateOptionFields, GATE_OPTION_NAMES, raw));
  const v = asInput(() => parseFields(ActionFields, ACTION_FIELD_NAMES, raw));
  const reportOnly = v['run-result'].length > 0;
  if (/[,\n]/.test(run.settings.config)) {
    throw new InputError(
      'config',
      `"${run.settings.config}" names several configurations; the action runs one per step: use a matrix (see examples/workflows/matrix.yml)`,
    );
  }
  if (run.settings.wiring) Object.assign(run.settings, wiringSettings(run.settings));
  if (!reportOnly) checkRunInputs(run.settings);
  if (v.baseline.kind !== 'base' && (v['base-cases'].length || v.build.trim() || v.bisect)) {
    throw new InputError(
      v.build.trim() ? 'build' : v.bisect ? 'bisect' : 'base-cases',
      'is only used with baseline: base (it builds and runs the base commit); set baseline: base, or build your harness in a step before this one',
    );
  }
  return {
    ...run.settings,
    ...(reportOnly ? {} : modelInputs(run, v)),
    baseline: v.baseline,
    ...(v.build.trim() ? { build: v.build.trim() } : {}),
    ...(v['base-cases'].length ? { baseCases: v['base-cases'] } : {}),
    saveBaseline: v['save-baseline'],
    ...(v.bisect
      ? { bisect: { maxVersions: v['bisect-max-versions'], maxTrials: v['bisect-max-trials'] } }
      : {}),
    gate,
    githubToken: v['github-token'],
    comment: v.comment,
    checkRun: v['check-run'],
    annotations: v.annotations,
    ...(v['result-path'] ? { resultPath: v['result-path'] } : {}),
    runResult: v['run-result'],
    ...(v['pull-request'] ? { pullRequest: v['pull-request'] } : {}),
    ...(v.sarif ? { sarif: v.sarif } : {}),
    ...(v.junit ? { junit: v.junit } : {}),
  };
}

/** `wiring:` names the harness and its configuration: `adapter`/`config` with it are a contradiction. */
function wiringSettings(run: RunSettings): Pick<RunSettings, 'adapter' | 'config'> {
  if (run.adapter || run.config)
    throw new InputError(
      run.adapter ? 'adapter' : 'config',
      `is set together with wiring: ${run.wiring}, whose harness: and config: name them; drop it`,
    );
  const w = loadWiring(run.wiring!);
  return { adapter: wiringAdapterRef(w), config: w.wiring.name };
}

/** What a run of cases needs (report-only mode runs none): an adapter, one configuration, the runner's image. */
function checkRunInputs(run: RunSettings) {
  if (run.adapter === '') {
    throw new InputError(
      'adapter',
      'is required (a built-in adapter such as "reference", or the path of your adapter folder or adapter.yaml), unless run-result names results to report on',
    );
  }
  if (run.config === '') {
    throw new InputError(
      'config',
      'is required: the name of one configuration of the adapter (e.g. "guarded")',
    );
  }
  const problem = settingsProblem(run);
  if (problem) throw new InputError(problem.field, problem.problem);
}

/** The model inputs: live needs a base URL and a model name (the key may be empty: see live-fallback). */
function modelInputs(
  run: ParsedRunSettings,
  v: z.output<typeof ActionFields>,
): Pick<ActionInputs, 'model' | 'live' | 'replay'> {
  // The key is checked by engineModel (action/live.ts): an empty one may fall back to the scripted model.
  const { live, ...options } = asInput(() => modelOptionsOf(run.settings.model, run.model, v['model-key']));
  return live ? { ...options, live: { ...live, fallback: v['live-fallback'] } } : options;
}

/** The default result path: `.harness-risk/{adapter}-{config}[-shard-i-of-n].json` (names made file-safe). */
export function defaultResultPath(adapter: string, config: string, shard?: Shard): string {
  const base = (s: string) => {
    const parts = s.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
    const last = parts.at(-1) ?? '';
    return /^adapter\.ya?ml$/.test(last) ? (parts.at(-2) ?? 'adapter') : last.replace(/\.ya?ml$/, '');
  };
  const safe = (s: string) => base(s).replace(/[^A-Za-z0-9._-]/g, '_') || 'adapter';
  return `.harness-risk/${safe(adapter)}-${safe(config)}${shard ? `-shard-${shard.index}-of-${shard.total}` : ''}.json`;
}
