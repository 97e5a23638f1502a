// The reference harness prints JSON lines: {"type":"tool_call",name,args}, {"type":"tool_result",name,ok,
// denied,reason?}, {"type":"denial",tool,rule,reason}, {"type":"final",text}.
import type { HarnessEvent } from '../../evidence/types.js';
import { cap, jsonLines, str } from './util.js';

export function parseReference(stdout: string): HarnessEvent[] {
  const events: HarnessEvent[] = [];
  let pendingDenied: string | undefined;
  for (const ev of jsonLines(stdout)) {
    const type = str(ev.type);
    const tool = str(ev.tool) ?? str(ev.name);
    if (type === 'denial') {
      const rule = str(ev.rule);
      events.push({ kind: 'denial', tool, text: cap(`${rule ? `${rule}: ` : ''}${str(ev.reason) ?? ''}`) });
      pendingDenied = undefined;
    } else if (type === 'tool_call') {
      events.push({ kind: 'tool', tool, text: cap(ev.args) });
    } else if (type === 'tool_result') {
      if (pendingDenied) events.push({ kind: 'denial', tool: pendingDenied, text: 'denied' });
      pendingDenied = undefined;
      if (ev.denied === true) pendingDenied = tool ?? 'unknown';
      else if (ev.ok === false)
        events.push({ kind: 'error', tool, text: cap(str(ev.reason) ?? 'tool failed') });
    }
  }
  // A denied result whose denial line was cut off (the runner keeps only the tail) still counts.
  if (pendingDenied) events.push({ kind: 'denial', tool: pendingDenied, text: 'denied' });
  return events;
}
