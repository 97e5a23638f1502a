// The harness's shell tool (hinted, else found by name) running a command: mapping's fallback, the shell's
// primary form of an action (viaShell), and every shell route (shellCall).
import type { ScriptContext } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import { SYN } from './arg-synonyms.js';
import type { ToolSpec } from './conversation.js';
import { NAMES } from './native-tools.js';
import { resolvePath } from './prepare-action.js';
import { shellCommand } from './shell.js';
import { argName, findTool, fitCall, isArrayProp, type MappedCall } from './tool-schema.js';
import { toolsByShape } from './tool-shapes.js';

function shellTool(tools: ToolSpec[], ctx: ScriptContext): { tool: ToolSpec; arg: string } | undefined {
  const hint = ctx.tool_hints.shell ?? ctx.tool_hints.run;
  const hinted = hint && tools.find((t) => t.name === hint.name);
  if (hint && hinted)
    return { tool: hinted, arg: hint.args.command ?? argName(hinted, SYN.command) ?? 'command' };
  for (const tool of [...NAMES.shell.map((n) => findTool(tools, [n])), ...toolsByShape(tools, 'shell')]) {
    const arg = tool && argName(tool, SYN.command);
    if (tool && arg) return { tool, arg };
  }
  return undefined;
}

/** The shell's primary form for a prepared action (heredoc write, `svc`, `cat`). */
export function viaShell(action: Action, tools: ToolSpec[], ctx: ScriptContext): MappedCall | undefined {
  const memoryFile = ctx.memory_file ? resolvePath(ctx.memory_file, ctx.paths) : undefined;
  const command = shellCommand(action, memoryFile);
  return command === undefined ? undefined : shellCall(command, tools, ctx, action.do !== 'run');
}

/** A shell command through the harness's shell tool (hinted, else found by name), if it offers one. */
export function shellCall(
  command: string,
  tools: ToolSpec[],
  ctx: ScriptContext,
  via_shell = true,
): MappedCall | undefined {
  const shell = shellTool(
    tools.filter((t) => t.callable),
    ctx,
  );
  if (!shell) return undefined;
  const value = isArrayProp(shell.tool, shell.arg) ? ['bash', '-lc', command] : command;
  return fitCall(shell.tool, { [shell.arg]: value }, ctx.paths.workspace, via_shell);
}
