// Codex `exec --json`: JSON lines (thread.started, turn.started, item.started/item.completed, turn.completed,
// turn.failed, error). Commands are `command_execution` items with `exit_code` and `aggregated_output`; a
// command the sandbox stopped fails with the kernel's words (read-only file system, operation not
// permitted, connection refused under the network namespace), which mark it a denial when it failed.
import type { HarnessEvent } from '../../evidence/types.js';
import { cap, dedupe, jsonLines, obj, str } from './util.js';

const SANDBOX =
  /read-only file system|operation not permitted|permission denied|couldn't connect to server|failed to connect to|ECONNREFUSED|connect EPERM|network is unreachable|could not resolve host|sandbox/i;

export function parseCodex(stdout: string, stderr: string): HarnessEvent[] {
  const events: HarnessEvent[] = [];
  for (const ev of jsonLines(stdout)) {
    const type = str(ev.type);
    if (type === 'item.completed' || type === 'item.updated') {
      const item = obj(ev.item);
      const itype = str(item.type);
      if (itype === 'command_execution' && type === 'item.completed') {
        const command = str(item.command) ?? '';
        const output = str(item.aggregated_output) ?? '';
        events.push({ kind: 'tool', tool: 'exec_command', text: cap(command) });
        const failed =
          (typeof item.exit_code === 'number' && item.exit_code !== 0) ||
          item.status === 'failed' ||
          item.status === 'declined';
        // The sandbox's words mark a denial only on a command that failed: a command that succeeded and
        // printed "sandbox" (a README, `codex --help`) ran, whatever its output says.
        if (item.status === 'declined' || (failed && SANDBOX.test(output))) {
          events.push({
            kind: 'denial',
            tool: 'exec_command',
            text: cap(`${command}: ${lastLines(output)}`),
          });
        } else if (failed) {
          events.push({
            kind: 'error',
            tool: 'exec_command',
            text: cap(`${command} (exit ${String(item.exit_code)}): ${lastLines(output)}`),
          });
        }
      } else if (itype === 'file_change' && type === 'item.completed') {
        events.push({
          kind: item.status === 'failed' ? 'error' : 'tool',
          tool: 'apply_patch',
          text: cap(item.changes),
        });
      } else if (itype === 'mcp_tool_call' && type === 'item.completed') {
        events.push({
          kind: item.error ? 'error' : 'tool',
          tool: `${str(item.server) ?? 'mcp'}.${str(item.tool) ?? ''}`,
          text: cap(item.error ?? item.arguments),
        });
      } else if (itype === 'web_search' && type === 'item.completed') {
        events.push({ kind: 'tool', tool: 'web_search', text: cap(item.query) });
      } else if (itype === 'error') {
        const msg = str(item.message) ?? '';
        // "Model metadata for `x` not found" is about the scripted model's name, not the trial.
        events.push({ kind: /model metadata/i.test(msg) ? 'warning' : 'error', text: cap(msg) });
      }
    } else if (type === 'turn.failed') {
      events.push({ kind: 'error', text: cap(str(obj(ev.error).message) ?? ev.error) });
    } else if (type === 'error') {
      events.push({ kind: 'error', text: cap(str(ev.message) ?? ev) });
    }
  }
  for (const line of stderr.split('\n')) {
    const l = line.trim();
    // Codex's own command guard (even without a sandbox): `exec_command failed: CreateProcess { message:
    // "Rejected(\"`rm -rf data` rejected: rm -f style commands are not permitted…\")" }`.
    if (/\bRejected\(|\brejected:|not permitted/.test(l) && /exec_command|CreateProcess|command/i.test(l)) {
      events.push({ kind: 'denial', tool: 'exec_command', text: cap(l.replace(/^\S+Z\s+/, '')) });
    } else if (/^(error|fatal)\b|\bERROR\b/.test(l)) {
      events.push({ kind: 'error', text: cap(l.replace(/^\S+Z\s+/, '')) });
    }
  }
  return dedupe(events);
}

function lastLines(text: string, n = 3): string {
  return text.trim().split('\n').slice(-n).join(' | ');
}
