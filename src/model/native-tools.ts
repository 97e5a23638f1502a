// The second preference of mapping: a native tool of the harness found by name and argument schema (read,
// write, fetch, mail, chat, install, delegate, remember, service ops, MCP calls, edit).
import type { ScriptContext } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import { opSpec } from '../spec/service-catalog.js';
import { SYN } from './arg-synonyms.js';
import type { ToolSpec } from './conversation.js';
import { mcpCandidate, serviceMcpCalls } from './mcp-tools.js';
import type { CallAction } from './prepare-action.js';
import {
  argName,
  type Candidate,
  findTool,
  findTools,
  fitCall,
  type MappedCall,
  properties,
  required,
  taskNamingAgent,
} from './tool-schema.js';
import { type Capability, toolsByShape } from './tool-shapes.js';

export const NAMES = {
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

/** Tools with one of the known names; when none has, those whose words and schema say they can (tool-shapes.ts). */
export function namedOrShaped(tools: ToolSpec[], names: string[], capability: Capability): ToolSpec[] {
  const named = findTools(tools, names);
  return named.length ? named : toolsByShape(tools, capability);
}

export function native(
  action: Action,
  tools: ToolSpec[],
  workspace: string,
  mcpServer?: string,
): MappedCall | undefined {
  const candidate = nativeCandidate(action, tools, mcpServer);
  if (!candidate) return undefined;
  const [tool, args] = candidate;
  return tool && args ? fitCall(tool, args, workspace) : undefined;
}

function nativeCandidate(action: Action, tools: ToolSpec[], mcpServer?: string): Candidate {
  const pick = (names: string[], values: [keyof typeof SYN, unknown][], shape?: Capability): Candidate => {
    const tool = shape ? namedOrShaped(tools, names, shape)[0] : findTool(tools, names);
    return tool ? [tool, build(tool, values)] : undefined;
  };
  switch (action.do) {
    case 'read':
      return pick(NAMES.read, [['path', action.path]], 'read');
    case 'write': {
      // Overwriting when asked to append would destroy what the file held: only a tool with an append
      // argument may append; otherwise the shell does it.
      const writers = namedOrShaped(tools, NAMES.write, 'write');
      const tool = action.append
        ? writers.find((t) => argName(t, ['append']) && Object.keys(properties(t)).length)
        : writers[0];
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
      return pick(
        NAMES.fetch,
        [
          ['url', action.url],
          ['method', action.method && action.method !== 'GET' ? action.method : undefined],
          ['body', action.body],
        ],
        'fetch',
      );
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
      const agentArg = argName(tool, SYN.agent);
      const args = build(tool, [
        ['task', agentArg ? action.task : taskNamingAgent(action.task, action.agent)],
      ]);
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
  return fitCall(tool, args, ctx.paths.workspace);
}
