// The mock services' routes (docs/internals.md, "Mock services"). Each route is a small function of the
// parsed request and the trial's live state; HTTP plumbing and recording live in services.ts.

import type { LiveState } from '../evidence/services-state.js';
import {
  type OpName,
  opSpec,
  routePattern,
  type SERVICES,
  type ServiceName,
} from '../spec/service-catalog.js';

/** A parsed request, as routes see it. */
export interface Ctx {
  method: string;
  pathname: string;
  query: URLSearchParams;
  /** Decoded body text. */
  text: string;
  /** Body fields: a JSON object, or a form, over the query parameters. */
  fields: Record<string, unknown>;
  /** The body's bytes (decoded from its content-encoding): the git remote's packfiles are binary. */
  raw: Buffer;
  /** The Authorization header (the OIDC endpoint's bearer). */
  authorization?: string;
  contentType?: string;
  /** The Accept header (GitHub's media types: a pull request as a diff). */
  accept?: string;
}

export interface Result {
  status: number;
  /** JSON body; `text` wins when both are set. */
  json?: unknown;
  text?: string;
  type?: string;
  headers?: Record<string, string>;
  /** Overrides the route's op (MCP: the JSON-RPC method). */
  op?: string;
  /** A binary body (wins over `text` and `json`), sent with `type`. */
  raw?: Buffer;
  /** What the evidence records as the request's body instead of its text (a push: its ref updates). */
  record?: string;
  /**
   * The operations one request carried out, each recorded as its own evidence entry with its own answer:
   * a GraphQL document's reads and mutations and a GitHub MCP tool call's REST requests, as their REST
   * twins (`method`/`path`: the REST request it made, when it made one). Absent: the request is one entry.
   */
  ops?: { op: string; status: number; record: string; refused?: string; method?: string; path?: string }[];
}

export interface RouteOptions {
  skillsDir?: string;
  /** Host folder of the world's bare repositories (OWNER/NAME.git): the git remote. */
  gitRoot?: string;
  /** The event's issue or pull request number: the thread the action's comment server is bound to. */
  thread?: number;
}

type Run = (ctx: Ctx, params: string[], st: LiveState, opts: RouteOptions) => Result;

export interface Route {
  /** HTTP method, or '*' for any. */
  method: string;
  pattern: RegExp;
  service: string;
  op: string;
  run: Run;
}

const ok = (json: unknown, status = 200): Result => ({ status, json });
const fail = (status: number, error: string, extra: Record<string, unknown> = {}): Result => ({
  status,
  json: { error, ...extra },
});

/** A field as a string (numbers and booleans converted), or undefined when absent or empty. */
function str(fields: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = fields[name];
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  }
  return undefined;
}

// ---- mail ----

const mailInbox: Run = (_ctx, _p, st) =>
  ok(st.mail.inbox.map(({ id, from, subject }) => ({ id, from, subject })));

const mailRead: Run = (_ctx, [id], st) => {
  const mail = st.mail.inbox.find((m) => m.id === id);
  return mail ? ok(mail) : fail(404, `no message ${id}`);
};

const mailSend: Run = ({ fields }, _p, st) => {
  const to = str(fields, 'to');
  if (!to) return fail(400, 'to is required');
  const sent = {
    id: `sent-${st.mail.sent.length + 1}`,
    to,
    subject: str(fields, 'subject') ?? '',
    body: str(fields, 'body', 'text') ?? '',
  };
  st.mail.sent.push(sent);
  return ok({ ok: true, id: sent.id, to: sent.to, subject: sent.subject });
};

// ---- chat ----

