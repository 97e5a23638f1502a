// The `svc` CLI's logic: shell-only harnesses reach the mock services through it. It runs inside sandboxes
// from dist/svc.js, so it uses node built-ins only. Every request goes to HR_SVC; a URL on another host
// (`svc fetch https://elsewhere/`) is sent to HR_SVC in proxy form, where it is recorded as egress and
// refused, so the CLI itself can never reach the network.

import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import {
  type OpName,
  opSpec,
  SERVICES,
  type ServiceName,
  SVC_COMMANDS,
  svcUsage,
} from '../spec/service-catalog.js';

export interface SvcIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const FETCH_USAGE = 'fetch URL [--method M] [--data D]';

/** The help text, from the service catalog (plus `svc fetch`, which is not a service). */
export const HELP = [
  'usage: svc SERVICE COMMAND [ARGS]   (talks to the mock services at $HR_SVC)',
  '',
  ...SVC_COMMANDS.map(([service, op]) => {
    const note = opSpec(service, op)?.svcNote;
    const line = `  svc ${svcUsage(service, op)}`;
    return note ? `${line.padEnd(35)}${note}` : line;
  }),
  `  svc ${FETCH_USAGE}`,
  '',
  'Prints the response body; exits 1 on an HTTP or network error, 2 on bad usage.',
  '',
].join('\n');

class UsageError extends Error {}
class SvcError extends Error {}

/** A request to make, and what to do with a successful response. */
interface Plan {
  method: string;
  /** Path relative to HR_SVC, or an absolute URL. */
  url: string;
  json?: unknown;
  data?: string;
  output?: (body: string, env: Env, io: SvcIo) => Promise<void>;
}

type Env = Record<string, string | undefined>;

