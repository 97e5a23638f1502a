// The trial's MCP servers as a program, for harnesses that start MCP servers only as programs over stdio
// (ACP requires every agent to take stdio servers; HTTP is optional). `mcp-stdio URL` (on the trial's PATH,
// `{{bin}}/mcp-stdio`) relays newline-delimited JSON-RPC from stdin to the server at URL over streamable
// HTTP and its replies back to stdout, one message a line. It only relays: the world's server records
// and answers every message as it does for a harness that speaks HTTP, so the evidence is the same.

import { sseDataTexts } from '../sse.js';

export interface HttpReply {
  status: number;
  /** The reply's content type (`application/json`, `text/event-stream`). */
  type: string;
  /** The Mcp-Session-Id header, when the server set one. */
  session?: string;
  text: string;
}

export interface RelayIo {
  lines: AsyncIterable<string>;
  write(line: string): void;
  post(body: string, headers: Record<string, string>): Promise<HttpReply>;
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** The ids of a message's requests (a batch's too): each gets an error when the server cannot answer. */
function requestIds(message: unknown): (string | number)[] {
  const all = Array.isArray(message) ? message : [message];
  return all.flatMap((m) =>
    isObject(m) && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')
      ? [m.id]
      : [],
  );
}

const rpcError = (id: string | number | null, message: string, code = -32603) =>
  JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });

/** The JSON-RPC messages of one reply, each as one line; undefined when the reply holds none. */
export function replyLines(reply: HttpReply): string[] | undefined {
  const bodies = /text\/event-stream/i.test(reply.type) ? sseDataTexts(reply.text) : [reply.text];
  const lines: string[] = [];
  for (const body of bodies) {
    if (!body.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined;
    }
    // A batch reply is written message by message: stdio frames one message a line.
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) lines.push(JSON.stringify(m));
  }
  return lines;
}

/** Relays until stdin ends; messages go one at a time, in order, so replies keep the requests' order. */
export async function relayMcpStdio(io: RelayIo): Promise<void> {
  let session: string | undefined;
  for await (const raw of io.lines) {
    const line = raw.trim();
    if (!line) continue;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      io.write(rpcError(null, 'parse error', -32700));
      continue;
    }
    const ids = requestIds(message);
    let reply: HttpReply;
    try {
      reply = await io.post(line, {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(session ? { 'mcp-session-id': session } : {}),
      });
    } catch (e) {
      for (const id of ids) io.write(rpcError(id, `MCP server unreachable: ${(e as Error).message}`));
      continue;
    }
    session = reply.session ?? session;
    if (reply.status === 202 || reply.status === 204) continue;
    const lines = replyLines(reply);
    if (lines?.length) {
      for (const l of lines) io.write(l);
      continue;
    }
    for (const id of ids) io.write(rpcError(id, `MCP server answered HTTP ${reply.status} without a reply`));
  }
}
