// `svc mcp list|call`: the JSON-RPC request to the MCP endpoint and the printing of its answer (a tool's
// text, or the tool list).
import { type Env, SvcError, type SvcIo, UsageError, withNewline } from './svc-plan.js';

export function rpc(method: string, params: unknown) {
  return { jsonrpc: '2.0', id: 1, method, params };
}

export function jsonArg(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`arguments must be JSON: ${text}`);
  }
}

export function toolText(result: any): string {
  const content: any[] = Array.isArray(result?.content) ? result.content : [];
  const text = content.map((c) => (typeof c?.text === 'string' ? c.text : JSON.stringify(c))).join('\n');
  if (result?.isError) throw new SvcError(`tool error: ${text}`);
  return text;
}

export function printRpc(pick: (result: any) => unknown) {
  return async (body: string, _env: Env, io: SvcIo): Promise<void> => {
    let reply: any;
    try {
      reply = JSON.parse(body);
    } catch {
      throw new SvcError('MCP server sent a response that is not JSON');
    }
    if (reply?.error) throw new SvcError(`MCP error ${reply.error.code}: ${reply.error.message}`);
    const picked = pick(reply?.result);
    io.stdout(withNewline(typeof picked === 'string' ? picked : JSON.stringify(picked, null, 2)));
  };
}
