// A small POSIX-shell reader, enough for a policy to see what a command line will do: it splits lists and
// pipelines (`|`, `||`, `&&`, `;`, `&`, newlines, subshell parentheses), removes quotes, expands `~`,
// `$VAR` and `${VAR}`, collects redirections and here-documents, and flags what it cannot see through
// (command and process substitution, unsupported expansions).
import { svcRequest } from '../../../src/world/svc-core.js';

export interface Redirect {
  op: string;
  /** File name, or the delimiter of a here-document, or the word of a here-string. */
  target: string;
  /** Body of a here-document. */
  body?: string;
}

export interface SimpleCommand {
  argv: string[];
  redirects: Redirect[];
  /** The part's source text (for messages). */
  text: string;
}

export interface ParsedShell {
  commands: SimpleCommand[];
  /** `$(…)`, backticks or `<(…)`/`>(…)` occur outside single quotes. */
  substitution: boolean;
  /** A syntax problem (unterminated quote…). */
  error?: string;
}

const OPERATORS = ['&&', '||', ';;', '|&', '|', ';', '&', '(', ')', '\n'];

export function parseShell(input: string, env: Record<string, string | undefined>): ParsedShell {
  const commands: SimpleCommand[] = [];
  let substitution = false;
  let error: string | undefined;
  let argv: string[] = [];
  let redirects: Redirect[] = [];
  let word: string | null = null;
  let pendingRedirect: string | null = null;
  let partStart = 0;
  const heredocs: Redirect[] = [];

  const expandVar = (name: string): string => env[name] ?? '';

  const endWord = () => {
    if (word === null) return;
    if (pendingRedirect !== null) {
      const r: Redirect = { op: pendingRedirect, target: word };
      redirects.push(r);
      if (pendingRedirect === '<<' || pendingRedirect === '<<-') heredocs.push(r);
      pendingRedirect = null;
    } else argv.push(word);
    word = null;
  };
  const endCommand = (end: number) => {
    endWord();
    if (argv.length || redirects.length) {
      commands.push({ argv, redirects, text: input.slice(partStart, end).trim() });
    }
    argv = [];
    redirects = [];
    partStart = end + 1;
  };

  let i = 0;
  const n = input.length;
  while (i < n) {
    const c = input[i];
    // Here-document bodies start after the newline that ends their command line.
    if (c === '\n') endWord();
    if (c === '\n' && heredocs.length) {
      endCommand(i);
      i++;
      for (const doc of heredocs.splice(0)) {
        const strip = doc.op === '<<-';
        const lines: string[] = [];
        while (i < n) {
          let eol = input.indexOf('\n', i);
          if (eol === -1) eol = n;
          const line = strip ? input.slice(i, eol).replace(/^\t+/, '') : input.slice(i, eol);
          i = eol + 1;
          if (line === doc.target) break;
          lines.push(line);
        }
        doc.body = lines.length ? `${lines.join('\n')}\n` : '';
      }
      partStart = i;
      continue;
    }
    if (word === null && (c === ' ' || c === '\t')) {
      i++;
      continue;
    }
    if (c === ' ' || c === '\t') {
      endWord();
      i++;
      continue;
    }
    if (c === '#' && word === null) {
      // Comment to end of line.
      while (i < n && input[i] !== '\n') i++;
      continue;
    }
    // Redirections: [n]>, [n]>>, >|, &>, <, <<, <<-, >&n, <&n.
    const redir = /^(?:\d*>>|\d*>\||&>>|&>|\d*>&|\d*<&|<<-|<<<|<<|\d*>|\d*<)/.exec(input.slice(i, i + 4));
    if (redir && (word === null || /^\d+$/.test(word))) {
      if (word !== null && /^\d+$/.test(word)) word = null;
      if (input[i + redir[0].length] === '(' && (redir[0] === '<' || redir[0] === '>')) {
        substitution = true;
      }
      endWord();
      pendingRedirect = redir[0].replace(/^\d+/, '');
      i += redir[0].length;
      if (pendingRedirect.endsWith('&')) {
        // `>&2`, `2>&1`: a descriptor, not a file.
        const fd = /^\s*(\d+|-)/.exec(input.slice(i));
        if (fd) {
          i += fd[0].length;
          pendingRedirect = null;
        } else pendingRedirect = pendingRedirect === '>&' ? '>' : '<';
      }
      continue;
    }
    const op =
      word === null || !['(', ')'].includes(c) ? OPERATORS.find((o) => input.startsWith(o, i)) : undefined;
    if (op) {
      endCommand(i);
      i += op.length;
      partStart = i;
      continue;
    }
    if (c === "'") {
      const close = input.indexOf("'", i + 1);
      if (close === -1) {
        error = 'unterminated single quote';
        word = (word ?? '') + input.slice(i + 1);
        i = n;
        continue;
      }
      word = (word ?? '') + input.slice(i + 1, close);
      i = close + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let text = '';
      for (; j < n && input[j] !== '"'; j++) {
        const d = input[j];
        if (d === '\\' && j + 1 < n && '$`"\\\n'.includes(input[j + 1])) {
          text += input[j + 1];
          j++;
        } else if (d === '`' || (d === '$' && input[j + 1] === '(')) {
          substitution = true;
          text += d;
        } else if (d === '$') {
          const [value, len] = readVar(input, j, expandVar);
          if (len === 0) text += d;
          else {
            text += value;
            j += len - 1;
          }
        } else text += d;
      }
      if (j >= n) error = 'unterminated double quote';
      word = (word ?? '') + text;
      i = j + 1;
      continue;
    }
    if (c === '\\') {
      if (input[i + 1] === '\n') {
        i += 2;
        continue;
      }
      word = (word ?? '') + (input[i + 1] ?? '');
      i += 2;
      continue;
    }
    if (c === '`') {
      substitution = true;
      word = (word ?? '') + c;
      i++;
      continue;
    }
    if (c === '$') {
      if (input[i + 1] === '(') {
        substitution = true;
        word = (word ?? '') + c;
        i++;
        continue;
      }
      const [value, len] = readVar(input, i, expandVar);
      if (len > 0) {
        word = (word ?? '') + value;
        i += len;
        continue;
      }
    }
    if (c === '~' && word === null && (i + 1 >= n || /[/\s;|&)]/.test(input[i + 1]))) {
      word = env.HOME ?? '~';
      i++;
      continue;
    }
    word = (word ?? '') + c;
    i++;
  }
  endCommand(n);
  if (pendingRedirect !== null && !error) error = `redirection ${pendingRedirect} without a target`;
  return { commands, substitution, error };
}

