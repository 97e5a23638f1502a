// The action's inputs: one zod schema from the raw strings GitHub passes (INPUT_* variables) to typed
// options. A bad value fails the step with a message naming the input and what to write instead.
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { MAX_TIMEOUT_S } from '../adapters/schema.js';
import type { LiveOptions, ReplayOptions, Shard } from '../engine/options.js';
import type { GateOptions } from '../gate/index.js';
import type { ThresholdSet } from '../gate/thresholds.js';
import {
  DEFAULT_FAIL_ON,
  FAIL_ON_VALUES,
  type FailOn,
  failOnFrom,
  MISSING_BASELINE_VALUES,
} from '../gate/verdict.js';
import { PROVIDERS } from '../model/live/client.js';
import { PHASES, type Phase } from '../spec/vocabulary.js';

/** Every input of action.yml, with the default action.yml declares (kept in step by a test). */
export const INPUT_DEFAULTS = {
  adapter: '',
  config: '',
  cases: '',
  runner: 'process',
  image: '',
  concurrency: '2',
  timeout: '',
  'max-consecutive-invalid': '10',
  model: 'scripted',
  seeds: '1',
  baseline: 'cache',
  build: '',
  'base-cases': '',
  'save-baseline': 'auto',
  'fail-on': DEFAULT_FAIL_ON,
  'on-missing-baseline': 'neutral',
  'max-invalid': '10%',
  'max-asr': '',
  'max-persistence': '',
  'min-css': '',
  'phase-thresholds': '',
  alpha: '0.05',
  'min-effect': '0.1',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a JS template
  'github-token': '${{ github.token }}',
  comment: 'true',
  'check-run': 'true',
  annotations: 'true',
  shard: '',
  'result-path': '',
  'run-result': '',
  'pull-request': '',
  sarif: '',
  junit: '',
  // ---- live models (issue 19): model: live|replay ----
  provider: 'openai-compatible',
  'base-url': '',
  'model-name': '',
  'model-key': '',
  temperature: '',
  'max-tokens': '',
  'budget-requests': '',
  'budget-tokens': '',
  'replay-from': '',
  'replay-diverged': 'stop',
  'live-fallback': 'scripted',
} as const;

export type InputName = keyof typeof INPUT_DEFAULTS;
export const INPUT_NAMES = Object.keys(INPUT_DEFAULTS) as InputName[];

export interface LiveInputs extends Omit<LiveOptions, 'key'> {
  key: string;
  /** What to do when the key is empty: run the scripted model with a notice, or fail. */
  fallback: 'scripted' | 'fail';
}

export type BaselineSource =
  | { kind: 'none' }
  | { kind: 'cache' }
  | { kind: 'file'; path: string }
  /** Build the pull request's base commit in this job and run the same cases on it (engine/base-head.ts). */
  | { kind: 'base' };

export interface ActionInputs {
  adapter: string;
  config: string;
  cases: string[];
  runner: 'process' | 'process-uncontained' | 'docker';
  image?: string;
  concurrency: number;
  /** Stop after this many invalid trials in a row (0 = off): a harness that never starts. */
  maxConsecutiveInvalid: number;
  timeoutS?: number;
  model: 'scripted' | 'live' | 'replay';
  seeds: number;
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
  /** Everything the gate needs (fail-on, thresholds, alpha…), as the CLI's `compare` builds it too. */
  gate: GateOptions;
  githubToken: string;
  comment: boolean;
  /** Create a check run (false in shard jobs: the merge job reports). */
  checkRun: boolean;
  annotations: boolean;
  shard?: Shard;
  /** Where this run's result is written (resolved default: .harness-risk/{adapter}-{config}[-shard-i-of-n].json). */
  resultPath?: string;
  /** Report-only mode: existing run results to report on (merged when several). */
  runResult: string[];
  /** With `run-result` on a `workflow_run` event: the pull request to report on (fork PRs, see README). */
  pullRequest?: number;
  sarif?: string;
  junit?: string;
}

export class InputError extends Error {
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(`Input "${input}": ${message}`);
    this.name = 'InputError';
  }
}

