// Server-sent events, as read: one definition of where an event's data is, for the live model's streamed
// answers (model/live/translate.ts) and the MCP relay's streamed replies (world/mcp-stdio.ts).

/** The `data:` payload of each event of an SSE body (an event's several data lines joined by newlines). */
export function sseDataTexts(body: string): string[] {
  const out: string[] = [];
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''));
    if (data.length) out.push(data.join('\n'));
  }
  return out;
}