/** Reads `$NAME`, `${NAME}` or `${NAME:-default}` at `i`; returns [value, consumed length] (0 = not a variable). */
function readVar(input: string, i: number, lookup: (name: string) => string): [string, number] {
  const simple = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(input.slice(i));
  if (simple) return [lookup(simple[1]), simple[0].length];
  const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/.exec(input.slice(i));
  if (braced) {
    const v = lookup(braced[1]);
    return [v === '' && braced[2] !== undefined ? braced[2] : v, braced[0].length];
  }
  return ['', 0];
}

/** The equivalent harness tool of a `svc` command line (the mock-services CLI), if it maps to one. */
export interface SvcMapping {
  tool: string;
  args: Record<string, unknown>;
}

function options(argv: string[]): { positional: string[]; opts: Record<string, string> } {
  const positional: string[] = [];
  const opts: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq !== -1) opts[a.slice(2, eq)] = a.slice(eq + 1);
      else {
        opts[a.slice(2)] = argv[i + 1] ?? '';
        i++;
      }
    } else positional.push(a);
  }
  return { positional, opts };
}

/** Maps `svc SERVICE OP …` to the harness tool that does the same, so both go through one policy. */
export function svcToTool(argv: string[], svc: string): SvcMapping | undefined {
  if (argv[0] !== 'svc') return undefined;
  const [service, op, ...rest] = argv.slice(1);
  const { positional, opts } = options(rest);
  const get = (p: string): SvcMapping => ({
    tool: 'http_request',
    args: { url: `${svc}${p}`, method: 'GET' },
  });
  const post = (p: string, body: unknown): SvcMapping => ({
    tool: 'http_request',
    args: { url: `${svc}${p}`, method: 'POST', body: JSON.stringify(body) },
  });
  const enc = encodeURIComponent;
  switch (`${service} ${op}`) {
    case 'mail inbox':
      return get('/mail/inbox');
    case 'mail read':
      return get(`/mail/messages/${enc(positional[0] ?? '')}`);
    case 'mail send':
      return {
        tool: 'send_mail',
        args: { to: opts.to ?? '', subject: opts.subject ?? '', body: opts.body ?? '' },
      };
    case 'chat read':
      return get(`/chat/channels/${enc(positional[0] ?? '')}`);
    case 'chat post':
      return {
        tool: 'post_chat',
        args: { channel: positional[0] ?? '', text: positional.slice(1).join(' ') },
      };
    case 'payments balance':
      return get('/payments/balance');
    case 'payments transfer': {
      const args: Record<string, unknown> = { to: opts.to ?? '', amount: Number(opts.amount) };
      if (opts.currency !== undefined) args.currency = opts.currency;
      if (opts.memo !== undefined) args.memo = opts.memo;
      return { tool: 'pay', args };
    }
    case 'deploy status':
      return get('/deploy/status');
    case 'deploy trigger': {
      const args: Record<string, unknown> = { service: opts.service ?? '' };
      if (opts.ref !== undefined) args.ref = opts.ref;
      if (opts.env !== undefined) args.env = opts.env;
      return { tool: 'deploy', args };
    }
    case 'deploy logs':
      return get(`/deploy/logs/${enc(positional[0] ?? '')}`);
    case 'deploy tokens':
      return get('/deploy/tokens');
    case 'deploy enable':
    case 'deploy disable':
    case 'deploy rotate':
      return post(`/deploy/tokens/${enc(positional[0] ?? '')}/${op}`, {});
    case 'calendar list':
      return get('/calendar/invites');
    case 'calendar show':
      return get(`/calendar/invites/${enc(positional[0] ?? '')}`);
    case 'calendar accept':
    case 'calendar decline':
      return post(
        `/calendar/invites/${enc(positional[0] ?? '')}/${op}`,
        opts.comment !== undefined ? { comment: opts.comment } : {},
      );
    case 'agents run':
      return post(`/agents/${enc(positional[0] ?? '')}/run`, { task: positional.slice(1).join(' ') });
    case 'registry search':
      return get('/registry/packages');
    case 'registry show':
    case 'registry get':
      return get(`/registry/packages/${enc(positional[0] ?? opts.name ?? '')}`);
    case 'registry install':
      return { tool: 'install_skill', args: { name: positional[0] ?? '' } };
    case 'web get':
      return get(`/web/${(positional[0] ?? '').replace(/^\/+/, '')}`);
    case 'tickets list':
      return get('/tickets');
    case 'tickets read':
      return get(`/tickets/${enc(positional[0] ?? '')}`);
    case 'tickets update': {
      const args: Record<string, unknown> = { id: positional[0] ?? '' };
      if (opts.status !== undefined) args.status = opts.status;
      if (opts.comment !== undefined) args.comment = opts.comment;
      return { tool: 'update_ticket', args };
    }
    case 'mcp list':
    case 'mcp tools/list':
      return {
        tool: 'http_request',
        args: {
          url: `${svc}/mcp`,
          method: 'POST',
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        },
      };
    case 'mcp call': {
      let args: unknown = {};
      if (positional[1] !== undefined) {
        try {
          args = JSON.parse(positional[1]);
        } catch {
          args = positional[1];
        }
      }
      return { tool: 'mcp_call', args: { tool: positional[0] ?? '', arguments: args } };
    }
    case 'mcp tools/call': {
      // `svc mcp tools/call --name TOOL --key value…`: the JSON-RPC method spelled out.
      const { name, tool, ...rest } = opts;
      return { tool: 'mcp_call', args: { tool: name ?? tool ?? positional[0] ?? '', arguments: rest } };
    }
  }
  if (service === 'github') {
    // The world's GitHub: the request the svc CLI itself would send, from the catalog's routes.
    try {
      const r = svcRequest(argv.slice(1));
      return {
        tool: 'http_request',
        args: { url: `${svc}${r.url}`, method: r.method, ...(r.body !== undefined ? { body: r.body } : {}) },
      };
    } catch {
      return undefined;
    }
  }
  if (service === 'fetch') {
    const { positional: pos, opts: o } = options(argv.slice(2));
    const args: Record<string, unknown> = {
      url: pos[0] ?? '',
      method: o.method ?? (o.data ? 'POST' : 'GET'),
    };
    if (o.data !== undefined) args.body = o.data;
    return { tool: 'http_request', args };
  }
  return undefined;
}

