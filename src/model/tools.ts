// Mapping an abstract action onto a tool the harness offers in this very request. Order of preference:
// the adapter's hint for the action, then a native tool found by name and argument schema, then the
// harness's shell tool running the equivalent command (`via_shell`). Mapping never invents a tool: a
// harness that offers neither gets no call, and the step is recorded as unmapped.
// Here: the order itself (mapAction, nativeCall); each preference has its module (tool-hints.ts,
// native-tools.ts, shell-tool.ts), the action is prepared by prepare-action.ts.
import type { ScriptContext } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import type { ToolSpec } from './conversation.js';
import { native } from './native-tools.js';
import { prepareAction } from './prepare-action.js';
import { viaShell } from './shell-tool.js';
import { fromHint } from './tool-hints.js';
import type { MappedCall } from './tool-schema.js';

/** The harness's own tool for a prepared action: the adapter's hint, else one found by name and schema. */
export function nativeCall(action: Action, tools: ToolSpec[], ctx: ScriptContext): MappedCall | undefined {
  const offered = tools.filter((t) => t.callable);
  return fromHint(action, offered, ctx) ?? native(action, offered, ctx.paths.workspace, ctx.mcp_server);
}

/** The first route for an action: a native tool, else the shell running the equivalent command. */
export function mapAction(input: Action, tools: ToolSpec[], ctx: ScriptContext): MappedCall | undefined {
  if (input.do === 'reply') return undefined;
  const action = prepareAction(input, ctx);
  return (
    nativeCall(action, tools, ctx) ??
    viaShell(
      action,
      tools.filter((t) => t.callable),
      ctx,
    )
  );
}

/** The native tools a route may combine: reading and writing whole files. */
export const nativeRead = (path: string, tools: ToolSpec[], ctx: ScriptContext) =>
  nativeCall({ do: 'read', path }, tools, ctx);
export const nativeWrite = (path: string, content: string, tools: ToolSpec[], ctx: ScriptContext) =>
  nativeCall({ do: 'write', path, content, append: false }, tools, ctx);