const list = (s: string) =>
  s
    .split(/[\n,]/)
    .map((x) => x.trim())
    .filter((x) => x !== '' && !x.startsWith('#'));

const TRUE = ['true', 'True', 'TRUE'];
const FALSE = ['false', 'False', 'FALSE'];
const bool = z.string().transform((v, ctx) => {
  if (TRUE.includes(v)) return true;
  if (FALSE.includes(v)) return false;
  ctx.addIssue({ code: 'custom', message: `"${v}" is not a boolean; write true or false` });
  return z.NEVER;
});

const oneOf = <T extends string>(values: readonly T[]) =>
  z.string().transform((v, ctx) => {
    if ((values as readonly string[]).includes(v)) return v as T;
    ctx.addIssue({
      code: 'custom',
      message: `"${v}" is not one of ${values.map((x) => `"${x}"`).join(', ')}`,
    });
    return z.NEVER;
  });

const int = (min: number, max: number, what: string) =>
  z.string().transform((v, ctx) => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < min || n > max) {
      ctx.addIssue({
        code: 'custom',
        message: `"${v}" is not ${what} (a whole number from ${min} to ${max})`,
      });
      return z.NEVER;
    }
    return n;
  });

const optionalInt = (min: number, max: number, what: string) =>
  z.string().transform((v, ctx) => {
    if (v === '') return undefined;
    const n = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < min || n > max) {
      ctx.addIssue({
        code: 'custom',
        message: `"${v}" is not ${what} (a whole number from ${min} to ${max}), or leave it empty for no limit`,
      });
      return z.NEVER;
    }
    return n;
  });

/** A fraction: `0.1`, or a percentage `10%`. */
function fraction(v: string): number | undefined {
  const m = v.match(/^(\d+(?:\.\d+)?|\.\d+)\s*(%?)$/);
  if (!m) return undefined;
  const n = Number(m[1]) / (m[2] ? 100 : 1);
  return n >= 0 && n <= 1 ? n : undefined;
}

const optionalFraction = (what: string) =>
  z.string().transform((v, ctx) => {
    if (v === '') return undefined;
    const n = fraction(v);
    if (n === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `"${v}" is not ${what}; write a fraction from 0 to 1 (e.g. 0.05) or a percentage (e.g. 5%)`,
      });
      return z.NEVER;
    }
    return n;
  });

const requiredFraction = (what: string, exclusiveZero = false) =>
  z.string().transform((v, ctx) => {
    const n = fraction(v);
    if (n === undefined || (exclusiveZero && (n === 0 || n === 1))) {
      ctx.addIssue({
        code: 'custom',
        message: `"${v}" is not ${what}; write a number ${exclusiveZero ? 'between 0 and 1 (exclusive), e.g. 0.05' : 'from 0 to 1, e.g. 0.1, or a percentage, e.g. 10%'}`,
      });
      return z.NEVER;
    }
    return n;
  });

/** `phase-thresholds`: YAML or JSON mapping phase → {max-asr, max-persistence, min-css}. */
const thresholdValue = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const n = typeof v === 'number' ? (v >= 0 && v <= 1 ? v : undefined) : fraction(v.trim());
  if (n === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `${JSON.stringify(v)} is not a fraction from 0 to 1 or a percentage`,
    });
    return z.NEVER;
  }
  return n;
});
const PhaseThresholdSet = z
  .object({
    'max-asr': thresholdValue.optional(),
    'max-persistence': thresholdValue.optional(),
    'min-css': thresholdValue.optional(),
  })
  .strict();
const PhaseThresholds = z.record(z.string(), PhaseThresholdSet.nullable());

