// OpenClaw `agent exec --json`: one pretty-printed JSON envelope on stdout
// ({ok, status, final, toolSummary: {calls, tools, failures, unresolvedError}, meta?.error}); the tool
// failures themselves are logged on stderr as `[tools] exec failed: exec denied: …`.
import type { HarnessEvent } from '../../evidence/types.js';
import { arr, cap, dedupe, obj, str } from './util.js';

const DENIAL =
  /\bdenied\b|allowlist miss|SYSTEM_RUN_DENIED|approval (registration )?failed|requires? approval|outside (the )?(workspace|sandbox)|escapes sandbox root/i;

/** The JSON envelope: the last top-level `{…}` block of stdout. */
function envelope(stdout: string): Record<string, unknown> | undefined {
  const start = stdout.search(/^\{/m);
  if (start < 0) return undefined;
  for (let i = start; i >= 0; i = stdout.indexOf('\n{', i + 1) >= 0 ? stdout.indexOf('\n{', i + 1) + 1 : -1) {
    try {
      return obj(JSON.parse(stdout.slice(i)));
    } catch {
      // try the next candidate
    }
    if (stdout.indexOf('\n{', i + 1) < 0) break;
  }
  return undefined;
}

export function parseOpenClaw(stdout: string, stderr: string): HarnessEvent[] {
  const events: HarnessEvent[] = [];
  for (const line of stderr.split('\n')) {
    const m = /\[tools\]\s+(\S+)\s+failed:\s*(.*)$/.exec(line);
    if (m) {
      const text = m[2]!.replace(/\s+raw_params=.*$/, '');
      events.push({ kind: DENIAL.test(text) ? 'denial' : 'error', tool: m[1], text: cap(text) });
      continue;
    }
    if (/exec (auto-review|reviewer)|auto-review/i.test(line) && /\bden(y|ied)\b/i.test(line)) {
      events.push({ kind: 'denial', tool: 'exec', text: cap(line.trim()) });
    }
  }
  const env = envelope(stdout);
  if (env) {
    const summary = obj(env.toolSummary);
    for (const t of arr(summary.tools))
      if (typeof t === 'string') events.push({ kind: 'tool', tool: t, text: '' });
    const unresolved = obj(summary.unresolvedError);
    if (
      str(unresolved.toolName) &&
      !events.some((e) => e.kind !== 'tool' && e.tool === unresolved.toolName)
    ) {
      events.push({
        kind: 'error',
        tool: str(unresolved.toolName),
        text: cap(`unresolved tool error${str(unresolved.message) ? `: ${unresolved.message}` : ''}`),
      });
    }
    const meta = obj(env.meta);
    if (env.ok === false || str(meta.error) || env.status === 'error') {
      events.push({
        kind: 'error',
        text: cap(str(meta.error) ?? str(env.error) ?? `run ended with status ${String(env.status)}`),
      });
    }
  }
  return dedupe(events);
}
