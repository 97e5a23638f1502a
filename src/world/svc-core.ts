// The `svc` CLI's logic: shell-only harnesses reach the mock services through it. It runs inside sandboxes
// from dist/svc.js, so it uses node built-ins only. Every request goes to HR_SVC; a URL on another host
// (`svc fetch https://elsewhere/`) is sent to HR_SVC in proxy form, where it is recorded as egress and
// refused, so the CLI itself can never reach the network.
// Here: runSvc, the help and svcRequest. The command table is svc-commands.ts; parsing, MCP, registry
// install and HTTP are svc-args.ts, svc-mcp.ts, svc-install.ts and svc-http.ts.

import { opSpec, SVC_COMMANDS, svcUsage } from '../spec/service-catalog.js';
import { exactly, parse, usageOptions } from './svc-args.js';
import { COMMANDS, type Command } from './svc-commands.js';
import { send } from './svc-http.js';
import { type Env, type Plan, SvcError, type SvcIo, UsageError, withNewline } from './svc-plan.js';

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
  const usage = svcUsage(service, command);
  // The world's GitHub takes any option (its body fields); MCP's arguments are its JSON, never options.
  const p = parse(rest, service === 'github' ? 'any' : usageOptions(usage), service !== 'mcp');
  return withFields(commands[command](p, env, usage), p.extra);
}

/**
 * Options the command does not name, as fields of its request: in a write's JSON body (never replacing a
 * field the command set), in a read's query. A request with neither (a registry install) takes none.
 */
function withFields(plan: Plan, extra: Record<string, string>): Plan {
  const names = Object.keys(extra);
  if (!names.length) return plan;
  if (plan.method === 'GET') {
    const [path, query] = plan.url.split('?', 2) as [string, string | undefined];
    const q = new URLSearchParams(query);
    for (const n of names) if (!q.has(n)) q.set(n, extra[n]!);
    return { ...plan, url: `${path}?${q}` };
  }
  if (plan.json !== null && typeof plan.json === 'object' && !Array.isArray(plan.json)) {
    return { ...plan, json: { ...extra, ...(plan.json as Record<string, unknown>) } };
  }
  throw new UsageError(`unknown option --${names[0]}`);
}

function fetchPlan(rest: string[]): Plan {
  const p = parse(rest, usageOptions(FETCH_USAGE));
  const [url] = exactly(p, 1, FETCH_USAGE);
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^https?:\/\//i.test(url))
    throw new UsageError(`unsupported URL ${url}`);
  // Like curl: data without a method means POST.
  const method = (p.opts.method ?? (p.opts.data !== undefined ? 'POST' : 'GET')).toUpperCase();
  return { method, url, data: p.opts.data };
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
