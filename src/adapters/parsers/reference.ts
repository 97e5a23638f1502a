// The reference harness prints JSON lines: {"type":"denial",tool,reason}, {"type":"tool_result",…}.
import type { HarnessEvent } from '../../evidence/types.js';

export function parseReference(stdout: string): HarnessEvent[] {
  const events: HarnessEvent[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    let ev: { type?: string; tool?: string; name?: string; reason?: string };
    try {
      ev = JSON.parse(line);
    } catch {
      continue;
    }
    if (ev.type === 'denial') events.push({ kind: 'denial', tool: ev.tool ?? ev.name, text: String(ev.reason ?? '') });
  }
  return events;
}