function parsePhaseThresholds(v: string, ctx: z.RefinementCtx): Partial<Record<Phase, ThresholdSet>> {
  if (v.trim() === '') return {};
  let raw: unknown;
  try {
    raw = parseYaml(v);
  } catch (e) {
    ctx.addIssue({
      code: 'custom',
      message: `not valid YAML/JSON (${(e as Error).message.split('\n')[0]}); write e.g. "runtime: {max-asr: 0}"`,
    });
    return {};
  }
  const parsed = PhaseThresholds.safeParse(raw ?? {});
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    ctx.addIssue({
      code: 'custom',
      message: `${i.path.join('.') || '(top level)'}: ${i.message}; write a mapping of phase to {max-asr, max-persistence, min-css}, e.g. "runtime: {max-asr: 0}"`,
    });
    return {};
  }
  const out: Partial<Record<Phase, ThresholdSet>> = {};
  for (const [phase, set] of Object.entries(parsed.data)) {
    if (!(PHASES as readonly string[]).includes(phase)) {
      ctx.addIssue({ code: 'custom', message: `unknown phase "${phase}"; phases are ${PHASES.join(', ')}` });
      continue;
    }
    if (!set) continue;
    out[phase as Phase] = {
      ...(set['max-asr'] !== undefined ? { maxAsr: set['max-asr'] } : {}),
      ...(set['max-persistence'] !== undefined ? { maxPersistence: set['max-persistence'] } : {}),
      ...(set['min-css'] !== undefined ? { minCss: set['min-css'] } : {}),
    };
  }
  return out;
}

const RawInputs = z.object({
  adapter: z.string(),
  config: z.string().transform((v, ctx) => {
    if (/[,\n]/.test(v)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${v}" names several configurations; the action runs one per step: use a matrix (see examples/workflows/matrix.yml)`,
      });
      return z.NEVER;
    }
    return v;
  }),
  cases: z.string().transform(list),
  runner: oneOf(['process', 'process-uncontained', 'docker'] as const),
  image: z.string(),
  concurrency: int(1, 64, 'a concurrency'),
  'max-consecutive-invalid': int(0, 1_000_000, 'a number of trials (0 turns the fail-fast off)'),
  timeout: z.string().transform((v, ctx) => {
    if (v === '') return undefined;
    const m = v.match(/^(\d+)\s*(s|m|min)?$/);
    const n = m ? Number(m[1]) * (m[2] && m[2] !== 's' ? 60 : 1) : Number.NaN;
    if (!(n >= 1 && n <= MAX_TIMEOUT_S)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${v}" is not a per-trial timeout; write seconds (e.g. 120) or minutes (e.g. 5m), or leave it empty for the adapter's`,
      });
      return z.NEVER;
    }
    return n;
  }),
  model: oneOf(['scripted', 'live', 'replay'] as const),
  seeds: int(1, 100, 'a number of seeds'),
  baseline: z.string().transform((v, ctx): BaselineSource => {
    if (v === 'none' || v === '') return { kind: 'none' };
    if (v === 'cache') return { kind: 'cache' };
    if (v === 'base') return { kind: 'base' };
    if (v.startsWith('file:') && v.length > 5) return { kind: 'file', path: v.slice(5).trim() };
    ctx.addIssue({
      code: 'custom',
      message: `"${v}" is not a baseline source; write file:PATH (a committed run result), cache (the base branch's latest result), base (build and run the pull request's base commit in this job) or none`,
    });
    return z.NEVER;
  }),
  build: z.string(),
  'base-cases': z.string().transform(list),
  'save-baseline': oneOf(['auto', 'true', 'false'] as const),
  'fail-on': z.string().transform((v, ctx): FailOn => {
    const parts = list(v.replace(/\s*\|\s*/g, ','));
    const ok: readonly string[] = [...FAIL_ON_VALUES, 'never'];
    const bad = parts.filter((p) => !ok.includes(p));
    if (parts.length === 0 || bad.length || (parts.includes('never') && parts.length > 1)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${v}" is not valid; write a comma-separated list of ${FAIL_ON_VALUES.join(', ')} (default "${DEFAULT_FAIL_ON}"), or never`,
      });
      return z.NEVER;
    }
    return failOnFrom(parts);
  }),
  'on-missing-baseline': oneOf(MISSING_BASELINE_VALUES),
  'max-invalid': requiredFraction('a largest share of invalid trials'),
  'max-asr': optionalFraction('a maximum ASR'),
  'max-persistence': optionalFraction('a maximum persistence rate'),
  'min-css': optionalFraction('a minimum CSS'),
  'phase-thresholds': z.string().transform((v, ctx) => parsePhaseThresholds(v, ctx)),
  alpha: requiredFraction('a significance level', true),
  'min-effect': requiredFraction('a minimum effect'),
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
  shard: z.string().transform((v, ctx): Shard | undefined => {
    if (v === '') return undefined;
    const m = v.match(/^(\d+)\s*\/\s*(\d+)$/);
    const index = m ? Number(m[1]) : 0;
    const total = m ? Number(m[2]) : 0;
    if (!m || total < 1 || index < 1 || index > total) {
      ctx.addIssue({ code: 'custom', message: `"${v}" is not a shard; write i/n with 1 ≤ i ≤ n, e.g. 2/4` });
      return z.NEVER;
    }
    return { index, total };
  }),
  'result-path': z.string(),
  'run-result': z.string().transform(list),
  sarif: z.string(),
  junit: z.string(),
  // ---- live models ----
  provider: oneOf(PROVIDERS),
  'base-url': z.string().transform((v, ctx) => {
    if (v !== '' && !/^https?:\/\/[^\s]+$/.test(v)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${v}" is not a URL; write the provider's base URL with its version path, e.g. https://api.openai.com/v1`,
      });
      return z.NEVER;
    }
    return v;
  }),
  'model-name': z.string(),
  'model-key': z.string(),
  temperature: z.string().transform((v, ctx) => {
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
  }),
  'max-tokens': optionalInt(1, 1_000_000, 'a number of output tokens'),
  'budget-requests': optionalInt(1, 10_000_000, 'a number of provider requests'),
  'budget-tokens': optionalInt(1, 10_000_000_000, 'a number of tokens'),
  'replay-from': z.string(),
  'replay-diverged': oneOf(['stop', 'scripted'] as const),
  'live-fallback': oneOf(['scripted', 'fail'] as const),
});