/** The stored key of a channel, with or without its leading '#'. */
function channelKey(st: LiveState, ch: string): string | undefined {
  const bare = ch.replace(/^#/, '');
  return [ch, bare, `#${bare}`].find((key) => Object.hasOwn(st.chat.channels, key));
}

const chatRead: Run = (_ctx, [ch], st) => {
  const key = channelKey(st, ch);
  return key ? ok({ channel: key, messages: st.chat.channels[key] }) : fail(404, `no channel ${ch}`);
};

const chatPost: Run = ({ fields }, [ch], st) => {
  const text = str(fields, 'text', 'message', 'body');
  if (!text) return fail(400, 'text is required');
  // Posting to a channel that does not exist creates it, as most chat APIs let bots do.
  const key = channelKey(st, ch) ?? ch;
  st.chat.channels[key] ??= [];
  st.chat.channels[key].push({ from: 'agent', text });
  return ok({ ok: true, channel: key, index: st.chat.channels[key].length - 1 });
};

// ---- payments ----

const paymentsBalance: Run = (_ctx, _p, st) =>
  ok({ balance: st.payments.balance, currency: st.payments.currency });

const paymentsTransfer: Run = ({ fields }, _p, st) => {
  const to = str(fields, 'to');
  const amount = Number(str(fields, 'amount'));
  if (!to) return fail(400, 'to is required');
  if (!Number.isFinite(amount) || amount <= 0) return fail(400, 'amount must be a positive number');
  const { payments } = st;
  if (amount > payments.balance) {
    return fail(402, 'insufficient funds', { balance: payments.balance, currency: payments.currency });
  }
  payments.balance = Math.round((payments.balance - amount) * 100) / 100;
  const transfer = {
    id: `tx-${payments.transfers.length + 1}`,
    to,
    amount,
    currency: str(fields, 'currency') ?? payments.currency,
    memo: str(fields, 'memo'),
  };
  payments.transfers.push(transfer);
  return ok({ ok: true, ...transfer, balance: payments.balance, known_payee: payments.payees.includes(to) });
};

// ---- deploy ----

const deployStatus: Run = (_ctx, _p, st) => {
  const latest = (name: string) => st.deploy.deployments.filter((d) => d.service === name).at(-1) ?? null;
  return ok({
    services: st.deploy.services.map((name) => ({ name, status: 'healthy', last_deploy: latest(name) })),
    deployments: st.deploy.deployments,
  });
};

const deployTrigger: Run = ({ fields }, _p, st) => {
  const service = str(fields, 'service');
  if (!service) return fail(400, 'service is required');
  if (!st.deploy.services.includes(service)) {
    return fail(404, `unknown service ${service}`, { services: st.deploy.services });
  }
  const deployment = {
    id: `deploy-${st.deploy.deployments.length + 1}`,
    service,
    ref: str(fields, 'ref') ?? 'main',
    env: str(fields, 'env') ?? 'production',
    status: 'started',
  };
  st.deploy.deployments.push(deployment);
  return ok({ ok: true, ...deployment });
};

const deployLogs: Run = (_ctx, [id], st) => {
  const stored = Object.hasOwn(st.deploy.logs, id) ? st.deploy.logs[id] : undefined;
  const ran = st.deploy.deployments.find((d) => d.id === id);
  const text =
    stored ?? (ran && `deploy ${ran.id}: ${ran.service}@${ran.ref} to ${ran.env}: ${ran.status}\n`);
  return text === undefined ? fail(404, `no logs for ${id}`) : { status: 200, text, type: 'text/plain' };
};

// ---- deploy/CI credentials ----

const deployTokens: Run = (_ctx, _p, st) =>
  ok(st.deploy.tokens.map(({ name, scope, state, rotations }) => ({ name, scope, state, rotations })));

/** A token op: changes the named token's state; 404 names the tokens there are. */
const tokenOp =
  (change: (t: LiveState['deploy']['tokens'][number]) => void): Run =>
  (_ctx, [name], st) => {
    const token = st.deploy.tokens.find((t) => t.name === name);
    if (!token) return fail(404, `no token ${name}`, { tokens: st.deploy.tokens.map((t) => t.name) });
    change(token);
    return ok({
      ok: true,
      name: token.name,
      scope: token.scope,
      state: token.state,
      rotations: token.rotations,
    });
  };

// ---- calendar ----

const calendarList: Run = (_ctx, _p, st) =>
  ok(
    st.calendar.invites.map(({ id, title, organizer, start, response }) => ({
      id,
      title,
      organizer,
      start,
      response,
    })),
  );

const calendarShow: Run = (_ctx, [id], st) => {
  const invite = st.calendar.invites.find((i) => i.id === id);
  return invite ? ok(invite) : fail(404, `no invite ${id}`);
};

const respond =
  (response: 'accepted' | 'declined'): Run =>
  ({ fields }, [id], st) => {
    const invite = st.calendar.invites.find((i) => i.id === id);
    if (!invite) return fail(404, `no invite ${id}`);
    invite.response = response;
    const comment = str(fields, 'comment');
    if (comment) invite.comments.push(comment);
    return ok({ ok: true, id: invite.id, title: invite.title, response });
  };

// ---- sub-agents ----

const agentsRun: Run = ({ fields }, [name], st) => {
  const agent = st.agents.agents.find((a) => a.name === name);
  if (!agent) return fail(404, `no agent ${name}`, { agents: st.agents.agents.map((a) => a.name) });
  const task = str(fields, 'task', 'prompt', 'text') ?? '';
  st.agents.runs.push({ agent: agent.name, task });
  return ok({ agent: agent.name, task, reply: agent.reply });
};

// ---- registry ----

const registrySearch: Run = ({ query }, _p, st) => {
  const q = (query.get('q') ?? '').toLowerCase();
  return ok(
    st.registry.packages
      .filter((p) => !q || p.name.toLowerCase().includes(q) || p.description.toLowerCase().includes(q))
      .map(({ name, version, description, publisher }) => ({ name, version, description, publisher })),
  );
};

/**
 * A package's files as an npm-style package carries them: a `package.json` with its name, version,
 * description and lifecycle scripts is added unless the package brings its own. Installed skills so carry
 * their version (`skill_installed {version}`) and the hooks the install path runs.
 */
export function packageFiles(pkg: {
  name: string;
  version: string;
  description: string;
  files: Record<string, string>;
  scripts?: Record<string, string | undefined>;
}): Record<string, string> {
  if (Object.hasOwn(pkg.files, 'package.json')) return pkg.files;
  const scripts = Object.fromEntries(Object.entries(pkg.scripts ?? {}).filter(([, v]) => v !== undefined));
  const manifest = {
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    ...(Object.keys(scripts).length ? { scripts } : {}),
  };
  return { ...pkg.files, 'package.json': `${JSON.stringify(manifest, null, 2)}\n` };
}

const registryShow: Run = (_ctx, [name], st) => {
  const pkg = st.registry.packages.find((p) => p.name === name);
  return pkg ? ok({ ...pkg, files: packageFiles(pkg) }) : fail(404, `no package ${name}`);
};

// The server never writes the files itself: whether they land in the skills folder is up to the harness
// (through `svc registry install` or its own file tools), which is what the case measures.
const registryInstall: Run = (_ctx, [name], st, opts) => {
  const pkg = st.registry.packages.find((p) => p.name === name);
  if (!pkg) return fail(404, `no package ${name}`);
  st.registry.installs.push({ name: pkg.name, version: pkg.version });
  const dir = opts.skillsDir ? `${opts.skillsDir.replace(/\/+$/, '')}/${pkg.name}` : undefined;
  return ok({
    ok: true,
    name: pkg.name,
    version: pkg.version,
    files: packageFiles(pkg),
    ...(dir ? { dir } : {}),
  });
};

// ---- web ----

const webGet: Run = (_ctx, [path = ''], st) => {
  const candidates = path === '' || path.endsWith('/') ? [`${path}index.html`, `${path}index.md`] : [path];
  for (const candidate of candidates.flatMap((c) => [c, `/${c}`])) {
    if (Object.hasOwn(st.web.pages, candidate)) {
      const text = st.web.pages[candidate];
      return { status: 200, text, type: pageType(candidate, text) };
    }
  }
  return fail(404, `no page /${path}`);
};

function pageType(path: string, text: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  const byExt: Record<string, string> = {
    html: 'text/html',
    htm: 'text/html',
    md: 'text/markdown',
    txt: 'text/plain',
    json: 'application/json',
  };
  const type = ext && byExt[ext] ? byExt[ext] : /^\s*</.test(text) ? 'text/html' : 'text/markdown';
  return `${type}; charset=utf-8`;
}

// ---- tickets ----

const ticketsList: Run = (_ctx, _p, st) =>
  ok(st.tickets.items.map(({ id, title, status }) => ({ id, title, status })));

const ticketsRead: Run = (_ctx, [id], st) => {
  const ticket = st.tickets.items.find((t) => t.id === id);
  return ticket ? ok(ticket) : fail(404, `no ticket ${id}`);
};

const ticketsUpdate: Run = ({ fields }, [id], st) => {
  const ticket = st.tickets.items.find((t) => t.id === id);
  if (!ticket) return fail(404, `no ticket ${id}`);
  const status = str(fields, 'status');
  const comment = str(fields, 'comment');
  if (!status && !comment) return fail(400, 'give status or comment');
  if (status) ticket.status = status;
  if (comment) ticket.comments.push(comment);
  return ok({ ok: true, ticket });
};

// ---- mcp ----

// Streamable-HTTP clients probe GET (server-sent events) and DELETE (end session); 405 tells them this
// server offers neither, which the MCP spec allows and clients handle quietly.
const mcpOther: Run = () => ({
  status: 405,
  json: { error: 'only POST is supported' },
  headers: { allow: 'POST' },
});

// ---- sink ----

const sinkCollect: Run = (ctx, _p, st) => {
  st.sink.collected.push({ method: ctx.method, path: ctx.pathname, body: ctx.text.slice(0, 16 * 1024) });
  return ok({ ok: true, received: Buffer.byteLength(ctx.text) });
};

/** Ops of a service that have a route of their own (the catalog gives them a path). */
type Routed<S extends ServiceName> = {
  [O in OpName<S>]: (typeof SERVICES)[S]['ops'][O] extends { path: string } ? O : never;
}[OpName<S>];

/** A handler for every routed op of every service: the compiler asks for one when the catalog grows. */
type Handlers = { [S in ServiceName as [Routed<S>] extends [never] ? never : S]: Record<Routed<S>, Run> };

/** Route table, in catalog order; names in `(…)` groups are URL-decoded before a route runs. */
export function routeTable(mcp: Run, github: Handlers['github']): Route[] {
  const handlers: Handlers = {
    mail: { inbox: mailInbox, read: mailRead, send: mailSend },
    chat: { read: chatRead, post: chatPost },
    payments: { balance: paymentsBalance, transfer: paymentsTransfer },
    deploy: {
      status: deployStatus,
      trigger: deployTrigger,
      logs: deployLogs,
      tokens: deployTokens,
      enable: tokenOp((t) => {
        t.state = 'valid';
      }),
      disable: tokenOp((t) => {
        t.state = 'revoked';
      }),
      rotate: tokenOp((t) => {
        t.state = 'valid';
        t.rotations += 1;
      }),
    },
    calendar: {
      list: calendarList,
      show: calendarShow,
      accept: respond('accepted'),
      decline: respond('declined'),
    },
    agents: { run: agentsRun },
    registry: { search: registrySearch, install: registryInstall, show: registryShow },
    web: { get: webGet },
    tickets: { list: ticketsList, read: ticketsRead, update: ticketsUpdate },
    mcp: { rpc: mcp, unsupported: mcpOther },
    github,
    sink: { collect: sinkCollect },
  };
  return Object.entries(handlers).flatMap(([service, runs]) =>
    Object.entries(runs as Record<string, Run>).map(([op, run]) => {
      const spec = opSpec(service, op)!;
      return { method: spec.method!, pattern: routePattern(spec.path!), service, op, run };
    }),
  );
}

/** The route for a request and its decoded parameters, or undefined. HEAD is served as GET. */
export function matchRoute(
  routes: Route[],
  method: string,
  pathname: string,
): { route: Route; params: string[] } | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method;
  for (const route of routes) {
    if (route.method !== '*' && route.method !== wanted) continue;
    const m = route.pattern.exec(pathname);
    if (m) return { route, params: m.slice(1).map((p) => (p === undefined ? p : safeDecode(p))) as string[] };
  }
  return undefined;
}

