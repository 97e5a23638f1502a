// The harness's tools for MCP: its proxies of an MCP server's tools (isMcpProxy), the generic mcp_call
// kind, and the MCP tools that are routes to a service op (the CI actions' GitHub servers).
import type { Action } from '../spec/actions.js';
import { toolArgs, toolsForOp } from '../spec/github-mcp.js';
import type { ToolSpec } from './conversation.js';
import type { CallAction } from './prepare-action.js';
import { mcpCallTarget } from './shell.js';
import { argName, type Candidate, findTool, fitCall, type MappedCall } from './tool-schema.js';

/**
 * The harness's proxies for the MCP tools that are routes to the service's operation (spec/github-mcp.ts:
 * the CI actions' GitHub servers), with the tool's arguments for the call, in table order.
 */
export function serviceMcpCalls(
  action: CallAction,
  tools: ToolSpec[],
): [ToolSpec, Record<string, unknown>][] {
  return toolsForOp(action.service, action.op).flatMap(({ server, name, tool }) => {
    const offered = tools.find((t) => t.callable && isMcpProxy(t.name, name, server));
    const args = offered && toolArgs(tool, action.op, action.args);
    return offered && args ? [[offered, args] as [ToolSpec, Record<string, unknown>]] : [];
  });
}

/** A name's words: its letters and digits between separators (`mcp__team.lookup-x` → mcp team lookup x). */
const words = (name: string): string[] =>
  name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

const endsWithWords = (name: string[], tail: string[]): boolean =>
  tail.length > 0 &&
  name.length >= tail.length &&
  tail.every((w, i) => name[name.length - tail.length + i] === w);

/**
 * Whether an offered tool is the harness's proxy for the MCP tool `wanted`: the served name itself, the
 * served name after a `__`, `.` or `/` namespace (mcp__team__lookup), or the registered server's name, any
 * separator, then the served name (opencode's team_lookup, Copilot's team-lookup). The server's name must
 * stand right before the served name, so an ordinary tool that merely ends like it (read_file for `file`)
 * never matches.
 */
export function isMcpProxy(offered: string, wanted: string, server?: string): boolean {
  if (offered === wanted) return true;
  if (offered.split(/__|[./]/).includes(wanted) && offered.endsWith(wanted)) return true;
  return server ? endsWithWords(words(offered), [...words(server), ...words(wanted)]) : false;
}

/** An MCP call goes to the harness's proxy tool for that MCP tool (isMcpProxy) or a generic mcp_call. */
export function mcpCandidate(
  op: string,
  args: Record<string, unknown>,
  tools: ToolSpec[],
  server: string | undefined,
): Candidate {
  if (op !== 'call') return undefined;
  const { tool: wanted, arguments: input } = mcpCallTarget(args);
  if (!wanted) return undefined;
  const direct = tools.find((t) => isMcpProxy(t.name, wanted, server));
  if (direct) return [direct, input];
  return genericMcp(wanted, input, tools);
}

function genericMcp(wanted: string, input: Record<string, unknown>, tools: ToolSpec[]): Candidate {
  const generic = findTool(tools, ['mcp_call', 'call_mcp_tool', 'mcp', 'use_mcp_tool']);
  if (!generic) return undefined;
  const toolArg = argName(generic, ['tool', 'tool_name', 'name']);
  const inputArg = argName(generic, ['arguments', 'args', 'input', 'params']);
  if (!toolArg || !inputArg) return [generic, undefined];
  return [generic, { [toolArg]: wanted, [inputArg]: input }];
}

/** The harness's generic MCP tool for an MCP call (a second route when a direct proxy tool exists). */
export function genericMcpCall(
  action: Extract<Action, { do: 'call' }>,
  tools: ToolSpec[],
  workspace: string,
): MappedCall | undefined {
  const { tool: wanted, arguments: input } = mcpCallTarget(action.args);
  const candidate = wanted
    ? genericMcp(
        wanted,
        input,
        tools.filter((t) => t.callable),
      )
    : undefined;
  if (!candidate?.[0] || !candidate[1]) return undefined;
  return fitCall(candidate[0], candidate[1], workspace);
}