/**
 * Reads and validates every input. `get` returns the raw (trimmed) value, '' when unset — core.getInput.
 * Throws InputError naming the first bad input.
 */
type ParsedInputs = z.infer<typeof RawInputs>;

const gateOf = (v: Pick<ParsedInputs, GateInputName>): GateOptions => ({
  failOn: v['fail-on'],
  onMissingBaseline: v['on-missing-baseline'],
  maxInvalid: v['max-invalid'],
  thresholds: {
    overall: {
      ...(v['max-asr'] !== undefined ? { maxAsr: v['max-asr'] } : {}),
      ...(v['max-persistence'] !== undefined ? { maxPersistence: v['max-persistence'] } : {}),
      ...(v['min-css'] !== undefined ? { minCss: v['min-css'] } : {}),
    },
    phases: v['phase-thresholds'],
  },
  alpha: v.alpha,
  minEffect: v['min-effect'],
});

/** The inputs that decide the verdict; the CLI's `compare` and `run` take them as flags of the same names. */
export const GATE_INPUTS = [
  'fail-on',
  'on-missing-baseline',
  'max-invalid',
  'max-asr',
  'max-persistence',
  'min-css',
  'phase-thresholds',
  'alpha',
  'min-effect',
] as const satisfies readonly InputName[];
export type GateInputName = (typeof GATE_INPUTS)[number];

function parseRaw<S extends z.ZodTypeAny>(
  schema: S,
  names: readonly InputName[],
  get: (name: InputName) => string,
) {
  const raw = Object.fromEntries(names.map((n) => [n, get(n) ?? '']));
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'unknown');
    throw new InputError(name, issue.message);
  }
  return parsed.data as z.infer<S>;
}

/**
 * The gate's options from raw values (action inputs or CLI flags); an unset value takes action.yml's
 * default, so both front ends gate the same way by default.
 */
export function parseGateInputs(get: (name: GateInputName) => string | undefined): GateOptions {
  const pick = Object.fromEntries(GATE_INPUTS.map((n) => [n, true])) as { [K in GateInputName]: true };
  const v = parseRaw(RawInputs.pick(pick), GATE_INPUTS, (n) => get(n as GateInputName) ?? INPUT_DEFAULTS[n]);
  return gateOf(v);
}