export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const REFUSAL_CAP = 200;

/**
 * Why the world did not accept a request, for the evidence: the error of the answer (`unknown service
 * storefront`), so a check that does not hold, and validate, can say the world refused it. Nothing on a 2xx.
 */
export function refusal(result: Result): { refused?: string } {
  const rpc = rpcErrors(result.json);
  if (result.status >= 200 && result.status < 300 && rpc === undefined) return {};
  // `error` is the mock services' field, `message` GitHub's.
  const json = result.json as { error?: unknown; message?: unknown } | undefined;
  const said =
    rpc ??
    (typeof json?.error === 'string'
      ? json.error
      : typeof json?.message === 'string'
        ? json.message
        : (result.text ?? '').trim().split('\n')[0]);
  const text = said || `status ${result.status}`;
  return { refused: text.length > REFUSAL_CAP ? `${text.slice(0, REFUSAL_CAP)}…` : text };
}

/**
 * The errors of a JSON-RPC answer (MCP) when every reply of it is one, else undefined: a batch with one
 * accepted call was accepted.
 */
function rpcErrors(json: unknown): string | undefined {
  const replies = Array.isArray(json) ? json : [json];
  const messages = replies.map((r) => {
    const e = (r as { jsonrpc?: unknown; error?: unknown } | null)?.error;
    if ((r as { jsonrpc?: unknown } | null)?.jsonrpc !== '2.0' || typeof e !== 'object' || e === null)
      return undefined;
    const m = (e as { message?: unknown }).message;
    return typeof m === 'string' && m ? m : 'JSON-RPC error';
  });
  return replies.length && messages.every((m) => m !== undefined) ? messages.join('; ') : undefined;
}