/**
 * The HTTP method and body a `curl` or `wget` command line sends (for the same policy as `http_request`):
 * curl's -X/--request, -d/--data…/--json/-F (POST unless -X says otherwise), -G/--get; wget's
 * --method, --post-data/--post-file, --body-data. Undefined for other commands.
 */
export function httpRequestOf(argv: string[]): { method: string; body: string | undefined } | undefined {
  const name = argv[0]?.split('/').pop() ?? '';
  if (name !== 'curl' && name !== 'wget') return undefined;
  let method: string | undefined;
  let body: string | undefined;
  let get = false;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const flag = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const inline = a.startsWith('--') && eq > 0 ? a.slice(eq + 1) : undefined;
    const value = (): string => inline ?? argv[++i] ?? '';
    if (name === 'curl') {
      if (flag === '-X' || flag === '--request') method = value();
      else if (/^-X./.test(a)) method = a.slice(2);
      else if (
        [
          '-d',
          '--data',
          '--data-raw',
          '--data-binary',
          '--data-ascii',
          '--data-urlencode',
          '--json',
          '-F',
          '--form',
        ].includes(flag)
      )
        body = (body ? `${body}&` : '') + value();
      else if (/^-d./.test(a)) body = (body ? `${body}&` : '') + a.slice(2);
      else if (flag === '-G' || flag === '--get') get = true;
    } else {
      if (flag === '--method') method = value();
      else if (
        flag === '--post-data' ||
        flag === '--body-data' ||
        flag === '--post-file' ||
        flag === '--body-file'
      ) {
        body = value();
        method ??= 'POST';
      }
    }
  }
  const m = (method ?? (body !== undefined && !get ? 'POST' : 'GET')).toUpperCase();
  return { method: m, body };
}

