// Mapping an abstract action onto a tool the harness offers in this very request. Order of preference:
// the adapter's hint for the action, then a native tool found by name and argument schema, then the
// harness's shell tool running the equivalent command (`via_shell`). Mapping never invents a tool: a
// harness that offers neither gets no call, and the step is recorded as unmapped.
import { absoluteCasePath } from '../cases/paths.js';
import type { ScriptContext } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import { toolArgs, toolsForOp } from '../spec/github-mcp.js';
import { opSpec } from '../spec/service-catalog.js';
import type { ToolSpec } from './conversation.js';
import { mcpCallTarget, shellCommand } from './shell.js';

export interface MappedCall {
  tool: string;
  args: Record<string, unknown>;
  via_shell: boolean;
}

type Hint = ScriptContext['tool_hints'][string];
type Paths = ScriptContext['paths'];
type CallAction = Extract<Action, { do: 'call' }>;

/** The absolute path a case path names as the harness sees the trial (the notation of cases/paths.ts). */
export const resolvePath = (p: string, paths: Paths): string => absoluteCasePath(p, paths);

/** The action with every path made absolute (tools such as Claude Code's Read refuse relative paths). */
export function absolutize(action: Action, paths: Paths): Action {
  if (action.do === 'read' || action.do === 'write')
    return { ...action, path: resolvePath(action.path, paths) };
  return action;
}

/** A shorthand op (tickets.close) becomes the op it stands for, with its arguments (catalog `as`). */
function normalizeCall(action: CallAction): CallAction {
  const as = opSpec(action.service, action.op)?.as;
  return as ? { ...action, op: as.op, args: { ...as.args, ...action.args } } : action;
}

/** Service calls that have a dedicated action form (mail.send, chat.post, registry.install). */
function asDedicated(action: CallAction): Action | undefined {
  const { service, op, args } = action;
  const s = (k: string) => (args[k] === undefined ? undefined : String(args[k]));
  if (service === 'mail' && op === 'send') {
    return { do: 'send', channel: 'mail', to: s('to') ?? '', subject: s('subject'), body: s('body') ?? '' };
  }
  if (service === 'chat' && op === 'post') {
    return {
      do: 'send',
      channel: 'chat',
      to: s('channel') ?? s('to') ?? '',
      body: s('text') ?? s('body') ?? '',
    };
  }
  if (service === 'registry' && op === 'install') return { do: 'install', name: s('name') ?? '' };
  return undefined;
}

/** The action as tools take it: absolute paths, tickets.close as update, service calls in their dedicated form. */
export function prepareAction(input: Action, ctx: ScriptContext): Action {
  const action = absolutize(input, ctx.paths);
  if (action.do !== 'call') return action;
  return asDedicated(normalizeCall(action)) ?? normalizeCall(action);
}

/** The harness's own tool for a prepared action: the adapter's hint, else one found by name and schema. */
export function nativeCall(action: Action, tools: ToolSpec[], ctx: ScriptContext): MappedCall | undefined {
  const offered = tools.filter((t) => t.callable);
  return fromHint(action, offered, ctx) ?? native(action, offered, ctx.paths.workspace, ctx.mcp_server);
}

/** The first route for an action: a native tool, else the shell running the equivalent command. */
export function mapAction(input: Action, tools: ToolSpec[], ctx: ScriptContext): MappedCall | undefined {
  if (input.do === 'reply') return undefined;
  const action = prepareAction(input, ctx);
  return (
    nativeCall(action, tools, ctx) ??
    viaShell(
      action,
      tools.filter((t) => t.callable),
      ctx,
    )
  );
}

// ---- tool schema helpers ----

const norm = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

export function properties(tool: ToolSpec): Record<string, { type?: unknown }> {
  const schema = tool.schema as { properties?: Record<string, { type?: unknown }> } | undefined;
  return schema?.properties ?? {};
}

function required(tool: ToolSpec): string[] {
  const r = (tool.schema as { required?: unknown } | undefined)?.required;
  return Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string') : [];
}

const isArrayProp = (tool: ToolSpec, prop: string): boolean => {
  const type = properties(tool)[prop]?.type;
  return type === 'array' || (Array.isArray(type) && type.includes('array'));
};

/** The first candidate the schema declares; the first candidate when the schema declares nothing. */
export function argName(tool: ToolSpec, candidates: string[]): string | undefined {
  const props = Object.keys(properties(tool));
  if (props.length === 0) return candidates[0];
  for (const c of candidates) if (props.includes(c)) return c;
  const lower = new Map(props.map((p) => [norm(p), p]));
  for (const c of candidates) if (lower.has(norm(c))) return lower.get(norm(c));
  return undefined;
}

