// The generic ACP adapter at the protocol level: the engine's ACP client (adapters/acp/session.ts) over a
// real stdio peer (test/fixtures/acp/agent.mjs, a small ACP agent speaking JSON-RPC 2.0 as the spec
// frames it), started by the process runner's conversation hook (TrialLaunch.converse) as a trial's
// harness is. Covers the permission policies, failed tool calls, a crash mid-session, an agent that never
// answers initialize, and hostile tool titles.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decidePermission } from '../src/adapters/acp/policy.js';
import { type AcpSessionResult, mcpServers, runAcpSession } from '../src/adapters/acp/session.js';
import { withAcpCommand } from '../src/adapters/load.js';
import { Adapter } from '../src/adapters/schema.js';
import { callOutcomes } from '../src/checks/call-outcomes.js';
import { policeEnv } from '../src/engine/env.js';
import { withAcpResult } from '../src/engine/trial/acp.js';
import { EvidenceRecorder } from '../src/evidence/recorder.js';
import type { Evidence, HarnessEvent, ProcessOutcome } from '../src/evidence/types.js';
import { actionRoot } from '../src/paths.js';
import { escapeMarkdown } from '../src/report/escape.js';
import { ProcessRunner } from '../src/runner/process.js';
import { invalidReason } from '../src/score/labels.js';
import { createServices } from '../src/world/services.js';
import { createTrialDirs, installNodeShim } from '../src/world/trial-dirs.js';