/**
 * The equivalent action tool of an HTTP request to a mock-service route that changes state (so
 * `http_request POST {{svc}}/payments/transfer` is checked like `pay`).
 */
export function serviceRouteToTool(
  method: string,
  url: URL,
  body: string | undefined,
): SvcMapping | undefined {
  if (method.toUpperCase() === 'GET' || method.toUpperCase() === 'HEAD') return undefined;
  let json: Record<string, unknown> = {};
  try {
    const parsed = body ? JSON.parse(body) : {};
    if (parsed && typeof parsed === 'object') json = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: the route's fields stay empty, which approval treats as not approved.
  }
  const p = url.pathname.replace(/\/+$/, '');
  if (p === '/mail/send') return { tool: 'send_mail', args: json };
  const chat = /^\/chat\/channels\/([^/]+)$/.exec(p);
  if (chat) return { tool: 'post_chat', args: { ...json, channel: decodeURIComponent(chat[1]) } };
  if (p === '/payments/transfer') return { tool: 'pay', args: json };
  if (p === '/deploy/trigger') return { tool: 'deploy', args: json };
  const install = /^\/registry\/packages\/([^/]+)\/install$/.exec(p);
  if (install) return { tool: 'install_skill', args: { name: decodeURIComponent(install[1]) } };
  const ticket = /^\/tickets\/([^/]+)$/.exec(p);
  if (ticket) return { tool: 'update_ticket', args: { ...json, id: decodeURIComponent(ticket[1]) } };
  if (p === '/mcp' && json.method === 'tools/call') {
    const params = (json.params ?? {}) as Record<string, unknown>;
    return { tool: 'mcp_call', args: { tool: params.name, arguments: params.arguments } };
  }
  return undefined;
}
