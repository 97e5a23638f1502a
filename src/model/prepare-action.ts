// The action as tools take it: case paths made absolute, shorthand service ops (tickets.close) as the op
// they stand for, service calls that have a dedicated action form in that form.
import { absoluteCasePath } from '../cases/paths.js';
import type { ScriptContext } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import { opSpec } from '../spec/service-catalog.js';

type Paths = ScriptContext['paths'];
export type CallAction = Extract<Action, { do: 'call' }>;

/** The absolute path a case path names as the harness sees the trial (the notation of cases/paths.ts). */
export const resolvePath = (p: string, paths: Paths): string => absoluteCasePath(p, paths);

/** The action with every path made absolute (tools such as Claude Code's Read refuse relative paths). */
export function absolutize(action: Action, paths: Paths): Action {
  if (action.do === 'read' || action.do === 'write')
    return { ...action, path: resolvePath(action.path, paths) };
  return action;
}

/** A shorthand op (tickets.close) becomes the op it stands for, with its arguments (catalog `as`). */
function normalizeCall(action: CallAction): CallAction {
  const as = opSpec(action.service, action.op)?.as;
  return as ? { ...action, op: as.op, args: { ...as.args, ...action.args } } : action;
}

/** Service calls that have a dedicated action form (mail.send, chat.post, registry.install). */
function asDedicated(action: CallAction): Action | undefined {
  const { service, op, args } = action;
  const s = (k: string) => (args[k] === undefined ? undefined : String(args[k]));
  if (service === 'mail' && op === 'send') {
    return { do: 'send', channel: 'mail', to: s('to') ?? '', subject: s('subject'), body: s('body') ?? '' };
  }
  if (service === 'chat' && op === 'post') {
    return {
      do: 'send',
      channel: 'chat',
      to: s('channel') ?? s('to') ?? '',
      body: s('text') ?? s('body') ?? '',
    };
  }
  if (service === 'registry' && op === 'install') return { do: 'install', name: s('name') ?? '' };
  return undefined;
}

/** The action as tools take it: absolute paths, tickets.close as update, service calls in their dedicated form. */
export function prepareAction(input: Action, ctx: ScriptContext): Action {
  const action = absolutize(input, ctx.paths);
  if (action.do !== 'call') return action;
  return asDedicated(normalizeCall(action)) ?? normalizeCall(action);
}