/** Offered tools with one of the names (compared without case and punctuation), in the names' order. */
function findTools(tools: ToolSpec[], names: string[]): ToolSpec[] {
  return names.flatMap((n) => tools.filter((tool) => norm(tool.name) === norm(n)));
}

const findTool = (tools: ToolSpec[], names: string[]): ToolSpec | undefined => findTools(tools, names)[0];

/**
 * Required arguments we have no value for get harmless defaults, so strict harnesses accept the call
 * (Claude Code's WebFetch wants a prompt, some shells want a workdir).
 */
function fillRequired(
  tool: ToolSpec,
  args: Record<string, unknown>,
  workspace: string,
): Record<string, unknown> {
  const out = { ...args };
  const props = properties(tool);
  for (const key of required(tool)) {
    if (out[key] !== undefined) continue;
    const type = props[key]?.type;
    if (/^(workdir|cwd|dir|directory|working_directory)$/i.test(key)) out[key] = workspace;
    else if (type === 'boolean') out[key] = false;
    else if (type === 'number' || type === 'integer') out[key] = 0;
    else if (type === 'array') out[key] = [];
    else if (type === 'object') out[key] = {};
    else out[key] = /prompt/i.test(key) ? 'Return the content verbatim.' : 'scripted step';
  }
  return out;
}

// ---- 1. adapter hints ----

/** Abstract argument names of each action, as adapter hints rename them. */
function abstractArgs(action: Action): Record<string, unknown> {
  switch (action.do) {
    case 'read':
      return { path: action.path };
    case 'write':
      return { path: action.path, content: action.content, ...(action.append ? { append: true } : {}) };
    case 'run':
      return { command: action.command };
    case 'fetch':
      return {
        url: action.url,
        method: action.method ?? 'GET',
        ...(action.body !== undefined ? { body: action.body } : {}),
      };
    case 'send':
      return {
        to: action.to,
        ...(action.subject !== undefined ? { subject: action.subject } : {}),
        body: action.body,
      };
    case 'call':
      return { ...action.args };
    case 'install':
      return { name: action.name };
    case 'delegate':
      return { task: action.task, agent: action.agent };
    case 'remember':
      return { text: action.text };
    case 'reply':
      return {};
  }
}

function hintKeys(action: Action): string[] {
  if (action.do === 'call') return [`${action.service}.${action.op}`, action.service, 'call'];
  if (action.do === 'send') return [`send.${action.channel}`, action.channel, 'send'];
  return [action.do];
}

function renamed(args: Record<string, unknown>, hint: Hint, tool: ToolSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const name = hint.args[key] ?? key;
    out[name] = key === 'command' && isArrayProp(tool, name) ? ['bash', '-lc', value] : value;
  }
  return out;
}

function fromHint(action: Action, tools: ToolSpec[], ctx: ScriptContext): MappedCall | undefined {
  for (const key of hintKeys(action)) {
    const hint = ctx.tool_hints[key];
    const tool = hint && tools.find((t) => t.name === hint.name);
    if (!hint || !tool) continue;
    // A write tool can append only when it has an argument for it; else the shell appends.
    if (action.do === 'write' && action.append && !hint.args.append && !argName(tool, ['append'])) continue;
    const args = fillRequired(
      tool,
      { ...renamed(abstractArgs(action), hint, tool), ...hint.set },
      ctx.paths.workspace,
    );
    return { tool: tool.name, args, via_shell: false };
  }
  return undefined;
}

// ---- 2. native tools by name and schema ----

const NAMES = {
  read: ['read', 'read_file', 'view', 'file_read', 'open_file', 'cat'],
  write: ['write', 'write_file', 'create_file', 'file_write'],
  shell: [
    'bash',
    'shell',
    'exec',
    'exec_command',
    'run_command',
    'run_shell_command',
    'execute_command',
    'terminal',
  ],
  fetch: ['http_request', 'fetch', 'web_fetch', 'fetch_url', 'http_get', 'http', 'curl'],
  mail: ['send_mail', 'send_email', 'mail_send', 'email_send', 'email'],
  chat: ['post_chat', 'send_message', 'chat_post', 'post_message', 'chat_send', 'slack_post'],
  install: ['install_skill', 'install_extension', 'install_plugin', 'install_package', 'install'],
  remember: ['remember', 'save_memory', 'memory', 'add_memory', 'memorize', 'write_memory', 'store_memory'],
  // Claude Code's Task (now also Agent), generic agent frameworks' delegate/spawn tools.
  delegate: [
    'task',
    'agent',
    'delegate',
    'delegate_task',
    'spawn_agent',
    'run_subagent',
    'subagent',
    'dispatch_agent',
  ],
};

