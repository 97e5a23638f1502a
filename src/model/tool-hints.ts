// The first preference of mapping: the adapter's hint for the action (a tool name and its argument names),
// when the harness offers that tool in this request.
import type { ScriptContext } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import type { ToolSpec } from './conversation.js';
import {
  argName,
  fitCall,
  isArrayProp,
  type MappedCall,
  properties,
  taskNamingAgent,
} from './tool-schema.js';

type Hint = ScriptContext['tool_hints'][string];

/** An action's arguments under the names a hint renames (spec/tool-hint.ts STEP_ARGS; a write's `append`). */
export function abstractArgs(action: Action): Record<string, unknown> {
  switch (action.do) {
    case 'read':
      return { path: action.path };
    case 'write':
      return { path: action.path, content: action.content, ...(action.append ? { append: true } : {}) };
    case 'run':
      return { command: action.command };
    case 'fetch':
      return {
        url: action.url,
        method: action.method ?? 'GET',
        ...(action.body !== undefined ? { body: action.body } : {}),
      };
    case 'send':
      return {
        to: action.to,
        ...(action.subject !== undefined ? { subject: action.subject } : {}),
        body: action.body,
      };
    case 'call':
      return { ...action.args };
    case 'install':
      return { name: action.name };
    case 'delegate':
      return { task: action.task, agent: action.agent };
    case 'remember':
      return { text: action.text };
    case 'reply':
      return {};
  }
}

function hintKeys(action: Action): string[] {
  if (action.do === 'call') return [`${action.service}.${action.op}`, action.service, 'call'];
  if (action.do === 'send') return [`send.${action.channel}`, action.channel, 'send'];
  return [action.do];
}

/**
 * Arguments of an action a tool may do without: a fetch's default GET (a tool that only fetches), a mail's
 * subject, a delegate's agent name. Every other one carries the step: a hinted tool whose schema has no
 * place for it cannot do the step.
 */
function droppable(action: Action, key: string): boolean {
  if (action.do === 'fetch' && key === 'method') return (action.method ?? 'GET') === 'GET';
  return (action.do === 'send' && key === 'subject') || (action.do === 'delegate' && key === 'agent');
}

/**
 * The action's arguments under the tool's names. A tool whose schema names its properties gets only those
 * (a model sends no argument a tool does not declare, and a harness that validates its arguments refuses
 * the call); undefined when an argument that carries the step has no place in the schema.
 */
function renamed(action: Action, hint: Hint, tool: ToolSpec): Record<string, unknown> | undefined {
  const props = Object.keys(properties(tool));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(abstractArgs(action))) {
    const name = hint.args[key] ?? key;
    if (props.length && !props.includes(name)) {
      if (droppable(action, key)) continue;
      return undefined;
    }
    out[name] = key === 'command' && isArrayProp(tool, name) ? ['bash', '-lc', value] : value;
  }
  const taskName = hint.args.task ?? 'task';
  // The agent's name had no argument of its own: the task carries it.
  const agentDropped = 'agent' in abstractArgs(action) && !((hint.args.agent ?? 'agent') in out);
  if (action.do === 'delegate' && agentDropped && typeof out[taskName] === 'string')
    out[taskName] = taskNamingAgent(action.task, action.agent);
  return out;
}

export function fromHint(action: Action, tools: ToolSpec[], ctx: ScriptContext): MappedCall | undefined {
  for (const key of hintKeys(action)) {
    const hint = ctx.tool_hints[key];
    const tool = hint && tools.find((t) => t.name === hint.name);
    if (!hint || !tool) continue;
    // A write tool can append only when it has an argument for it; else the shell appends.
    if (action.do === 'write' && action.append && !hint.args.append && !argName(tool, ['append'])) continue;
    const args = renamed(action, hint, tool);
    if (!args) continue;
    const call = fitCall(tool, { ...args, ...hint.set }, ctx.paths.workspace);
    if (call) return call;
  }
  return undefined;
}
