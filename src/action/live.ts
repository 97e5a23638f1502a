// The action's model choice as engine options. A live run whose key input is empty (GitHub gives no
// secrets to workflows that fork pull requests trigger) falls back to the scripted model with a notice,
// or fails when `live-fallback: fail` says so: never a live run silently without a model.
import type { RunOptions } from '../engine/options.js';
import { type ActionInputs, InputError } from '../front/inputs.js';
import type { ActionContext } from './context.js';

export interface EngineModel {
  options: Pick<RunOptions, 'model' | 'live' | 'replay'>;
  /** Why the run does not use the model the inputs asked for. */
  notice?: string;
}

export function engineModel(inputs: ActionInputs, ctx: Pick<ActionContext, 'pullRequest'>): EngineModel {
  if (inputs.model === 'replay') return { options: { model: 'replay', replay: inputs.replay } };
  if (inputs.model !== 'live' || !inputs.live) return { options: { model: 'scripted' } };
  const { fallback, ...live } = inputs.live;
  if (live.key) return { options: { model: 'live', live } };
  const why = ctx.pullRequest?.isFork
    ? 'this pull request comes from a fork, and GitHub gives no secrets to workflows fork pull requests trigger'
    : // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a JS template
      'the model-key input is empty (is the secret set, and passed as model-key: ${{ secrets.NAME }}?)';
  if (fallback === 'fail')
    throw new InputError(
      'model-key',
      `is empty with model: live: ${why}. Set live-fallback: scripted to run the scripted model instead`,
    );
  return {
    options: { model: 'scripted' },
    notice: `model: live without a key: ${why}. This run uses the scripted worst-case model instead (live-fallback: scripted); its numbers are not comparable with a live baseline. See README, "Live models: fork pull requests".`,
  };
}