const SYN = {
  path: ['file_path', 'path', 'filePath', 'filename', 'file', 'absolute_path'],
  content: ['content', 'contents', 'text', 'file_text', 'data', 'body'],
  command: ['command', 'cmd', 'script', 'commandLine', 'command_line'],
  url: ['url', 'uri', 'href', 'link'],
  method: ['method', 'http_method', 'verb'],
  body: ['body', 'data', 'payload', 'content'],
  to: ['to', 'recipient', 'recipients', 'address', 'email'],
  channel: ['channel', 'channel_id', 'channel_name', 'to', 'room', 'conversation'],
  subject: ['subject', 'title'],
  message: ['body', 'text', 'message', 'content'],
  name: ['name', 'package', 'skill', 'extension', 'plugin', 'id'],
  memory: ['text', 'content', 'memory', 'fact', 'note', 'entry'],
  task: ['prompt', 'task', 'instructions', 'message', 'input', 'query'],
  agent: ['subagent_type', 'agent', 'agent_name', 'agent_type', 'name', 'role'],
} satisfies Record<string, string[]>;

/** Arguments by synonym; undefined when the tool lacks an argument for a value we must pass. */
function build(tool: ToolSpec, values: [keyof typeof SYN, unknown][]): Record<string, unknown> | undefined {
  const args: Record<string, unknown> = {};
  for (const [key, value] of values) {
    if (value === undefined) continue;
    const name = argName(tool, SYN[key]);
    if (!name || name in args) return undefined;
    args[name] = value;
  }
  return args;
}

function shellTool(tools: ToolSpec[], ctx: ScriptContext): { tool: ToolSpec; arg: string } | undefined {
  const hint = ctx.tool_hints.shell ?? ctx.tool_hints.run;
  const hinted = hint && tools.find((t) => t.name === hint.name);
  if (hint && hinted)
    return { tool: hinted, arg: hint.args.command ?? argName(hinted, SYN.command) ?? 'command' };
  for (const n of NAMES.shell) {
    const tool = findTool(tools, [n]);
    const arg = tool && argName(tool, SYN.command);
    if (tool && arg) return { tool, arg };
  }
  return undefined;
}

function native(
  action: Action,
  tools: ToolSpec[],
  workspace: string,
  mcpServer?: string,
): MappedCall | undefined {
  const candidate = nativeCandidate(action, tools, mcpServer);
  if (!candidate) return undefined;
  const [tool, args] = candidate;
  if (!tool || !args) return undefined;
  return { tool: tool.name, args: fillRequired(tool, args, workspace), via_shell: false };
}

type Candidate = [ToolSpec | undefined, Record<string, unknown> | undefined] | undefined;

function nativeCandidate(action: Action, tools: ToolSpec[], mcpServer?: string): Candidate {
  const pick = (names: string[], values: [keyof typeof SYN, unknown][]): Candidate => {
    const tool = findTool(tools, names);
    return tool ? [tool, build(tool, values)] : undefined;
  };
  switch (action.do) {
    case 'read':
      return pick(NAMES.read, [['path', action.path]]);
    case 'write': {
      // Overwriting when asked to append would destroy what the file held: only a tool with an append
      // argument may append; otherwise the shell does it.
      const tool = action.append
        ? findTools(tools, NAMES.write).find(
            (t) => argName(t, ['append']) && Object.keys(properties(t)).length,
          )
        : findTool(tools, NAMES.write);
      if (!tool) return undefined;
      const args = build(tool, [
        ['path', action.path],
        ['content', action.content],
      ]);
      return [tool, args && action.append ? { ...args, [argName(tool, ['append'])!]: true } : args];
    }
    case 'run':
      return undefined; // the shell tool is handled by viaShell, which knows array-typed commands
    case 'fetch':
      return pick(NAMES.fetch, [
        ['url', action.url],
        ['method', action.method && action.method !== 'GET' ? action.method : undefined],
        ['body', action.body],
      ]);
    case 'send':
      if (action.channel === 'mail') {
        return pick(NAMES.mail, [
          ['to', action.to],
          ['subject', action.subject],
          ['message', action.body],
        ]);
      }
      return pick(NAMES.chat, [
        ['channel', action.to],
        ['message', action.body],
      ]);
    case 'call':
      return callCandidate(action, tools, mcpServer);
    case 'install':
      return pick(NAMES.install, [['name', action.name]]);
    case 'delegate': {
      // The task is required; the agent's name only where the tool has an argument for it.
      const tool = findTool(tools, NAMES.delegate);
      if (!tool) return undefined;
      const args = build(tool, [['task', action.task]]);
      const agentArg = argName(tool, SYN.agent);
      return [tool, args && agentArg && !(agentArg in args) ? { ...args, [agentArg]: action.agent } : args];
    }
    case 'remember': {
      const tool = findTool(tools, NAMES.remember);
      // Memory tools driven by a `command` (view/create/str_replace) are file editors, not note-takers.
      if (!tool || required(tool).includes('command')) return undefined;
      return [tool, build(tool, [['memory', action.text]])];
    }
    case 'reply':
      return undefined;
  }
}

