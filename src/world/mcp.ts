// A minimal MCP server over streamable HTTP with JSON responses: initialize, notifications, ping,
// tools/list and tools/call, serving the case's tools. Tool descriptions and results are where MCP cases
// hide their injections, so both are passed through verbatim.

import type { LiveState } from '../evidence/services-state.js';
import type { Ctx, Result } from './services-routes.js';

const PROTOCOL_VERSION = '2025-06-18';

type Rpc = { jsonrpc: '2.0'; id: string | number | null } & (
  | { result: unknown }
  | { error: { code: number; message: string } }
);

const rpcError = (id: Rpc['id'], code: number, message: string): Rpc => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

/** What an MCP server offers: its name, its tool listing and how one tools/call is answered. */
export interface ToolServer {
  name: string;
  tools(): unknown[];
  call(params: Record<string, unknown>): Outcome;
}

/** Handles one POST /mcp body (a message or a batch); op is the method name(s) for the record. */
export function handleMcp(ctx: Ctx, st: LiveState): Result {
  return serveRpc(ctx, {
    name: 'harness-risk-mcp',
    tools: () => st.mcp.tools.map(toolListing),
    call: (params) => callTool(params, st),
  });
}

/** One POST body of an MCP server over streamable HTTP (JSON responses): a message or a batch. */
export function serveRpc(ctx: Ctx, server: ToolServer): Result {
  let message: unknown;
  try {
    message = JSON.parse(ctx.text);
  } catch {
    return { status: 400, json: rpcError(null, -32700, 'parse error'), op: 'parse_error' };
  }
  const batch = Array.isArray(message) ? message : [message];
  const op = batch.map((m) => (isObject(m) && typeof m.method === 'string' ? m.method : 'invalid')).join(',');
  const replies = batch.map((m) => handleMessage(m, server)).filter((r): r is Rpc => r !== undefined);
  const headers = op.includes('initialize') ? { 'mcp-session-id': 'harness-risk-mcp' } : undefined;
  if (replies.length === 0) return { status: 202, text: '', type: 'text/plain', op, headers };
  return { status: 200, json: Array.isArray(message) ? replies : replies[0], op, headers };
}

/** The reply to one JSON-RPC message; undefined for notifications (no id). */
function handleMessage(message: unknown, server: ToolServer): Rpc | undefined {
  if (!isObject(message) || message.jsonrpc !== '2.0' || typeof message.method !== 'string') {
    return rpcError(null, -32600, 'invalid request');
  }
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  const notification = !('id' in message);
  const params = isObject(message.params) ? message.params : {};
  const outcome = dispatch(message.method, params, server);
  if (notification) return undefined;
  return 'error' in outcome
    ? rpcError(id, outcome.error.code, outcome.error.message)
    : { jsonrpc: '2.0', id, ...outcome };
}

export type Outcome = { result: unknown } | { error: { code: number; message: string } };

function dispatch(method: string, params: Record<string, unknown>, server: ToolServer): Outcome {
  switch (method) {
    case 'initialize':
      return {
        result: {
          protocolVersion:
            typeof params.protocolVersion === 'string' ? params.protocolVersion : PROTOCOL_VERSION,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: server.name, version: '1.0.0' },
        },
      };
    case 'ping':
      return { result: {} };
    case 'tools/list':
      return { result: { tools: server.tools() } };
    case 'tools/call':
      return server.call(params);
    default:
      if (method.startsWith('notifications/')) return { result: {} };
      return { error: { code: -32601, message: `method not found: ${method}` } };
  }
}

function toolListing(tool: LiveState['mcp']['tools'][number]) {
  return {
    name: tool.name,
    description: tool.description,
    // Loose on purpose: the mock accepts any arguments, and a strict schema would make harnesses refuse calls.
    inputSchema: {
      type: 'object',
      properties: { input: { type: 'string', description: 'Free-form input for the tool.' } },
      additionalProperties: true,
    },
  };
}

function callTool(params: Record<string, unknown>, st: LiveState): Outcome {
  const tool = st.mcp.tools.find((t) => t.name === params.name);
  if (!tool) return { error: { code: -32602, message: `unknown tool: ${String(params.name)}` } };
  st.mcp.calls.push({ name: tool.name, arguments: params.arguments ?? {} });
  return { result: { content: [{ type: 'text', text: tool.result }], isError: false } };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
