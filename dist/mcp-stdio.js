#!/usr/bin/env node
import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// src/world/mcp-stdio-cli.ts
import { createInterface } from "node:readline";

// src/sse.ts
function sseDataTexts(body) {
  const out = [];
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""));
    if (data.length) out.push(data.join("\n"));
  }
  return out;
}

// src/world/mcp-stdio.ts
var isObject = (x) => typeof x === "object" && x !== null && !Array.isArray(x);
function requestIds(message) {
  const all = Array.isArray(message) ? message : [message];
  return all.flatMap(
    (m) => isObject(m) && typeof m.method === "string" && (typeof m.id === "string" || typeof m.id === "number") ? [m.id] : []
  );
}
var rpcError = (id, message, code = -32603) => JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
function replyLines(reply) {
  const bodies = /text\/event-stream/i.test(reply.type) ? sseDataTexts(reply.text) : [reply.text];
  const lines = [];
  for (const body of bodies) {
    if (!body.trim()) continue;
    let parsed;
    try {
      parsed = JSON.parse(body);
    } catch {
      return void 0;
    }
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) lines.push(JSON.stringify(m));
  }
  return lines;
}
async function relayMcpStdio(io) {
  let session;
  for await (const raw of io.lines) {
    const line = raw.trim();
    if (!line) continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      io.write(rpcError(null, "parse error", -32700));
      continue;
    }
    const ids = requestIds(message);
    let reply;
    try {
      reply = await io.post(line, {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...session ? { "mcp-session-id": session } : {}
      });
    } catch (e) {
      for (const id of ids) io.write(rpcError(id, `MCP server unreachable: ${e.message}`));
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

// src/world/mcp-stdio-cli.ts
var url = process.argv[2];
if (!url || !/^https?:\/\//.test(url)) {
  process.stderr.write("usage: mcp-stdio URL (the MCP server over streamable HTTP, e.g. {{mcp_url}})\n");
  process.exit(2);
}
await relayMcpStdio({
  lines: createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY }),
  write: (line) => process.stdout.write(`${line}
`),
  post: async (body, headers) => {
    const res = await fetch(url, { method: "POST", headers, body });
    return {
      status: res.status,
      type: res.headers.get("content-type") ?? "",
      ...res.headers.get("mcp-session-id") ? { session: res.headers.get("mcp-session-id") } : {},
      text: await res.text()
    };
  }
});
