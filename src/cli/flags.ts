// The CLI's flag helpers: the run's and the gate's options parse through the same schemas as the
// action's inputs (engine/options.ts, gate/options.ts), named as flags in errors: `--seeds "0" is not …`.
import type { z } from 'zod';
import {
  acpCommand,
  type ParsedRunSettings,
  RUN_SETTING_DEFAULTS,
  RUN_SETTING_NAMES,
  RunSettingFields,
  type RunSettingName,
  settingsProblem,
} from '../engine/options.js';
import { RUNNER_NAMES, type RunnerName, runnerChoices } from '../engine/runners.js';
import { UserError } from '../errors.js';
import type { GateOptions } from '../gate/index.js';
import { GATE_OPTION_NAMES, type GateOptionName, parseGateOptions } from '../gate/options.js';
import { FieldError, parseFields } from '../input-fields.js';

/** A flag mistake; main.ts points it at the help of the command it was given to. */
export class FlagError extends UserError {
  constructor(readonly problem: string) {
    super(problem, 'run harness-risk --help');
  }
}

/** A bad option value as the CLI says it: the flag, what is wrong, where to look. */
export function flagError(e: FieldError): UserError {
  return new FlagError(`--${e.field} ${e.problem}`);
}

/** Runs a parse; a FieldError becomes the CLI's error naming the flag. */
export function asFlags<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof FieldError) throw flagError(e);
    throw e;
  }
}

/** parseArgs options for the run options: --adapter, --runner, --timeout, … (one per action input). */
export const RUN_FLAGS = Object.fromEntries(
  RUN_SETTING_NAMES.map((n) => [
    n,
    n === 'cases'
      ? { type: 'string', multiple: true }
      : n === 'activation'
        ? { type: 'boolean' }
        : { type: 'string' },
  ]),
) as {
  [K in RunSettingName]: K extends 'cases'
    ? { type: 'string'; multiple: true }
    : K extends 'activation'
      ? { type: 'boolean' }
      : { type: 'string' };
};

/** parseArgs options for the gate flags: --fail-on, --max-asr, … (one per action input). */
export const GATE_FLAGS = Object.fromEntries(
  GATE_OPTION_NAMES.map((n) => [n, { type: 'string' as const }]),
) as {
  [K in GateOptionName]: { type: 'string' };
};

type FlagValues<K extends string> = Partial<Record<K, string | string[] | boolean | undefined>>;

/** The run options from flags; an unset flag takes the action's default. */
export function runSettingsFromFlags(values: FlagValues<RunSettingName>): ParsedRunSettings {
  const parsed = asFlags(() =>
    parseFields(RunSettingFields, RUN_SETTING_NAMES, (n) => {
      const v = values[n as RunSettingName];
      // A switch (--activation) is a boolean flag; the schema reads it as the action's input text.
      return typeof v === 'boolean' ? String(v) : (v ?? RUN_SETTING_DEFAULTS[n as RunSettingName]);
    }),
  ) as z.output<typeof RunSettingFields>;
  const problem = settingsProblem(parsed.settings);
  if (problem) throw flagError(problem);
  return parsed;
}

export function gateOptionsFromFlags(
  values: Partial<Record<GateOptionName, string | undefined>>,
): GateOptions {
  return asFlags(() => parseGateOptions((n) => values[n]));
}

/** `--runner` of the commands that take no other run option (validate, doctor, matrix). */
export function runnerFlag(v: string | undefined, allowed: readonly RunnerName[] = RUNNER_NAMES): RunnerName {
  const name = v ?? RUN_SETTING_DEFAULTS.runner;
  if (!(allowed as readonly string[]).includes(name))
    throw new UserError(`--runner "${name}" is unknown`, `use ${runnerChoices(allowed)}`);
  return name as RunnerName;
}

/** A whole number ≥ 1 of a flag with no counterpart in the action (--replays), or its default. */
export function positiveInt(
  name: string,
  v: string | undefined,
  dflt: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UserError(`${name} "${v}" must be a positive whole number`);
  if (n > max) throw new UserError(`${name} "${v}" is more than ${max}`, `use at most ${max}`);
  return n;
}

/** `--acp-command` outside `run` (doctor): the same parse as the run option. */
export function acpCommandFlag(v: string | undefined): { acp_command?: string[] } {
  const parsed = asFlags(() => {
    const r = acpCommand.safeParse(v ?? '');
    if (!r.success) throw new FieldError('acp-command', r.error.issues[0]!.message);
    return r.data;
  });
  return parsed ? { acp_command: parsed } : {};
}