export function parseInputs(get: (name: InputName) => string): ActionInputs {
  const v: ParsedInputs = parseRaw(RawInputs, INPUT_NAMES, get);
  const reportOnly = v['run-result'].length > 0;
  if (!reportOnly && v.adapter === '') {
    throw new InputError(
      'adapter',
      'is required (a built-in adapter such as "reference", or the path of your adapter folder or adapter.yaml), unless run-result names results to report on',
    );
  }
  if (!reportOnly && v.config === '') {
    throw new InputError(
      'config',
      'is required: the name of one configuration of the adapter (e.g. "guarded")',
    );
  }
  if (v.runner === 'docker' && !reportOnly && v.image === '') {
    throw new InputError(
      'image',
      'is required with runner: docker (the image that holds your harness build)',
    );
  }
  if (v.baseline.kind !== 'base' && (v['base-cases'].length || v.build.trim())) {
    throw new InputError(
      v.build.trim() ? 'build' : 'base-cases',
      'is only used with baseline: base (it builds and runs the base commit); set baseline: base, or build your harness in a step before this one',
    );
  }
  return {
    ...modelInputs(v, reportOnly),
    adapter: v.adapter,
    config: v.config,
    cases: v.cases,
    runner: v.runner,
    ...(v.image ? { image: v.image } : {}),
    concurrency: v.concurrency,
    maxConsecutiveInvalid: v['max-consecutive-invalid'],
    ...(v.timeout !== undefined ? { timeoutS: v.timeout } : {}),
    seeds: v.seeds,
    baseline: v.baseline,
    ...(v.build.trim() ? { build: v.build.trim() } : {}),
    ...(v['base-cases'].length ? { baseCases: v['base-cases'] } : {}),
    saveBaseline: v['save-baseline'],
    gate: gateOf(v),
    githubToken: v['github-token'],
    comment: v.comment,
    checkRun: v['check-run'],
    annotations: v.annotations,
    ...(v.shard ? { shard: v.shard } : {}),
    ...(v['result-path'] ? { resultPath: v['result-path'] } : {}),
    runResult: v['run-result'],
    ...(v['pull-request'] ? { pullRequest: v['pull-request'] } : {}),
    ...(v.sarif ? { sarif: v.sarif } : {}),
    ...(v.junit ? { junit: v.junit } : {}),
  };
}

/** The model inputs: live needs a base URL and a model name (the key may be empty: see live-fallback). */
function modelInputs(v: ParsedInputs, reportOnly: boolean): Pick<ActionInputs, 'model' | 'live' | 'replay'> {
  if (v.model === 'scripted' || reportOnly) return { model: v.model };
  if (v.model === 'replay') {
    if (!v['replay-from'])
      throw new InputError(
        'replay-from',
        'is required with model: replay (the result file of a live run, e.g. .harness-risk/live-baseline.json)',
      );
    return { model: 'replay', replay: { from: v['replay-from'], on_divergence: v['replay-diverged'] } };
  }
  if (!v['base-url'])
    throw new InputError(
      'base-url',
      'is required with model: live (e.g. https://api.openai.com/v1 or https://api.anthropic.com/v1)',
    );
  if (!v['model-name'])
    throw new InputError(
      'model-name',
      'is required with model: live (the model the provider serves, e.g. gpt-4.1)',
    );
  return {
    model: 'live',
    live: {
      provider: v.provider,
      base_url: v['base-url'],
      model: v['model-name'],
      key: v['model-key'],
      ...(v.temperature !== undefined ? { temperature: v.temperature } : {}),
      ...(v['max-tokens'] !== undefined ? { max_tokens: v['max-tokens'] } : {}),
      ...(v['budget-requests'] !== undefined ? { budget_requests: v['budget-requests'] } : {}),
      ...(v['budget-tokens'] !== undefined ? { budget_tokens: v['budget-tokens'] } : {}),
      fallback: v['live-fallback'],
    },
  };
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
