// Entry point of `mcp-stdio URL` (bundled to dist/mcp-stdio.js, put on the trial's PATH): the trial's
// MCP server at URL as a stdio MCP server (src/world/mcp-stdio.ts).
import { createInterface } from 'node:readline';
import { relayMcpStdio } from './mcp-stdio.js';

const url = process.argv[2];
if (!url || !/^https?:\/\//.test(url)) {
  process.stderr.write('usage: mcp-stdio URL (the MCP server over streamable HTTP, e.g. {{mcp_url}})\n');
  process.exit(2);
}

await relayMcpStdio({
  lines: createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY }),
  write: (line) => process.stdout.write(`${line}\n`),
  post: async (body, headers) => {
    const res = await fetch(url, { method: 'POST', headers, body });
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      ...(res.headers.get('mcp-session-id') ? { session: res.headers.get('mcp-session-id')! } : {}),
      text: await res.text(),
    };
  },
});
