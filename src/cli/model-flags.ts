// The run command's model flags, turned into the engine's model options. The key is read from the
// environment (HARNESS_RISK_MODEL_KEY), never a flag: flags show in `ps` and in shell history.
import type { RunOptions } from '../engine/options.js';
import { UserError } from '../errors.js';
import { PROVIDERS, type ProviderKind } from '../model/live/client.js';
import { MODEL_MODES } from '../spec/run-result.js';

export const KEY_VARIABLE = 'HARNESS_RISK_MODEL_KEY';

export const MODEL_FLAGS = {
  model: { type: 'string' },
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  'model-name': { type: 'string' },
  temperature: { type: 'string' },
  'max-tokens': { type: 'string' },
  'budget-requests': { type: 'string' },
  'budget-tokens': { type: 'string' },
  'replay-from': { type: 'string' },
  'replay-diverged': { type: 'string' },
} as const;

type Flags = Partial<Record<keyof typeof MODEL_FLAGS, string | boolean | undefined>>;

const num = (flag: string, v: string | undefined, check: (n: number) => boolean, what: string) => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || !check(n)) throw new UserError(`--${flag} "${v}" must be ${what}`);
  return n;
};

export function modelOptionsFromFlags(
  values: Flags,
  env: NodeJS.ProcessEnv,
): Pick<RunOptions, 'model' | 'live' | 'replay'> {
  const s = (k: keyof typeof MODEL_FLAGS) =>
    typeof values[k] === 'string' ? (values[k] as string) : undefined;
  const model = s('model') ?? 'scripted';
  if (!(MODEL_MODES as readonly string[]).includes(model))
    throw new UserError(`--model "${model}" is unknown`, `use one of ${MODEL_MODES.join(', ')}`);
  if (model === 'scripted') return { model: 'scripted' };
  if (model === 'replay') {
    const diverged = s('replay-diverged') ?? 'stop';
    if (diverged !== 'stop' && diverged !== 'scripted')
      throw new UserError(`--replay-diverged "${diverged}" is unknown`, 'use stop or scripted');
    const from = s('replay-from');
    if (!from)
      throw new UserError('--model replay needs --replay-from FILE', 'the result JSON of a live run');
    return { model: 'replay', replay: { from, on_divergence: diverged } };
  }
  const provider = s('provider') ?? 'openai-compatible';
  if (!(PROVIDERS as readonly string[]).includes(provider))
    throw new UserError(`--provider "${provider}" is unknown`, `use one of ${PROVIDERS.join(', ')}`);
  const key = env[KEY_VARIABLE] ?? '';
  if (!key)
    throw new UserError(
      `--model live needs the provider key in ${KEY_VARIABLE}`,
      `export ${KEY_VARIABLE}=… (it never reaches the harness, the result or the log)`,
    );
  const int = (flag: keyof typeof MODEL_FLAGS) =>
    num(flag, s(flag), (n) => Number.isInteger(n) && n > 0, 'a positive whole number');
  return {
    model: 'live',
    live: {
      provider: provider as ProviderKind,
      base_url: s('base-url') ?? '',
      model: s('model-name') ?? '',
      key,
      temperature: num('temperature', s('temperature'), (n) => n >= 0 && n <= 2, 'a number from 0 to 2'),
      max_tokens: int('max-tokens'),
      budget_requests: int('budget-requests'),
      budget_tokens: int('budget-tokens'),
    },
  };
}
