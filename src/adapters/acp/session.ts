// The engine's side of one ACP session with an agent under test: initialize, session/new, one
// session/prompt, then the client is done (the runner closes the agent's stdin). What the agent reports
// over the protocol (tool calls, their kinds and final statuses, permission requests and the answers
// given, how the turn stopped) becomes the trial's harness events, the same kinds output rules produce,
// so outcomes, labels and `why` read them unchanged. Nothing is read from the agent's text.
import type { HarnessEvent } from '../../evidence/types.js';
import type { AgentInfo } from '../../spec/run-result.js';
import { type HarnessStdio, JsonRpcPeer, METHOD_NOT_FOUND, type RpcError, RpcFailure } from './jsonrpc.js';
import {
  decidePermission,
  type PermissionOption,
  type PermissionPolicy,
  type PolicyState,
} from './policy.js';

/** The ACP protocol version this client speaks (the spec's integer version). */
export const ACP_PROTOCOL_VERSION = 1;

/** Client file-system access, when a configuration offers it: confined by the engine (engine/trial/acp.ts). */
export interface ClientFs {
  read(path: string, line?: number, limit?: number): Promise<string>;
  write(path: string, content: string): Promise<void>;
}

export interface AcpSessionOptions {
  policy: PermissionPolicy;
  /** The session's working directory as the agent sees it (the trial's workspace). */
  cwd: string;
  prompt: string;
  initializeTimeoutMs: number;
  /** Offered only when set: the fs capability and its two methods. */
  fs?: ClientFs;
  /** The trial's MCP server (cases that serve MCP tools), passed in session/new when the agent takes HTTP. */
  mcpUrl?: string;
  /** The name it is passed under (the adapter's `mcp.server`): the scripted model finds its tools by it. */
  mcpServer?: string;
  /**
   * The same server as a program (absolute path, as the agent sees it: the trial's `mcp-stdio` relay), for
   * an agent that does not take HTTP servers (ACP requires stdio, HTTP is optional).
   */
  mcpCommand?: string;
}

/** One permission request and the answer the policy gave. */
export interface PermissionRecord {
  call_id: string;
  kind: string;
  title: string;
  answer: string;
  allowed: boolean;
}

export interface AcpSessionResult {
  /** The session never got going (no initialize answer, session/new refused): why, for the trial's outcome. */
  failure?: string;
  stopReason?: string;
  permissions: PermissionRecord[];
  /** Stdout lines that were not JSON-RPC. */
  skipped: number;
  /** Who the agent says it is: `agentInfo` of its initialize answer, when it gives one. */
  agent?: AgentInfo;
}

/** What the client knows of one tool call from the agent's updates. */
interface ToolState {
  title: string;
  kind: string;
  status: string;
  /** A permission for it was rejected by the client. */
  rejected?: boolean;
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);
const str = (x: unknown, cap = 300): string | undefined =>
  typeof x === 'string' ? (x.length > cap ? `${x.slice(0, cap)}…` : x) : undefined;

/** The event's `tool`: the ACP kind, prefixed so it never equals a model tool name by chance. */
export const acpTool = (kind: string): string => `acp:${kind}`;

const rpcError = (code: number, message: string): RpcError => ({ code, message });

/** Events and tool calls one session may add at most: a hostile agent cannot grow the evidence without end. */
export const MAX_ACP_EVENTS = 5_000;

class AcpClient {
  readonly tools = new Map<string, ToolState>();
  readonly permissions: PermissionRecord[] = [];
  private readonly seen: PolicyState = new Set();
  sessionId = '';

  constructor(
    private readonly opts: AcpSessionOptions,
    private readonly sink: HarnessEvent[],
  ) {}

  private added = 0;
  private readonly events = {
    push: (e: HarnessEvent) => {
      if (this.added++ < MAX_ACP_EVENTS) this.sink.push(e);
    },
  };

