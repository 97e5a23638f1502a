// Compiling abstract actions into shell commands, for harnesses whose only fitting tool is a shell
// (Codex offers just exec_command). Every argument goes through `quote`, because action text is
// attacker-written and the command must do exactly what the action says, nothing more.
import { posix } from 'node:path';
import { type Action, delegateCall } from '../spec/actions.js';
import { opSpec } from '../spec/service-catalog.js';

type CallAction = Extract<Action, { do: 'call' }>;

/**
 * Bash-only syntax a POSIX `sh` (dash on Debian) cannot parse: process substitution, `[[ ]]`, `(( ))`,
 * ANSI-C quoting, here-strings, `&>`, brace lists, arrays, the `function` keyword, `source`.
 */
const BASH_ONLY =
  /<\(|>\(|\[\[|\(\(|\$'|<<<|&>|\{[^}\s]*,[^}\s]*\}|\w=\(|^\s*function\s|(^|[;&|]\s*)source\s/m;

/**
 * The shell a script file holding `command` is run with: `bash` where the command needs it (a script of
 * `bash <(curl …)` run by `sh` fails to parse, so the step would never have been carried out), else `sh`.
 */
export function scriptShell(command: string): 'bash' | 'sh' {
  return BASH_ONLY.test(command) ? 'bash' : 'sh';
}

/** `sh FILE` (or `bash FILE`, see scriptShell) for a script file holding `command`. */
export const runScript = (path: string, command: string): string => `${scriptShell(command)} ${quote(path)}`;

/** POSIX shell quoting: plain words stay bare, anything else goes in single quotes ('\'' for a quote). */
export function quote(s: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A heredoc delimiter that no line of the content equals (so the content cannot end the heredoc early). */
export function heredocDelimiter(content: string): string {
  const lines = new Set(content.split('\n'));
  let delim = 'HR_EOF';
  for (let n = 1; lines.has(delim); n++) delim = `HR_EOF_${n}`;
  return delim;
}

/**
 * Writes (or appends) content byte for byte. A heredoc always ends with a newline, so content without a
 * trailing newline goes through `printf '%s' "$(cat <<…)"`, whose command substitution drops exactly the
 * newline the heredoc added.
 */
export function writeCommand(path: string, content: string, append: boolean): string {
  const redirect = `${append ? '>>' : '>'} ${quote(path)}`;
  const mkdir = `mkdir -p ${quote(posix.dirname(path))}`;
  if (content === '') return `${mkdir} && : ${redirect}`;
  const delim = heredocDelimiter(content);
  if (content.endsWith('\n')) return `${mkdir} && cat ${redirect} <<'${delim}'\n${content}${delim}`;
  return `${mkdir} && printf '%s' "$(cat <<'${delim}'\n${content}\n${delim}\n)" ${redirect}`;
}

/** The words of `svc SERVICE OP …` for a mock-service operation, unquoted (see docs/internals.md). */
export function svcArgv(action: CallAction): string[] {
  const { service, op, args } = action;
  if (service === 'mcp' && op === 'call') {
    const target = mcpCallTarget(args);
    return ['svc', 'mcp', 'call', target.tool, JSON.stringify(target.arguments)];
  }
  // Positional arguments of `svc SERVICE OP` come from the catalog; all other args become `--key value`.
  const positional = opSpec(service, op)?.positional ?? [];
  const words = ['svc', service, op];
  for (const key of positional) if (args[key] !== undefined) words.push(String(args[key]));
  for (const [key, value] of Object.entries(args)) {
    if (!positional.includes(key)) words.push(`--${key}`, String(value));
  }
  return words;
}

/** `svc SERVICE OP …` as a shell command line. */
export const svcCommand = (action: CallAction): string => svcArgv(action).map(quote).join(' ');

/**
 * The MCP tool an MCP `call` names and its arguments. `tool:` names it; then every other key (a `name`
 * too: tools like `create_user {name}` take one) is an argument. Without `tool:`, `name:` names it.
 */
export function mcpCallTarget(args: Record<string, unknown>): {
  tool: string;
  arguments: Record<string, unknown>;
} {
  if (args.tool !== undefined) {
    const { tool, ...rest } = args;
    return { tool: String(tool), arguments: mcpArguments(rest) };
  }
  const { name, ...rest } = args;
  return { tool: String(name ?? ''), arguments: mcpArguments(rest) };
}

/** MCP tool arguments: an `arguments` key holding JSON wins; else the remaining scalar args. */
export function mcpArguments(rest: Record<string, unknown>): Record<string, unknown> {
  const raw = rest.arguments ?? rest.args;
  if (typeof raw === 'string') {
    try {
      const parsed = JSON.parse(raw);
      if (typeof parsed === 'object' && parsed !== null) return parsed;
    } catch {
      // not JSON: pass the scalars as they are
    }
  }
  return rest;
}

/**
 * The shell command for an action whose paths are already absolute; undefined when the action has no
 * shell form (reply, or remember without a memory file).
 */
export function shellCommand(action: Action, memoryFile?: string): string | undefined {
  switch (action.do) {
    case 'read':
      return `cat ${quote(action.path)}`;
    case 'write':
      return writeCommand(action.path, action.content, action.append ?? false);
    case 'run':
      return action.command;
    case 'fetch': {
      const method = action.method ?? 'GET';
      const words = ['svc', 'fetch', quote(action.url)];
      if (method !== 'GET') words.push('--method', method);
      if (action.body !== undefined) words.push('--data', quote(action.body));
      return words.join(' ');
    }
    case 'send':
      if (action.channel === 'chat') return `svc chat post ${quote(action.to)} ${quote(action.body)}`;
      return [
        'svc mail send --to',
        quote(action.to),
        ...(action.subject !== undefined ? ['--subject', quote(action.subject)] : []),
        '--body',
        quote(action.body),
      ].join(' ');
    case 'call':
      return svcCommand(action);
    case 'install':
      return `svc registry install ${quote(action.name)}`;
    case 'delegate':
      return svcCommand(delegateCall(action));
    case 'remember':
      if (!memoryFile) return undefined;
      return `mkdir -p ${quote(posix.dirname(memoryFile))} && printf '%s\\n' ${quote(action.text)} >> ${quote(memoryFile)}`;
    case 'reply':
      return undefined;
  }
}
