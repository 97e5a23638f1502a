// pi `--mode json`: JSON lines of agent events. Tools run between `tool_execution_start` and
// `tool_execution_end` (`isError`, `result.content`). pi has no approvals; a tool left out with --tools
// answers "Tool X not found", which is the harness refusing the call.
import type { HarnessEvent } from '../../evidence/types.js';
import { cap, contentText, dedupe, jsonLines, obj, str } from './util.js';

export function parsePi(stdout: string, stderr: string): HarnessEvent[] {
  const events: HarnessEvent[] = [];
  for (const ev of jsonLines(stdout)) {
    const type = str(ev.type);
    if (type === 'tool_execution_start') {
      events.push({ kind: 'tool', tool: str(ev.toolName), text: cap(ev.args) });
    } else if (type === 'tool_execution_end' && ev.isError === true) {
      const text = contentText(obj(ev.result).content);
      events.push({
        kind: /\btool \S+ not found\b/i.test(text) ? 'denial' : 'error',
        tool: str(ev.toolName),
        text: cap(text),
      });
    } else if (type === 'message_end') {
      const msg = obj(ev.message);
      if (msg.role === 'assistant' && (msg.stopReason === 'error' || str(msg.errorMessage))) {
        events.push({ kind: 'error', text: cap(str(msg.errorMessage) ?? 'model error') });
      }
    }
  }
  for (const line of stderr.split('\n')) {
    const l = line.trim();
    if (/^error\b|\berror:/i.test(l)) events.push({ kind: 'error', text: cap(l) });
  }
  return dedupe(events);
}