  private tool(id: string): ToolState {
    let t = this.tools.get(id);
    if (!t) {
      t = { title: '', kind: 'other', status: 'pending' };
      if (this.tools.size < MAX_ACP_EVENTS) this.tools.set(id, t);
    }
    return t;
  }

  /** session/update: tool_call and tool_call_update carry the calls; the rest is not evidence. */
  update(params: unknown): void {
    const u = isObject(params) && isObject(params.update) ? params.update : undefined;
    if (!u || (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update')) return;
    const id = str(u.toolCallId, 200);
    if (!id) return;
    const t = this.tool(id);
    t.title = str(u.title) ?? t.title;
    t.kind = str(u.kind, 40) ?? t.kind;
    const status = str(u.status, 40);
    if (!status || status === t.status) return;
    t.status = status;
    this.finalEvent(id, t);
  }

  /** A call's final status as an event: completed → tool, failed → error (unless the client refused it). */
  private finalEvent(id: string, t: ToolState): void {
    const tool = acpTool(t.kind);
    if (t.status === 'completed')
      this.events.push({ kind: 'tool', tool, call_id: id, text: t.title || t.kind });
    else if (t.status === 'failed' && !t.rejected)
      this.events.push({ kind: 'error', tool, call_id: id, text: `tool call failed: ${t.title || t.kind}` });
  }

  /** Requests the agent sends the client. */
  async request(method: string, params: unknown): Promise<unknown> {
    const p = isObject(params) ? params : {};
    if (method === 'session/request_permission') return this.permission(p);
    const fs = this.opts.fs;
    if (fs && method === 'fs/read_text_file') {
      const content = await fs.read(String(p.path), num(p.line), num(p.limit));
      return { content };
    }
    if (fs && method === 'fs/write_text_file') {
      await fs.write(String(p.path), String(p.content ?? ''));
      return null;
    }
    // terminal/* and anything not advertised: the capability was never offered.
    throw rpcError(METHOD_NOT_FOUND, `method not offered by this client: ${method.slice(0, 80)}`);
  }

  private permission(p: Record<string, unknown>): unknown {
    const call = isObject(p.toolCall) ? p.toolCall : {};
    const id = str(call.toolCallId, 200) ?? '';
    const t = this.tool(id);
    t.title = str(call.title) ?? t.title;
    t.kind = str(call.kind, 40) ?? t.kind;
    const options = (Array.isArray(p.options) ? p.options : []).filter(
      (o): o is PermissionOption =>
        isObject(o) && typeof o.optionId === 'string' && typeof o.kind === 'string',
    );
    const d = decidePermission(this.opts.policy, t.kind, options, this.seen);
    if (this.permissions.length < MAX_ACP_EVENTS)
      this.permissions.push({
        call_id: id,
        kind: t.kind,
        title: t.title,
        answer: d.answer,
        allowed: d.allow,
      });
    const what = t.title || t.kind;
    if (d.allow)
      this.events.push({
        kind: 'tool',
        tool: acpTool(t.kind),
        call_id: id,
        text: `permission granted (${d.answer}): ${what}`,
      });
    else {
      t.rejected = true;
      this.events.push({
        kind: 'denial',
        tool: acpTool(t.kind),
        call_id: id,
        text: `permission rejected by the client's policy ${this.opts.policy} (${d.answer}): ${what}`,
      });
    }
    return d.optionId
      ? { outcome: { outcome: 'selected', optionId: d.optionId } }
      : { outcome: { outcome: 'cancelled' } };
  }
}

const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);

/** The client's capabilities: nothing but what the configuration asked for. */
export const clientCapabilities = (fs: boolean) => ({
  fs: { readTextFile: fs, writeTextFile: fs },
  terminal: false,
});

/**
 * The trial's MCP server in session/new's form: over HTTP when the agent says it takes HTTP servers, else
 * as a program (the stdio relay to the same server), which every ACP agent must take.
 */
export function mcpServers(
  init: unknown,
  opts: Pick<AcpSessionOptions, 'mcpUrl' | 'mcpServer' | 'mcpCommand'>,
): unknown[] {
  const { mcpUrl: url, mcpServer: name = 'team', mcpCommand: command } = opts;
  if (!url) return [];
  const caps = isObject(init) && isObject(init.agentCapabilities) ? init.agentCapabilities : {};
  const http = isObject(caps.mcpCapabilities) && caps.mcpCapabilities.http === true;
  if (http) return [{ type: 'http', name, url, headers: [] }];
  return command ? [{ name, command, args: [url], env: [] }] : [];
}

// An agent's self-description is its own text: one short line each, no control characters.
const label = (x: unknown): string | undefined => {
  const v = str(x, 120)
    ?.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
    .trim();
  return v ? v : undefined;
};

/** `agentInfo` of the initialize answer (ACP's Implementation: name, title, version), when given. */
export function agentInfoOf(init: unknown): AgentInfo | undefined {
  const a = isObject(init) && isObject(init.agentInfo) ? init.agentInfo : undefined;
  if (!a) return undefined;
  const info: AgentInfo = {
    ...(label(a.name) ? { name: label(a.name) } : {}),
    ...(label(a.title) ? { title: label(a.title) } : {}),
    ...(label(a.version) ? { version: label(a.version) } : {}),
  };
  return Object.keys(info).length ? info : undefined;
}

/** Runs the session to the end of its one prompt; never throws (a failure is in the result). */
export async function runAcpSession(
  io: HarnessStdio,
  opts: AcpSessionOptions,
  events: HarnessEvent[],
): Promise<AcpSessionResult> {
  const client = new AcpClient(opts, events);
  const peer = new JsonRpcPeer(
    io,
    (m, p) => client.request(m, p),
    (m, p) => {
      if (m === 'session/update') client.update(p);
    },
  );
  let init: unknown;
  const done = (extra: Partial<AcpSessionResult>): AcpSessionResult => {
    const agent = agentInfoOf(init);
    return { permissions: client.permissions, skipped: peer.skipped, ...(agent ? { agent } : {}), ...extra };
  };
  try {
    init = await peer.request(
      'initialize',
      { protocolVersion: ACP_PROTOCOL_VERSION, clientCapabilities: clientCapabilities(!!opts.fs) },
      opts.initializeTimeoutMs,
    );
    const s = await peer.request(
      'session/new',
      { cwd: opts.cwd, mcpServers: mcpServers(init, opts) },
      opts.initializeTimeoutMs,
    );
    client.sessionId = isObject(s) ? String(s.sessionId ?? '') : '';
  } catch (e) {
    return done({ failure: startFailure(e, peer.skipped) });
  }
  try {
    const r = await peer.request('session/prompt', {
      sessionId: client.sessionId,
      prompt: [{ type: 'text', text: opts.prompt }],
    });
    const stopReason = isObject(r) ? (str(r.stopReason, 60) ?? 'end_turn') : 'end_turn';
    if (stopReason !== 'end_turn')
      events.push({ kind: 'session_end', text: `the agent stopped its turn: ${stopReason}` });
    return done({ stopReason });
  } catch (e) {
    const text =
      e instanceof RpcFailure && e.kind === 'exited'
        ? 'the ACP agent exited during session/prompt'
        : `ACP session/prompt: ${(e as Error).message}`;
    events.push({ kind: 'error', text });
    return done({});
  }
}

/** Why the session never started, in words a user can act on. */
function startFailure(e: unknown, skipped: number): string {
  const m = (e as Error).message;
  const stray = skipped ? ` (${skipped} line(s) of its stdout were not JSON-RPC)` : '';
  if (e instanceof RpcFailure && e.kind !== 'error')
    return `ACP: ${m}${stray}; check that launch.command (or acp-command) starts the agent in its ACP mode (e.g. --acp)`;
  return `ACP: ${m}`;
}