/** Runs one `svc` invocation; resolves to the exit code. */
export async function runSvc(argv: string[], env: Env, io: SvcIo): Promise<number> {
  if (argv.length === 1 && ['--help', '-h', 'help'].includes(argv[0])) {
    io.stdout(HELP);
    return 0;
  }
  try {
    const plan = planFor(argv, env);
    const base = baseUrl(env);
    const response = await send(base, plan);
    if (response.status >= 400) {
      if (response.body) io.stdout(withNewline(response.body));
      throw new SvcError(`HTTP ${response.status} ${response.statusText} from ${plan.method} ${plan.url}`);
    }
    if (plan.output) await plan.output(response.body, env, io);
    else if (response.body) io.stdout(withNewline(response.body));
    return 0;
  } catch (error) {
    const message = (error as Error).message.split('\n')[0];
    io.stderr(`svc: ${message}\n`);
    if (error instanceof UsageError) io.stderr(`run 'svc --help' for the commands\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

function baseUrl(env: Env): URL {
  const raw = env.HR_SVC;
  if (!raw) throw new SvcError('HR_SVC is not set (the base URL of the mock services)');
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:') throw new Error();
    return url;
  } catch {
    throw new SvcError(`HR_SVC is not an http:// URL: ${raw}`);
  }
}

// ---- argument parsing ----

interface Parsed {
  args: string[];
  opts: Record<string, string>;
}

/** Positionals and `--name value` / `--name=value` options; unknown options are usage errors. */
function parse(argv: string[], allowed: string[] | 'any'): Parsed {
  const parsed: Parsed = { args: [], opts: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      parsed.args.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      parsed.args.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (allowed !== 'any' && !allowed.includes(name)) throw new UsageError(`unknown option --${name}`);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    parsed.opts[name] = value;
  }
  return parsed;
}

function need(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing ${what}`);
  return value;
}

function exactly(parsed: Parsed, count: number, usage: string): string[] {
  if (parsed.args.length !== count) throw new UsageError(`usage: svc ${usage}`);
  return parsed.args;
}

const enc = encodeURIComponent;

// ---- commands ----

/** Builds the request of one command; `usage` is its catalog usage line, for usage errors. */
type Command = (rest: string[], env: Env, usage: string) => Plan;

/** A command without arguments: GET `url`. */
function bare(url: string): Command {
  return (rest, _env, usage) => {
    exactly(parse(rest, []), 0, usage);
    return { method: 'GET', url };
  };
}

/** `svc deploy enable|disable|rotate NAME`: POST to the token's op. */
function tokenCommand(op: string): Command {
  return (rest, _env, usage) => {
    const [name] = exactly(parse(rest, []), 1, usage);
    return { method: 'POST', url: `/deploy/tokens/${enc(name)}/${op}`, json: {} };
  };
}

/** `svc calendar accept|decline ID [--comment C]`. */
function respondCommand(op: string): Command {
  return (rest, _env, usage) => {
    const p = parse(rest, ['comment']);
    const [id] = exactly(p, 1, usage);
    const json = p.opts.comment !== undefined ? { comment: p.opts.comment } : {};
    return { method: 'POST', url: `/calendar/invites/${enc(id)}/${op}`, json };
  };
}

/**
 * A command built from the op's catalog route (the world's GitHub): OWNER/REPO, then the route's other
 * parameters in order; `--name value` options become the JSON body (a GET's query). A `content` option of
 * a contents write is base64-encoded, as the API wants it.
 */
function routeCommand(service: string, op: string): Command {
  return (rest, _env, usage) => {
    const spec = opSpec(service, op)!;
    const p = parse(rest, 'any');
    const names = [...spec.path!.matchAll(/:([a-z_]+)\+?/g)].map((m) => m[1]!);
    const [repo, ...args] = p.args;
    const [owner, name] = need(repo, 'OWNER/REPO').split('/');
    if (!owner || !name || args.length !== names.length - 2) throw new UsageError(`usage: svc ${usage}`);
    const values: Record<string, string> = { owner, repo: name };
    names.slice(2).forEach((n, i) => {
      values[n] = args[i]!;
    });
    const url = spec.path!.replace(/:([a-z_]+)(\+?)/g, (_m, n: string, plus: string) =>
      plus ? values[n]!.split('/').map(enc).join('/') : enc(values[n]!),
    );
    const opts = { ...p.opts };
    if (op === 'put_contents' && opts.content !== undefined)
      opts.content = Buffer.from(opts.content).toString('base64');
    if (op === 'add_labels' && opts.labels !== undefined)
      return { method: spec.method!, url, json: { labels: opts.labels.split(',') } };
    if (spec.method === 'GET') {
      const q = new URLSearchParams(opts).toString();
      return { method: 'GET', url: q ? `${url}?${q}` : url };
    }
    return { method: spec.method!, url, json: opts };
  };
}

/** Ops the catalog gives a `svc` command. */
type SvcOp<S extends ServiceName> = {
  [O in OpName<S>]: (typeof SERVICES)[S]['ops'][O] extends { svc: string } ? O : never;
}[OpName<S>];

/** A command for every op the catalog gives one: the compiler asks for it when the catalog grows. */
type Commands = { [S in ServiceName as [SvcOp<S>] extends [never] ? never : S]: Record<SvcOp<S>, Command> };

const githubCommands = Object.fromEntries(
  Object.entries(SERVICES.github.ops).flatMap(([op, spec]) =>
    'svc' in spec ? [[op, routeCommand('github', op)]] : [],
  ),
) as Commands['github'];

const COMMANDS: Commands = {
  github: githubCommands,
  mail: {
    inbox: bare('/mail/inbox'),
    read: (rest, _env, usage) => {
      const [id] = exactly(parse(rest, []), 1, usage);
      return { method: 'GET', url: `/mail/messages/${enc(id)}` };
    },
    send: (rest, _env, usage) => {
      const p = parse(rest, ['to', 'subject', 'body']);
      exactly(p, 0, usage);
      const json = {
        to: need(p.opts.to, '--to'),
        subject: p.opts.subject ?? '',
        body: need(p.opts.body, '--body'),
      };
      return { method: 'POST', url: '/mail/send', json };
    },
  },
  chat: {
    read: (rest, _env, usage) => {
      const [ch] = exactly(parse(rest, []), 1, usage);
      return { method: 'GET', url: `/chat/channels/${enc(ch)}` };
    },
    post: (rest, _env, usage) => {
      const { args } = parse(rest, []);
      if (args.length < 2) throw new UsageError(`usage: svc ${usage}`);
      return {
        method: 'POST',
        url: `/chat/channels/${enc(args[0])}`,
        json: { text: args.slice(1).join(' ') },
      };
    },
  },
  payments: {
    balance: bare('/payments/balance'),
    transfer: (rest, _env, usage) => {
      const p = parse(rest, ['to', 'amount', 'memo', 'currency']);
      exactly(p, 0, usage);
      const amount = need(p.opts.amount, '--amount');
      const json = {
        to: need(p.opts.to, '--to'),
        amount: Number.isFinite(Number(amount)) ? Number(amount) : amount,
        ...(p.opts.memo !== undefined ? { memo: p.opts.memo } : {}),
        ...(p.opts.currency !== undefined ? { currency: p.opts.currency } : {}),
      };
      return { method: 'POST', url: '/payments/transfer', json };
    },
  },
  deploy: {
    status: bare('/deploy/status'),
    trigger: (rest, _env, usage) => {
      const p = parse(rest, ['service', 'ref', 'env']);
      exactly(p, 0, usage);
      const json = { service: need(p.opts.service, '--service'), ref: p.opts.ref, env: p.opts.env };
      return { method: 'POST', url: '/deploy/trigger', json };
    },
    logs: (rest, _env, usage) => {
      const [id] = exactly(parse(rest, []), 1, usage);
      return { method: 'GET', url: `/deploy/logs/${enc(id)}` };
    },
    tokens: bare('/deploy/tokens'),
    enable: tokenCommand('enable'),
    disable: tokenCommand('disable'),
    rotate: tokenCommand('rotate'),
  },
  calendar: {
    list: bare('/calendar/invites'),
    show: (rest, _env, usage) => {
      const [id] = exactly(parse(rest, []), 1, usage);
      return { method: 'GET', url: `/calendar/invites/${enc(id)}` };
    },
    accept: respondCommand('accept'),
    decline: respondCommand('decline'),
  },
  agents: {
    run: (rest, _env, usage) => {
      const { args } = parse(rest, []);
      if (args.length < 2) throw new UsageError(`usage: svc ${usage}`);
      return { method: 'POST', url: `/agents/${enc(args[0])}/run`, json: { task: args.slice(1).join(' ') } };
    },
  },
  registry: {
    search: (rest) => {
      const { args } = parse(rest, []);
      const q = args.join(' ');
      return { method: 'GET', url: q ? `/registry/packages?q=${enc(q)}` : '/registry/packages' };
    },
    show: (rest, _env, usage) => {
      const [name] = exactly(parse(rest, []), 1, usage);
      return { method: 'GET', url: `/registry/packages/${enc(name)}` };
    },
    install: (rest, env, usage) => {
      const [name] = exactly(parse(rest, []), 1, usage);
      // Checked before the request, so a misconfigured sandbox fails without a half-done install.
      const pkgDir = packageDir(need(env.HR_SKILLS_DIR, 'HR_SKILLS_DIR in the environment'), name);
      return {
        method: 'POST',
        url: `/registry/packages/${enc(name)}/install`,
        output: (body, _env, io) => installFiles(pkgDir, body, io),
      };
    },
  },
  web: {
    get: (rest, _env, usage) => {
      const [path] = exactly(parse(rest, []), 1, usage);
      return { method: 'GET', url: `/web/${encodeURI(path.replace(/^\/+/, ''))}` };
    },
  },
  tickets: {
    list: bare('/tickets'),
    read: (rest, _env, usage) => {
      const [id] = exactly(parse(rest, []), 1, usage);
      return { method: 'GET', url: `/tickets/${enc(id)}` };
    },
    update: (rest, _env, usage) => {
      const p = parse(rest, ['status', 'comment']);
      const [id] = exactly(p, 1, usage);
      if (p.opts.status === undefined && p.opts.comment === undefined)
        throw new UsageError('give --status or --comment');
      return {
        method: 'POST',
        url: `/tickets/${enc(id)}`,
        json: { status: p.opts.status, comment: p.opts.comment },
      };
    },
  },
  mcp: {
    list: (rest, _env, usage) => {
      exactly(parse(rest, []), 0, usage);
      return { method: 'POST', url: '/mcp', json: rpc('tools/list', {}), output: printRpc((r) => r.tools) };
    },
    call: (rest, _env, usage) => {
      const { args } = parse(rest, []);
      if (args.length < 1 || args.length > 2) throw new UsageError(`usage: svc ${usage}`);
      const json = rpc('tools/call', { name: args[0], arguments: jsonArg(args[1]) });
      return { method: 'POST', url: '/mcp', json, output: printRpc(toolText) };
    },
  },
};

function planFor(argv: string[], env: Env): Plan {
  const [service, command, ...rest] = argv;
  if (service === undefined) throw new UsageError('no command given');
  if (service === 'fetch') return fetchPlan(argv.slice(1));
  const all = COMMANDS as Record<string, Record<string, Command>>;
  const commands = Object.hasOwn(all, service) ? all[service] : undefined;
  if (!commands) throw new UsageError(`unknown service ${service}`);
  if (command === undefined || !Object.hasOwn(commands, command)) {
    throw new UsageError(`usage: svc ${service} ${Object.keys(commands).join('|')}`);
  }
  return commands[command](rest, env, svcUsage(service, command));
}

function fetchPlan(rest: string[]): Plan {
  const p = parse(rest, ['method', 'data']);
  const [url] = exactly(p, 1, FETCH_USAGE);
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^https?:\/\//i.test(url))
    throw new UsageError(`unsupported URL ${url}`);
  // Like curl: data without a method means POST.
  const method = (p.opts.method ?? (p.opts.data !== undefined ? 'POST' : 'GET')).toUpperCase();
  return { method, url, data: p.opts.data };
}

// ---- MCP ----

function rpc(method: string, params: unknown) {
  return { jsonrpc: '2.0', id: 1, method, params };
}

function jsonArg(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`arguments must be JSON: ${text}`);
  }
}

function toolText(result: any): string {
  const content: any[] = Array.isArray(result?.content) ? result.content : [];
  const text = content.map((c) => (typeof c?.text === 'string' ? c.text : JSON.stringify(c))).join('\n');
  if (result?.isError) throw new SvcError(`tool error: ${text}`);
  return text;
}

function printRpc(pick: (result: any) => unknown) {
  return async (body: string, _env: Env, io: SvcIo): Promise<void> => {
    let reply: any;
    try {
      reply = JSON.parse(body);
    } catch {
      throw new SvcError('MCP server sent a response that is not JSON');
    }
    if (reply?.error) throw new SvcError(`MCP error ${reply.error.code}: ${reply.error.message}`);
    const picked = pick(reply?.result);
    io.stdout(withNewline(typeof picked === 'string' ? picked : JSON.stringify(picked, null, 2)));
  };
}

// ---- registry install ----

/** HR_SKILLS_DIR/NAME, refusing names that leave the skills folder. */
function packageDir(skillsDir: string, name: string): string {
  return inside(resolve(skillsDir), name, `package name ${name}`);
}

function inside(base: string, path: string, what: string): string {
  const target = resolve(base, path);
  const rel = relative(base, target);
  if (isAbsolute(path) || rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new SvcError(`refusing ${what}: it escapes ${base}`);
  }
  return target;
}

async function installFiles(pkgDir: string, body: string, io: SvcIo): Promise<void> {
  io.stdout(withNewline(body));
  let files: Record<string, unknown>;
  try {
    files = JSON.parse(body).files ?? {};
  } catch {
    throw new SvcError('registry sent a response that is not JSON');
  }
  // Every path is checked before anything is written: a package with one bad path installs nothing.
  const targets = Object.entries(files).map(([path, content]) => {
    if (typeof content !== 'string') throw new SvcError(`registry sent a non-text file ${path}`);
    return [inside(pkgDir, path, `file ${path}`), content] as const;
  });
  for (const [target, content] of targets) {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  io.stderr(`svc: installed ${targets.length} file(s) into ${pkgDir}\n`);
  runLifecycle(pkgDir, typeof files['package.json'] === 'string' ? files['package.json'] : undefined, io);
}

/** The lifecycle scripts npm runs on install, in its order. */
export const LIFECYCLE = ['preinstall', 'install', 'postinstall'] as const;

/** The package's lifecycle scripts, from its package.json text (none when it has none or is not JSON). */
export function lifecycleScripts(packageJson: string | undefined): [string, string][] {
  let scripts: Record<string, unknown> = {};
  try {
    scripts = (JSON.parse(packageJson ?? '{}') as { scripts?: Record<string, unknown> }).scripts ?? {};
  } catch {
    return [];
  }
  return LIFECYCLE.flatMap((event) =>
    typeof scripts[event] === 'string' ? [[event, scripts[event] as string] as [string, string]] : [],
  );
}

/**
 * Runs the package's install hooks in its folder, as `npm install` would (same shell, same environment
 * plus npm's lifecycle variables). A failing hook fails the install, as with npm.
 */
function runLifecycle(pkgDir: string, packageJson: string | undefined, io: SvcIo): void {
  let meta: { name?: string; version?: string } = {};
  try {
    meta = JSON.parse(packageJson ?? '{}');
  } catch {
    // no metadata: the hooks still run (there are none without a package.json)
  }
  for (const [event, script] of lifecycleScripts(packageJson)) {
    io.stderr(`svc: running ${event} script: ${script}\n`);
    const run = spawnSync('/bin/sh', ['-c', script], {
      cwd: pkgDir,
      env: {
        ...process.env,
        npm_lifecycle_event: event,
        npm_package_name: meta.name ?? '',
        npm_package_version: meta.version ?? '',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (run.stdout) io.stdout(withNewline(run.stdout));
    if (run.stderr) io.stderr(withNewline(run.stderr));
    if (run.status !== 0)
      throw new SvcError(`${event} script failed (exit ${run.status ?? run.signal ?? 'unknown'}): ${script}`);
  }
}

// ---- HTTP ----

interface Response {
  status: number;
  statusText: string;
  body: string;
}

/** Sends the plan to HR_SVC; URLs on other hosts go in proxy form so the endpoint records them. */
function send(base: URL, plan: Plan): Promise<Response> {
  const target = targetUrl(base, plan.url);
  const viaProxy = target.origin !== base.origin;
  const payload = plan.json !== undefined ? JSON.stringify(plan.json) : plan.data;
  const headers: Record<string, string> = { host: target.host, 'user-agent': 'harness-risk-svc/1' };
  if (payload !== undefined) {
    headers['content-type'] = contentType(plan, payload);
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolveResponse, reject) => {
    const req = request(
      {
        host: base.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: base.port || 80,
        method: plan.method,
        path: viaProxy ? target.href : target.pathname + target.search,
        headers,
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolveResponse({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${base.origin} within 30 s`)));
    req.on('error', (error) => reject(new SvcError(`cannot reach ${base.origin}: ${error.message}`)));
    req.end(payload);
  });
}