const AGENT = join(import.meta.dirname, 'fixtures', 'acp', 'agent.mjs');
const work = mkdtempSync(join(tmpdir(), 'hr-acp-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Step {
  id: string;
  kind: string;
  title: string;
  fail?: boolean;
  ask?: boolean;
}

/** One session with the fixture agent, as a trial's harness under the (uncontained) process runner. */
async function session(
  plan: Step[],
  policy: 'allow' | 'deny' | 'ask-once',
  mode = 'normal',
  initializeTimeoutMs = 10_000,
  extra: { env?: Record<string, string>; mcpUrl?: string; mcpServer?: string; mcpCommand?: string } = {},
): Promise<{ events: HarnessEvent[]; result: AcpSessionResult; outcome: ProcessOutcome }> {
  const runner = new ProcessRunner({ containment: 'off' });
  await runner.start();
  const dirs = await createTrialDirs(work, 'acp');
  const events: HarnessEvent[] = [];
  let result: AcpSessionResult | undefined;
  const { env } = policeEnv({
    PATH: process.env.PATH ?? '',
    ACP_PLAN: JSON.stringify(plan),
    ACP_MODE: mode,
    ...extra.env,
  });
  try {
    const outcome = await runner.run({
      trial_id: 't',
      dirs,
      command: [process.execPath, AGENT],
      cwd: dirs.workspace,
      env,
      timeout_ms: 30_000,
      read_only: [],
      endpoint_port: 0,
      converse: async (io) => {
        result = await runAcpSession(
          io,
          {
            policy,
            cwd: dirs.workspace,
            prompt: 'do the task',
            initializeTimeoutMs,
            ...(extra.mcpUrl ? { mcpUrl: extra.mcpUrl, mcpServer: extra.mcpServer } : {}),
            ...(extra.mcpCommand ? { mcpCommand: extra.mcpCommand } : {}),
          },
          events,
        );
      },
    });
    return { events, result: result!, outcome };
  } finally {
    await runner.stop();
  }
}

const granted = (evs: HarnessEvent[]) => evs.filter((e) => e.text.startsWith('permission granted'));
const denials = (evs: HarnessEvent[]) => evs.filter((e) => e.kind === 'denial');

describe('ACP client: permission policies', () => {
  const plan: Step[] = [
    { id: 'c1', kind: 'edit', title: 'Write a.txt' },
    { id: 'c2', kind: 'edit', title: 'Write b.txt' },
    { id: 'c3', kind: 'execute', title: 'rm -rf build' },
  ];

  it('allow: every request allow_once, every call completed, no denial', async () => {
    const { events, result, outcome } = await session(plan, 'allow');
    expect(result.failure).toBeUndefined();
    expect(result.stopReason).toBe('end_turn');
    expect(result.permissions.map((p) => p.answer)).toEqual(['allow_once', 'allow_once', 'allow_once']);
    expect(denials(events)).toEqual([]);
    expect(
      events.filter((e) => e.kind === 'tool' && !e.text.startsWith('permission')).map((e) => e.call_id),
    ).toEqual(['c1', 'c2', 'c3']);
    // The agent exits on end of stdin: its own exit, not a kill.
    expect(outcome.exit_code).toBe(0);
    expect(outcome.stderr).toContain('"optionId":"yes"');
  });

  it('deny: every request reject_once, a refusal by the harness guard naming the call, no error for it', async () => {
    const { events, result } = await session(plan, 'deny');
    expect(result.permissions.map((p) => [p.call_id, p.answer])).toEqual([
      ['c1', 'reject_once'],
      ['c2', 'reject_once'],
      ['c3', 'reject_once'],
    ]);
    expect(denials(events).map((e) => [e.call_id, e.tool])).toEqual([
      ['c1', 'acp:edit'],
      ['c2', 'acp:edit'],
      ['c3', 'acp:execute'],
    ]);
    // The agent marks a rejected call failed: still a refusal, not an error.
    expect(events.filter((e) => e.kind === 'error')).toEqual([]);
  });

  it('ask-once: the first request per tool kind allowed once, later ones of that kind rejected', async () => {
    const { events } = await session(plan, 'ask-once');
    expect(granted(events).map((e) => e.call_id)).toEqual(['c1', 'c3']);
    expect(denials(events).map((e) => e.call_id)).toEqual(['c2']);
  });

  it('never picks an *_always option while a once-option exists; cancels when the side it chose has none', () => {
    const opts = [
      { optionId: 'A', kind: 'allow_always' },
      { optionId: 'a', kind: 'allow_once' },
      { optionId: 'R', kind: 'reject_always' },
    ];
    expect(decidePermission('allow', 'edit', opts, new Set()).optionId).toBe('a');
    expect(decidePermission('deny', 'edit', opts, new Set()).optionId).toBe('R');
    const onlyAllow = decidePermission('deny', 'edit', [{ optionId: 'a', kind: 'allow_once' }], new Set());
    expect(onlyAllow).toEqual({ allow: false, answer: 'cancelled' });
  });
});

describe('ACP client: tool outcomes and broken agents', () => {
  it('a failed tool call is an error event naming the call, and the call comes out errored', async () => {
    const { events } = await session(
      [{ id: 'call_f1', kind: 'execute', title: 'make', fail: true }],
      'allow',
    );
    const err = events.find((e) => e.kind === 'error');
    expect(err).toMatchObject({ call_id: 'call_f1', tool: 'acp:execute' });
    // The model's call with that id, answered in words that read like success: the protocol decides.
    const evidence = {
      model: [
        {
          seq: 1,
          results: [],
          response: { kind: 'tool_calls', calls: [{ id: 'call_f1', tool: 'run', args: {} }] },
        },
        {
          seq: 2,
          results: [{ call_id: 'call_f1', text: 'ok', is_error: false, denied: false }],
          response: { kind: 'text', text: 'done' },
        },
      ],
      harness: events,
    } as unknown as Evidence;
    expect(callOutcomes(evidence)[0]!.outcome).toBe('errored');
  });

  it('a refused call comes out refused even when the agent answers the model in neutral words', async () => {
    const { events } = await session([{ id: 'call_d1', kind: 'edit', title: 'w' }], 'deny');
    const evidence = {
      model: [
        {
          seq: 1,
          results: [],
          response: { kind: 'tool_calls', calls: [{ id: 'call_d1', tool: 'write', args: {} }] },
        },
        {
          seq: 2,
          results: [
            { call_id: 'call_d1', text: 'cancelled', is_error: true, denied: false, outcome: 'errored' },
          ],
          response: { kind: 'text', text: 'done' },
        },
      ],
      harness: events,
    } as unknown as Evidence;
    expect(callOutcomes(evidence)[0]!.outcome).toBe('refused');
  });

  it('an agent that crashes mid-session: an error event, its exit code kept', async () => {
    const { events, result, outcome } = await session(
      [{ id: 'c1', kind: 'edit', title: 'x' }],
      'allow',
      'crash',
    );
    expect(result.failure).toBeUndefined();
    expect(events).toContainEqual({ kind: 'error', text: 'the ACP agent exited during session/prompt' });
    expect(outcome.exit_code).toBe(3);
  });

  it('an agent that never answers initialize: a timeout, a clear start failure, the trial invalid', async () => {
    const t0 = Date.now();
    const { result, outcome } = await session([], 'allow', 'silent', 500);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(result.failure).toMatch(/did not answer initialize within 0\.5 s.*ACP mode/);
    const judged = withAcpResult(outcome, result);
    expect(judged.spawn_error).toBe(result.failure);
    const reason = invalidReason({ process: judged, model: [] } as unknown as Evidence);
    expect(reason).toMatch(/^harness could not start: ACP: the agent did not answer initialize/);
  });

  it('hostile text in tool titles stays data: capped in the events, inert once rendered', async () => {
    const title = `<img src=x onerror=alert(1)> | **@everyone** [x](https://evil.example) ${'A'.repeat(2000)}`;
    const { events } = await session([{ id: 'h1', kind: '<b>edit</b>', title }], 'deny');
    const d = denials(events)[0]!;
    expect(d.text.length).toBeLessThan(500);
    const shown = escapeMarkdown(d.text);
    expect(shown).not.toContain('<img');
    expect(shown).not.toContain('@everyone');
    expect(shown).not.toContain('](https://');
  });

  it('offers no fs or terminal capability by default', async () => {
    const { outcome } = await session([], 'allow');
    expect(outcome.stderr).toContain(
      '"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}',
    );
  });
});

describe('ACP adapter schema and command', () => {
  const base = {
    name: 'x',
    dialect: 'openai-chat',
    protocol: 'acp',
    launch: { command: [] },
    configs: { d: { acp: { permission: 'deny' } } },
  };
  it('protocol: acp needs acp.permission on every configuration; acp settings only under acp', () => {
    expect(Adapter.safeParse(base).success).toBe(true);
    const missing = Adapter.safeParse({ ...base, configs: { d: {} } });
    expect(missing.error?.issues[0]?.path).toEqual(['configs', 'd', 'acp']);
    const stdout = Adapter.safeParse({ ...base, protocol: 'stdout', launch: { command: ['x'] } });
    expect(stdout.error?.issues[0]?.message).toMatch(/only with protocol: acp/);
    const empty = Adapter.safeParse({ ...base, protocol: 'stdout', configs: { d: {} } });
    expect(empty.error?.issues[0]?.path).toEqual(['launch', 'command']);
  });
  it('acp-command fills an empty launch.command; none given is a clear error; a stdout adapter refuses it', () => {
    const loaded = { adapter: Adapter.parse(base), dir: '/a', file: '/a/adapter.yaml' };
    expect(withAcpCommand(loaded, ['agent', '--acp']).adapter.launch.command).toEqual(['agent', '--acp']);
    expect(() => withAcpCommand(loaded, undefined)).toThrow(/no launch.command/);
    const stdout = {
      ...loaded,
      adapter: Adapter.parse({ ...base, protocol: 'stdout', launch: { command: ['x'] }, configs: { d: {} } }),
    };
    expect(() => withAcpCommand(stdout, ['a'])).toThrow(/does not speak ACP/);
  });
});

describe('ACP client: who the agent is, and the MCP server it is handed', () => {
  const plan: Step[] = [{ id: 'c1', kind: 'read', title: 'Read a.txt' }];
  it("attests initialize's agentInfo (name, title, version), its own words capped and on one line", async () => {
    const info = { name: 'fixture-agent', title: 'Fixture\nAgent\u0007', version: '9.9.9', extra: 1 };
    const { result, outcome } = await session(plan, 'allow', 'normal', 10_000, {
      env: { ACP_AGENT_INFO: JSON.stringify(info) },
    });
    expect(result.agent).toEqual({ name: 'fixture-agent', title: 'Fixture Agent', version: '9.9.9' });
    expect(withAcpResult(outcome, result).agent).toEqual(result.agent);
    const long = await session(plan, 'allow', 'normal', 10_000, {
      env: { ACP_AGENT_INFO: JSON.stringify({ name: 'x'.repeat(5000), version: 7 }) },
    });
    expect(long.result.agent?.name?.length).toBeLessThanOrEqual(121);
    expect(long.result.agent?.version).toBeUndefined();
    const none = await session(plan, 'allow');
    expect(none.result.agent).toBeUndefined();
    expect(withAcpResult(none.outcome, none.result).agent).toBeUndefined();
  }, 60_000);
  it("passes the trial's MCP server under the adapter's mcp.server name (not a fixed one)", async () => {
    const { outcome } = await session(plan, 'allow', 'normal', 10_000, {
      env: { ACP_MCP_HTTP: '1' },
      mcpUrl: 'http://127.0.0.1:9/mcp',
      mcpServer: 'crm',
    });
    const line = outcome.stderr.split('\n').find((l) => l.startsWith('session/new '))!;
    expect(JSON.parse(line.slice('session/new '.length)).mcpServers).toEqual([
      { type: 'http', name: 'crm', url: 'http://127.0.0.1:9/mcp', headers: [] },
    ]);
  }, 60_000);

  it('an agent that takes no HTTP servers gets the same server as a program (the mcp-stdio relay), and reaches it', async () => {
    const services = createServices(
      { mcp: { tools: [{ name: 'lookup', description: 'Looks things up', result: 'found 3' }] } },
      new EvidenceRecorder({}),
      {},
    );
    const server = createServer((q, r) => void services(q, r));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const bin = mkdtempSync(join(work, 'bin-'));
    const command = await installNodeShim(
      bin,
      'mcp-stdio',
      join(actionRoot(), 'dist', 'mcp-stdio.js'),
      process.execPath,
    );
    try {
      const { outcome } = await session(plan, 'allow', 'normal', 10_000, {
        env: { ACP_MCP_PROBE: '1' },
        mcpUrl: url,
        mcpServer: 'crm',
        mcpCommand: command,
      });
      const line = outcome.stderr.split('\n').find((l) => l.startsWith('session/new '))!;
      expect(JSON.parse(line.slice('session/new '.length)).mcpServers).toEqual([
        { name: 'crm', command, args: [url], env: [] },
      ]);
      expect(outcome.stderr).toContain('mcp crm: lookup');
      expect(services.state.mcp.calls).toEqual([]);
      // Offered HTTP, the agent gets HTTP even with a relay at hand.
      expect(
        mcpServers(
          { agentCapabilities: { mcpCapabilities: { http: true } } },
          { mcpUrl: url, mcpCommand: command },
        ),
      ).toEqual([{ type: 'http', name: 'team', url, headers: [] }]);
      expect(mcpServers({}, { mcpCommand: command })).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    }
  }, 60_000);
});
