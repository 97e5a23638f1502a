// The trial's MCP server as a stdio program (`mcp-stdio URL`), for harnesses and ACP agents that start MCP
// servers only as programs: a relay of newline-delimited JSON-RPC to the world's server over streamable
// HTTP. Table over the reply shapes (JSON, batch, event stream, 202, HTTP errors, unreachable), then the
// bundled program against the real world services: the calls it relays are recorded as any HTTP client's.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvidenceRecorder } from '../src/evidence/recorder.js';
import { actionRoot } from '../src/paths.js';
import { sseDataTexts } from '../src/sse.js';
import { type HttpReply, relayMcpStdio, replyLines } from '../src/world/mcp-stdio.js';
import { createServices, type ServicesHandler } from '../src/world/services.js';

async function relay(
  lines: string[],
  answer: (body: string, headers: Record<string, string>) => HttpReply | Error,
) {
  const out: string[] = [];
  const sent: { body: string; headers: Record<string, string> }[] = [];
  await relayMcpStdio({
    lines: (async function* () {
      yield* lines;
    })(),
    write: (l) => out.push(l),
    post: async (body, headers) => {
      sent.push({ body, headers });
      const r = answer(body, headers);
      if (r instanceof Error) throw r;
      return r;
    },
  });
  return { out: out.map((l) => JSON.parse(l)), sent };
}

const json = (x: unknown, status = 200): HttpReply => ({
  status,
  type: 'application/json',
  text: JSON.stringify(x),
});
const req = (id: number | string, method = 'tools/list') => JSON.stringify({ jsonrpc: '2.0', id, method });

describe('relayMcpStdio', () => {
  it('a JSON reply is one line; a notification (202) none; a batch one line per message', async () => {
    const { out } = await relay(
      [
        req(1),
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        `[${req(2)},${req(3)}]`,
      ],
      (body) =>
        body.includes('notifications')
          ? { status: 202, type: 'text/plain', text: '' }
          : body.startsWith('[')
            ? json([
                { jsonrpc: '2.0', id: 2, result: {} },
                { jsonrpc: '2.0', id: 3, result: {} },
              ])
            : json({ jsonrpc: '2.0', id: 1, result: { tools: [] } }),
    );
    expect(out.map((m) => m.id)).toEqual([1, 2, 3]);
  });

  it('reads an event-stream reply; keeps the session id the server set', async () => {
    const { out, sent } = await relay([req(1, 'initialize'), req(2)], (_b, headers) =>
      headers['mcp-session-id'] === 's-1'
        ? {
            status: 200,
            type: 'text/event-stream',
            text: `event: message\ndata: {"jsonrpc":"2.0",\ndata: "id":2,"result":{}}\n\n`,
          }
        : { ...json({ jsonrpc: '2.0', id: 1, result: {} }), session: 's-1' },
    );
    expect(out).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    expect(sent[0]!.headers['mcp-session-id']).toBeUndefined();
    expect(sent[1]!.headers).toMatchObject({
      'mcp-session-id': 's-1',
      accept: expect.stringContaining('text/event-stream'),
    });
  });

  it.each([
    ['an HTTP error without a reply', () => ({ status: 500, type: 'text/plain', text: 'boom' }), /HTTP 500/],
    ['an unreachable server', () => new Error('connect ECONNREFUSED'), /unreachable: connect ECONNREFUSED/],
  ])('%s: each request gets a JSON-RPC error, notifications nothing', async (_name, answer, message) => {
    const { out } = await relay(
      [req(7), JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x' })],
      answer,
    );
    expect(out).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32603, message: expect.stringMatching(message) } },
    ]);
  });

  it('a line that is not JSON gets a parse error and the relay goes on', async () => {
    const { out } = await relay(['not json', req(1)], () => json({ jsonrpc: '2.0', id: 1, result: {} }));
    expect(out).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } },
      { jsonrpc: '2.0', id: 1, result: {} },
    ]);
  });

  it('sseDataTexts and replyLines', () => {
    expect(sseDataTexts('data: a\n\n: comment\n\ndata: b\ndata: c\n\n')).toEqual(['a', 'b\nc']);
    expect(replyLines({ status: 200, type: 'application/json', text: '{"x":\n1}' })).toEqual(['{"x":1}']);
    expect(replyLines({ status: 400, type: 'text/html', text: '<h1>no</h1>' })).toBeUndefined();
  });
});

describe('the bundled mcp-stdio program against the world services', () => {
  let server: Server;
  let services: ServicesHandler;
  let url: string;
  beforeAll(async () => {
    const recorder = new EvidenceRecorder({});
    services = createServices(
      { mcp: { tools: [{ name: 'lookup', description: 'Looks things up', result: 'found 3' }] } },
      recorder,
      {},
    );
    server = createServer((q, s) => void services(q, s));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  });

  const program = (args: string[], input: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [join(actionRoot(), 'dist', 'mcp-stdio.js'), ...args]);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(input);
    });

  it('initialize, tools/list and tools/call through stdio, recorded as the server records any client', async () => {
    const { code, stdout } = await program(
      [url],
      [
        JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't' } },
        }),
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        req(1),
        JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'lookup', arguments: { q: 'x' } },
        }),
        '',
      ].join('\n'),
    );
    expect(code).toBe(0);
    const replies = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(replies.map((r) => r.id)).toEqual([0, 1, 2]);
    expect(replies[1].result.tools.map((t: { name: string }) => t.name)).toEqual(['lookup']);
    expect(replies[2].result.content[0].text).toBe('found 3');
    expect(services.state.mcp.calls).toEqual([{ name: 'lookup', arguments: { q: 'x' } }]);
  });

  it('says how to call it when the URL is missing', async () => {
    const { code, stderr } = await program([], '');
    expect(code).toBe(2);
    expect(stderr).toMatch(/usage: mcp-stdio URL/);
  });
});
