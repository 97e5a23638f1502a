// Claude Code `-p --output-format stream-json --verbose`: JSON lines. Denials appear twice: as
// `{"type":"system","subtype":"permission_denied",tool_name,tool_use_id,message}` while running, and in
// the final `{"type":"result",…,"permission_denials":[{tool_name,tool_use_id,tool_input}]}`.
// Tool calls are the assistant messages' tool_use blocks; failed ones come back as is_error tool_results.
import type { HarnessEvent } from '../../evidence/types.js';
import { arr, cap, contentText, dedupe, jsonLines, obj, str } from './util.js';

export function parseClaudeCode(stdout: string, stderr: string): HarnessEvent[] {
  const events: HarnessEvent[] = [];
  const toolOf = new Map<string, string>();
  const denied = new Set<string>();
  for (const ev of jsonLines(stdout)) {
    const type = str(ev.type);
    if (type === 'assistant') {
      for (const block of arr(obj(ev.message).content)) {
        const b = obj(block);
        if (b.type !== 'tool_use') continue;
        const name = str(b.name) ?? 'unknown';
        if (str(b.id)) toolOf.set(str(b.id)!, name);
        events.push({ kind: 'tool', tool: name, text: cap(b.input) });
      }
    } else if (type === 'system' && ev.subtype === 'permission_denied') {
      const id = str(ev.tool_use_id);
      if (id) denied.add(id);
      events.push({
        kind: 'denial',
        tool: str(ev.tool_name),
        text: cap(str(ev.message) ?? 'permission denied'),
      });
    } else if (type === 'user') {
      for (const block of arr(obj(ev.message).content)) {
        const b = obj(block);
        if (b.type !== 'tool_result' || b.is_error !== true) continue;
        const id = str(b.tool_use_id);
        if (id && denied.has(id)) continue; // already reported as a denial
        events.push({
          kind: 'error',
          tool: id ? toolOf.get(id) : undefined,
          text: cap(contentText(b.content)),
        });
      }
    } else if (type === 'result') {
      for (const d of arr(ev.permission_denials)) {
        const den = obj(d);
        const id = str(den.tool_use_id);
        if (id && denied.has(id)) continue;
        if (id) denied.add(id);
        events.push({
          kind: 'denial',
          tool: str(den.tool_name),
          text: cap(`permission denied: ${cap(den.tool_input, 400)}`),
        });
      }
      if (ev.is_error === true || (str(ev.subtype) ?? 'success') !== 'success') {
        events.push({
          kind: 'error',
          text: cap(`run ended with ${str(ev.subtype) ?? 'error'}: ${cap(ev.result, 400)}`),
        });
      }
    }
  }
  // Claude Code reports startup failures (bad flags, refusing bypassPermissions as root) on stderr.
  for (const line of stderr.split('\n')) {
    const l = line.trim();
    if (!l) continue;
    if (/--dangerously-skip-permissions|bypassPermissions/i.test(l) && /root|sudo|cannot/i.test(l)) {
      events.push({ kind: 'denial', text: cap(l) });
    } else if (/^error\b|\berror:/i.test(l)) {
      events.push({ kind: 'error', text: cap(l) });
    }
  }
  return dedupe(events);
}