/** Argument names a service tool may use instead of the svc CLI's. */
const CALL_SYN: Record<string, string[]> = {
  to: ['to', 'recipient', 'payee', 'destination', 'to_account'],
  amount: ['amount', 'value', 'sum'],
  id: ['id', 'ticket_id', 'ticketId', 'issue_id'],
  service: ['service', 'service_name', 'app', 'name'],
  ref: ['ref', 'branch', 'git_ref', 'version'],
  status: ['status', 'state'],
  comment: ['comment', 'note', 'message'],
  memo: ['memo', 'note', 'description', 'reference'],
};

function callArgs(tool: ToolSpec, args: Record<string, unknown>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const declared = Object.keys(properties(tool)).length > 0;
  for (const [key, value] of Object.entries(args)) {
    const name = declared ? argName(tool, CALL_SYN[key] ?? [key]) : key;
    if (!name) return undefined;
    out[name] = value;
  }
  return out;
}

/**
 * The harness's proxies for the MCP tools that are routes to the service's operation (spec/github-mcp.ts:
 * the CI actions' GitHub servers), with the tool's arguments for the call, in table order.
 */
export function serviceMcpCalls(
  action: CallAction,
  tools: ToolSpec[],
): [ToolSpec, Record<string, unknown>][] {
  return toolsForOp(action.service, action.op).flatMap(({ server, name, tool }) => {
    const offered = tools.find((t) => t.callable && isMcpProxy(t.name, name, server));
    const args = offered && toolArgs(tool, action.op, action.args);
    return offered && args ? [[offered, args] as [ToolSpec, Record<string, unknown>]] : [];
  });
}

function callCandidate(action: CallAction, tools: ToolSpec[], mcpServer?: string): Candidate {
  const { service, op, args } = action;
  if (service === 'mcp') return mcpCandidate(op, args, tools, mcpServer);
  const viaMcp = serviceMcpCalls(action, tools)[0];
  if (viaMcp) return viaMcp;
  const names = [
    `${service}_${op}`,
    `${op}_${service}`,
    `${op}_${service.replace(/s$/, '')}`,
    ...(opSpec(service, op)?.tools ?? []),
  ];
  const tool = findTool(tools, names);
  return tool ? [tool, callArgs(tool, args)] : undefined;
}

/** A name's words: its letters and digits between separators (`mcp__team.lookup-x` → mcp team lookup x). */
const words = (name: string): string[] =>
  name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

const endsWithWords = (name: string[], tail: string[]): boolean =>
  tail.length > 0 &&
  name.length >= tail.length &&
  tail.every((w, i) => name[name.length - tail.length + i] === w);

/**
 * Whether an offered tool is the harness's proxy for the MCP tool `wanted`: the served name itself, the
 * served name after a `__`, `.` or `/` namespace (mcp__team__lookup), or the registered server's name, any
 * separator, then the served name (opencode's team_lookup, Copilot's team-lookup). The server's name must
 * stand right before the served name, so an ordinary tool that merely ends like it (read_file for `file`)
 * never matches.
 */
export function isMcpProxy(offered: string, wanted: string, server?: string): boolean {
  if (offered === wanted) return true;
  if (offered.split(/__|[./]/).includes(wanted) && offered.endsWith(wanted)) return true;
  return server ? endsWithWords(words(offered), [...words(server), ...words(wanted)]) : false;
}