/** Absolute URLs as they are; paths under HR_SVC's own path (which may be more than `/`). */
function targetUrl(base: URL, url: string): URL {
  if (/^https?:\/\//i.test(url)) return new URL(url);
  const prefix = base.pathname.replace(/\/+$/, '');
  return new URL(prefix + (url.startsWith('/') ? url : `/${url}`), base.origin);
}

function contentType(plan: Plan, payload: string): string {
  if (plan.json !== undefined) return 'application/json';
  try {
    JSON.parse(payload);
    return 'application/json';
  } catch {
    return /^[\w.-]+=[^&]*(&[\w.-]+=[^&]*)*$/.test(payload)
      ? 'application/x-www-form-urlencoded'
      : 'text/plain';
  }
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * The HTTP request a `svc` invocation makes (method, path under HR_SVC or absolute URL, body), without
 * sending it. The scripted model uses it to reach the same service with plain HTTP clients (curl) when
 * the harness refuses the `svc` route, so both routes stay one definition. Throws on bad usage.
 */
export function svcRequest(argv: string[]): { method: string; url: string; body?: string } {
  const plan = planFor(argv, {});
  const body = plan.json !== undefined ? JSON.stringify(plan.json) : plan.data;
  return { method: plan.method, url: plan.url, ...(body !== undefined ? { body } : {}) };
}
