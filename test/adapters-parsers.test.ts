// Table tests of the harness output parsers on output recorded from the real harnesses
// (test/fixtures/harness-output/corpus/, captured against a local fake model; the rules are the `output:`
// of adapters/*/adapter.yaml).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAdapter } from '../src/adapters/load.js';
import { parseHarnessOutput } from '../src/adapters/parsers/index.js';
import type { Adapter } from '../src/adapters/schema.js';

const fx = (name: string) => {
  const [adapter, rest] = [name.split('/')[0]!, name.split('/')[1]!];
  try {
    return readFileSync(
      join(import.meta.dirname, 'fixtures', 'harness-output', 'corpus', adapter, rest),
      'utf8',
    );
  } catch {
    return '';
  }
};

interface Row {
  name: string;
  kind: Adapter['output'];
  stdout: string;
  stderr?: string;
  denials: { tool?: string; text: RegExp }[];
  /** Tools the harness reported running. */
  tools?: string[];
  errors?: number;
}

const rows: Row[] = [
  {
    name: 'Claude Code default: Write needs approval → permission_denied + permission_denials (one denial)',
    kind: 'claude-code',
    stdout: fx('claude-code/recorded-default-write.stdout'),
    denials: [{ tool: 'Write', text: /requested permissions to write/ }],
    tools: ['Write'],
    errors: 0,
  },
  {
    name: 'Claude Code acceptEdits: Write runs, no denial',
    kind: 'claude-code',
    stdout: fx('claude-code/recorded-acceptEdits-write.stdout'),
    denials: [],
    tools: ['Write'],
    errors: 0,
  },
  {
    name: 'Claude Code: a denial only in the final result event still counts',
    kind: 'claude-code',
    stdout: `${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, permission_denials: [{ tool_name: 'Bash', tool_use_id: 't1', tool_input: { command: 'curl x' } }] })}\n`,
    denials: [{ tool: 'Bash', text: /curl x/ }],
    errors: 0,
  },
  {
    name: 'Codex read-only: the sandboxed command is not reported on stdout; nothing invented',
    kind: 'codex',
    stdout: fx('codex/recorded-read-only-write.stdout'),
    denials: [],
    errors: 0,
  },
  {
    name: 'Codex workspace-write: the command ran (exit 0)',
    kind: 'codex',
    stdout: fx('codex/recorded-workspace-write-write.stdout'),
    denials: [],
    tools: ['exec_command'],
    errors: 0,
  },
  {
    name: 'Codex workspace-write: network blocked by the sandbox → denial',
    kind: 'codex',
    stdout: `${JSON.stringify({ type: 'item.completed', item: { id: 'item_1', type: 'command_execution', command: "/bin/bash -c 'curl -sS http://127.0.0.1:9/sink'", aggregated_output: "curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server\n", exit_code: 7, status: 'failed' } })}\n`,
    denials: [{ tool: 'exec_command', text: /Couldn't connect to server/ }],
    tools: ['exec_command'],
    errors: 0,
  },
  {
    name: 'Codex danger-full-access: its own rm -rf guard rejects the command (stderr) → denial',
    kind: 'codex',
    stdout: fx('codex/recorded-danger-full-access-rm-rf.stdout'),
    stderr: fx('codex/recorded-danger-full-access-rm-rf.stderr'),
    denials: [{ tool: 'exec_command', text: /rm -f style commands are not permitted/ }],
    errors: 0,
  },
  {
    name: 'pi read-only-tools: "Tool write not found" → denial',
    kind: loadAdapter('pi').adapter.output,
    stdout: fx('pi/recorded-read-only-tools-write.stdout'),
    denials: [{ tool: 'write', text: /Tool write not found/ }],
    tools: ['write'],
    errors: 0,
  },
  {
    name: 'OpenClaw exec-deny: "exec denied: host=gateway security=deny" → denial',
    kind: 'openclaw',
    stdout: fx('openclaw/recorded-exec-deny.stdout'),
    stderr: fx('openclaw/recorded-exec-deny.stderr'),
    denials: [{ tool: 'exec', text: /security=deny/ }],
    tools: ['exec'],
    errors: 0,
  },
  {
    name: 'OpenClaw exec-allowlist: "allowlist miss" → denial',
    kind: 'openclaw',
    stdout: fx('openclaw/recorded-exec-allow.stdout'),
    stderr: fx('openclaw/recorded-exec-allow.stderr'),
    denials: [{ tool: 'exec', text: /allowlist miss/ }],
    tools: ['exec'],
    errors: 0,
  },
  {
    name: 'OpenClaw exec-auto reviewer deny: only the envelope says the tool failed → error, not denial',
    kind: 'openclaw',
    stdout: fx('openclaw/recorded-exec-autod.stdout'),
    stderr: fx('openclaw/recorded-exec-autod.stderr'),
    denials: [],
    tools: ['exec'],
    errors: 1,
  },
  {
    name: 'OpenClaw exec-full: the command ran',
    kind: 'openclaw',
    stdout: fx('openclaw/recorded-exec-full.stdout'),
    stderr: fx('openclaw/recorded-exec-full.stderr'),
    denials: [],
    tools: ['exec'],
    errors: 0,
  },
  {
    name: 'reference: denial lines and denied results',
    kind: 'reference',
    stdout: [
      { type: 'tool_call', name: 'shell', args: { command: 'curl' } },
      { type: 'tool_result', name: 'shell', ok: false, denied: true },
      { type: 'denial', tool: 'shell', rule: 'egress', reason: 'host not allowed' },
      { type: 'tool_result', name: 'write_file', ok: false, denied: false, reason: 'ENOENT' },
      { type: 'tool_result', name: 'send_mail', ok: false, denied: true },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n'),
    denials: [
      { tool: 'shell', text: /egress: host not allowed/ },
      { tool: 'send_mail', text: /denied/ },
    ],
    tools: ['shell'],
    errors: 1,
  },
];

describe('parseHarnessOutput on recorded harness output', () => {
  it('has every recorded fixture', () => {
    for (const r of rows) expect(r.stdout, r.name).not.toBe('');
  });
  it.each(rows)('$name', (row) => {
    const events = parseHarnessOutput(row.kind, row.stdout, row.stderr ?? '');
    const denials = events.filter((e) => e.kind === 'denial');
    expect(denials.length, JSON.stringify(events)).toBe(row.denials.length);
    row.denials.forEach((d, i) => {
      if (d.tool) expect(denials[i]!.tool).toBe(d.tool);
      expect(denials[i]!.text).toMatch(d.text);
    });
    if (row.tools)
      expect([...new Set(events.filter((e) => e.kind === 'tool').map((e) => e.tool))]).toEqual(row.tools);
    if (row.errors !== undefined)
      expect(events.filter((e) => e.kind === 'error').length, JSON.stringify(events)).toBe(row.errors);
  });
});

describe('Codex: the sandbox words mark denials only on failed commands', () => {
  const item = (exit: number, output: string) =>
    JSON.stringify({
      type: 'item.completed',
      item: {
        type: 'command_execution',
        command: 'cat README.md',
        aggregated_output: output,
        exit_code: exit,
        status: exit ? 'failed' : 'completed',
      },
    });
  it('exit 0 with "sandbox" in the output is a tool run, not a denial', () => {
    const events = parseHarnessOutput(
      'codex',
      item(0, 'Runs every command in a sandbox; permission denied errors are shown.'),
      '',
    );
    expect(events.map((e) => e.kind)).toEqual(['tool']);
  });
  it('a failed command with the sandbox words is a denial', () => {
    const events = parseHarnessOutput('codex', item(1, 'touch: cannot touch x: Read-only file system'), '');
    expect(events.map((e) => e.kind)).toEqual(['tool', 'denial']);
  });
});

describe('parsers never throw and cap what they keep', () => {
  const junk = [
    '',
    'not json\n{"type":',
    '{"type":"result","permission_denials":"nope"}',
    `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"${'x'.repeat(5000)}"}}]}}`,
  ];
  const pi = loadAdapter('pi').adapter.output;
  for (const kind of ['claude-code', 'codex', 'openclaw', pi, 'reference', 'none'] as const) {
    it(JSON.stringify(kind).slice(0, 40), () => {
      for (const text of junk) {
        const events = parseHarnessOutput(kind, text, text);
        for (const e of events) expect(e.text.length).toBeLessThanOrEqual(1001);
      }
    });
  }
});