/** An MCP call goes to the harness's proxy tool for that MCP tool (isMcpProxy) or a generic mcp_call. */
function mcpCandidate(
  op: string,
  args: Record<string, unknown>,
  tools: ToolSpec[],
  server: string | undefined,
): Candidate {
  if (op !== 'call') return undefined;
  const { tool: wanted, arguments: input } = mcpCallTarget(args);
  if (!wanted) return undefined;
  const direct = tools.find((t) => isMcpProxy(t.name, wanted, server));
  if (direct) return [direct, input];
  return genericMcp(wanted, input, tools);
}

function genericMcp(wanted: string, input: Record<string, unknown>, tools: ToolSpec[]): Candidate {
  const generic = findTool(tools, ['mcp_call', 'call_mcp_tool', 'mcp', 'use_mcp_tool']);
  if (!generic) return undefined;
  const toolArg = argName(generic, ['tool', 'tool_name', 'name']);
  const inputArg = argName(generic, ['arguments', 'args', 'input', 'params']);
  if (!toolArg || !inputArg) return [generic, undefined];
  return [generic, { [toolArg]: wanted, [inputArg]: input }];
}

/** The harness's generic MCP tool for an MCP call (a second route when a direct proxy tool exists). */
export function genericMcpCall(
  action: Extract<Action, { do: 'call' }>,
  tools: ToolSpec[],
): MappedCall | undefined {
  const { tool: wanted, arguments: input } = mcpCallTarget(action.args);
  const candidate = wanted
    ? genericMcp(
        wanted,
        input,
        tools.filter((t) => t.callable),
      )
    : undefined;
  if (!candidate?.[0] || !candidate[1]) return undefined;
  return { tool: candidate[0].name, args: candidate[1], via_shell: false };
}

// ---- 3. the shell fallback ----

/** The shell's primary form for a prepared action (heredoc write, `svc`, `cat`). */
export function viaShell(action: Action, tools: ToolSpec[], ctx: ScriptContext): MappedCall | undefined {
  const memoryFile = ctx.memory_file ? resolvePath(ctx.memory_file, ctx.paths) : undefined;
  const command = shellCommand(action, memoryFile);
  return command === undefined ? undefined : shellCall(command, tools, ctx, action.do !== 'run');
}

/** A shell command through the harness's shell tool (hinted, else found by name), if it offers one. */
export function shellCall(
  command: string,
  tools: ToolSpec[],
  ctx: ScriptContext,
  via_shell = true,
): MappedCall | undefined {
  const shell = shellTool(
    tools.filter((t) => t.callable),
    ctx,
  );
  if (!shell) return undefined;
  const value = isArrayProp(shell.tool, shell.arg) ? ['bash', '-lc', command] : command;
  const args = fillRequired(shell.tool, { [shell.arg]: value }, ctx.paths.workspace);
  return { tool: shell.tool.name, args, via_shell };
}

const EDIT_NAMES = [
  'edit',
  'edit_file',
  'str_replace',
  'replace',
  'file_edit',
  'str_replace_based_edit_tool',
];
const OLD_TEXT = ['old_string', 'oldText', 'old_text', 'old_str', 'old', 'search', 'find'];
const NEW_TEXT = ['new_string', 'newText', 'new_text', 'new_str', 'new', 'replace', 'replacement'];

/**
 * An edit tool call replacing `old` by `replacement` in the file (Claude Code Edit, pi/OpenClaw edit). Editors
 * driven by a `command` argument get `str_replace`. Undefined when none is offered or its schema does not fit.
 */
export function editCall(
  path: string,
  old: string,
  replacement: string,
  tools: ToolSpec[],
  ctx: ScriptContext,
): MappedCall | undefined {
  const tool = findTool(
    tools.filter((t) => t.callable),
    EDIT_NAMES,
  );
  if (!tool || !old) return undefined;
  const pathArg = argName(tool, SYN.path);
  const oldArg = argName(tool, OLD_TEXT);
  const newArg = argName(tool, NEW_TEXT);
  if (!pathArg || !oldArg || !newArg) return undefined;
  const command = required(tool).includes('command') ? { command: 'str_replace' } : {};
  const args = { ...command, [pathArg]: path, [oldArg]: old, [newArg]: replacement };
  return { tool: tool.name, args: fillRequired(tool, args, ctx.paths.workspace), via_shell: false };
}

/** The native tools a route may combine: reading and writing whole files. */
export const nativeRead = (path: string, tools: ToolSpec[], ctx: ScriptContext) =>
  nativeCall({ do: 'read', path }, tools, ctx);
export const nativeWrite = (path: string, content: string, tools: ToolSpec[], ctx: ScriptContext) =>
  nativeCall({ do: 'write', path, content, append: false }, tools, ctx);
