// The run command's model options (parsed with the other run flags, engine/options.ts). The key is read
// from the environment (HARNESS_RISK_MODEL_KEY), never a flag: flags show in `ps` and in shell history.
import { modelOptionsOf, type ParsedRunSettings, type RunOptions } from '../engine/options.js';
import { UserError } from '../errors.js';
import { asFlags } from './flags.js';

export const KEY_VARIABLE = 'HARNESS_RISK_MODEL_KEY';

export function modelOptionsFromFlags(
  parsed: ParsedRunSettings,
  env: NodeJS.ProcessEnv,
): Pick<RunOptions, 'model' | 'live' | 'replay'> {
  const options = asFlags(() => modelOptionsOf(parsed.settings.model, parsed.model, env[KEY_VARIABLE] ?? ''));
  if (options.live && !options.live.key)
    throw new UserError(
      `--model live needs the provider key in ${KEY_VARIABLE}`,
      `export ${KEY_VARIABLE}=… (it never reaches the harness, the result or the log)`,
    );
  return options;
}
