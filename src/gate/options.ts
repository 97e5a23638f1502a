// The gate's options (fail-on, thresholds, alpha…) from raw values: one schema for the action's inputs
// and the CLI's flags of the same names, so both front ends gate the same way, by the same defaults.
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { fraction, list, oneOf, optionalFraction, parseFields, requiredFraction } from '../input-fields.js';
import { PHASES, type Phase } from '../spec/vocabulary.js';
import type { GateOptions } from './index.js';
import { THRESHOLD_METRICS, type ThresholdInput, type ThresholdSet, thresholdSet } from './thresholds.js';
import {
  DEFAULT_FAIL_ON,
  FAIL_ON_VALUES,
  type FailOn,
  failOnFrom,
  MISSING_BASELINE_VALUES,
} from './verdict.js';

/** Each gate option with its default (action.yml declares the same: a test keeps them in step). */
export const GATE_OPTION_DEFAULTS = {
  'fail-on': DEFAULT_FAIL_ON,
  'on-missing-baseline': 'neutral',
  'max-invalid': '10%',
  'max-asr': '',
  'max-persistence': '',
  'max-activated': '',
  'min-css': '',
  'phase-thresholds': '',
  alpha: '0.05',
  'min-effect': '0.1',
} as const;

export type GateOptionName = keyof typeof GATE_OPTION_DEFAULTS;
export const GATE_OPTION_NAMES = Object.keys(GATE_OPTION_DEFAULTS) as GateOptionName[];

/** The keys of one phase's thresholds, in words: `{max-asr, max-persistence, …}`. */
const THRESHOLD_KEYS = `{${THRESHOLD_METRICS.map((m) => m.input).join(', ')}}`;

/** `phase-thresholds`: YAML or JSON mapping phase → {max-asr, max-persistence, max-activated, min-css}. */
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
  .object(Object.fromEntries(THRESHOLD_METRICS.map((m) => [m.input, thresholdValue.optional()])))
  .strict() as z.ZodType<Partial<Record<ThresholdInput, number>>>;
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
      message: `${i.path.join('.') || '(top level)'}: ${i.message}; write a mapping of phase to ${THRESHOLD_KEYS}, e.g. "runtime: {max-asr: 0}"`,
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
    out[phase as Phase] = thresholdSet(set);
  }
  return out;
}

const failOn = z.string().transform((v, ctx): FailOn => {
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
});

/** The gate options' schema: raw strings in, GateOptions out. */
export const GateOptionFields = z
  .object({
    'fail-on': failOn,
    'on-missing-baseline': oneOf(MISSING_BASELINE_VALUES),
    'max-invalid': requiredFraction('a largest share of invalid trials'),
    'max-asr': optionalFraction('a maximum ASR'),
    'max-persistence': optionalFraction('a maximum persistence rate'),
    'max-activated': optionalFraction('a maximum activated-persistence rate'),
    'min-css': optionalFraction('a minimum CSS'),
    'phase-thresholds': z.string().transform((v, ctx) => parsePhaseThresholds(v, ctx)),
    alpha: requiredFraction('a significance level', true),
    'min-effect': requiredFraction('a minimum effect'),
  })
  .transform(
    (v): GateOptions => ({
      failOn: v['fail-on'],
      onMissingBaseline: v['on-missing-baseline'],
      maxInvalid: v['max-invalid'],
      thresholds: {
        overall: thresholdSet(v),
        phases: v['phase-thresholds'],
      },
      alpha: v.alpha,
      minEffect: v['min-effect'],
    }),
  );

/**
 * The gate's options from raw values (action inputs or CLI flags); an unset value (undefined) takes the
 * default. Throws FieldError naming the first bad option.
 */
export function parseGateOptions(get: (name: GateOptionName) => string | undefined): GateOptions {
  return parseFields(GateOptionFields, GATE_OPTION_NAMES, (n) => {
    const name = n as GateOptionName;
    return get(name) ?? GATE_OPTION_DEFAULTS[name];
  });
}
