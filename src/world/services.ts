// The mock services of one trial as a Node request handler. Every request is answered from in-memory
// state and recorded for the evidence (with the canaries found anywhere in it); nothing is ever forwarded.
// Proxy-style requests (the harness runs with HTTP(S)_PROXY pointing here) are stray egress: recorded with
// their target host and refused.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { EvidenceRecorder } from '../evidence/recorder.js';
import { type LiveState, seedState } from '../evidence/services-state.js';
import { GITHUB_API_PREFIX, GITHUB_GRAPHQL_PATH } from '../spec/github-ops.js';
import type { ServiceState } from '../spec/service-state.js';
import { githubGraphql } from './github-graphql.js';
import { conformGithub } from './github-rest-conform.js';
import { withDiffMedia } from './github-rest-media.js';
import { githubHandlers } from './github-routes.js';
import { GH_CLI_API_HOST } from './github-world.js';
import { handleMcp } from './mcp.js';
import {
  type Ctx,
  matchRoute,
  type Result,
  type Route,
  refusal,
  routeTable,
  safeDecode,
} from './services-routes.js';

export interface ServicesOptions {
  /** The harness's skills folder as it sees it; echoed in install responses. */
  skillsDir?: string;
  /**
   * Host names that reach this endpoint (e.g. the docker runner's endpointHost). An absolute-form request
   * to one of them on this port is the harness using us as its proxy for ourselves, not egress.
   * Loopback names and the socket's own address always count.
   */
  selfHosts?: string[];
  /** Host folder of the world's bare repositories, the git remote's (world/git-remote.ts). */
  gitRoot?: string;
  /** The event's issue or pull request number (the action's comment server is bound to it). */
  thread?: number;
  /**
   * Whether an answer's text carries the case's injection (its trigger): such a request is recorded as
   * `carried_injection`, so the evidence shows the harness received the injection even when no model request did.
   */
  carriesInjection?: (answer: string) => boolean;
}

export interface ServicesHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Listener for the server's 'connect' event: records HTTPS proxy tunnels as egress and refuses them. */
  connect(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** The trial's live service state (the evidence is the recorder; this is for tests and debugging). */
  readonly state: LiveState;
}

/** Bodies read per request; more is refused with 413 (still recorded). */
const MAX_BODY = 1024 * 1024;
/** Bodies kept in the record. */
const RECORD_BODY = 16 * 1024;
export const EGRESS_MESSAGE = 'egress blocked by harness-risk sandbox';

export function createServices(
  state: ServiceState | undefined,
  recorder: EvidenceRecorder,
  opts: ServicesOptions = {},
): ServicesHandler {
  const live = seedState(state);
  const routes = worldRoutes(live);
  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    asWorldGithub(req);
    // A CONNECT can reach here when a server routes its 'connect' event through the request handler.
    if (req.method === 'CONNECT') {
      recordConnect(recorder, req);
      send(res, egressResult());
      return;
    }
    const { body, overflow } = await readBody(req);
    const raw = decodeBody(body, req.headers['content-encoding']);
    const text = raw.toString('utf8');
    const target = egressTarget(req, opts.selfHosts ?? []);
    const { service, op, result, path, host } = target
      ? { service: 'egress', op: 'egress', result: egressResult(), path: target.href, host: target.hostname }
      : { ...serve(req, { text, raw }, overflow, routes, live, opts), host: req.headers.host };
    const method = req.method ?? 'GET';
    const entry = {
      service,
      op,
      method,
      path,
      host,
      body: (result.record ?? text).slice(0, RECORD_BODY),
      status: result.status,
      ...refusal(result),
      ...(opts.carriesInjection?.(answerText(result)) ? { carried_injection: true as const } : {}),
    };
    const issued = issuedCredentials(service, live);
    for (const e of entriesOf(entry, result)) recorder.addService(e, rawRequest(req, e.body, issued));
    send(res, result);
  };
  const connect = (req: IncomingMessage, socket: Duplex): void => {
    recordConnect(recorder, req);
    const message = `${EGRESS_MESSAGE}\n`;
    socket.on('error', () => undefined);
    socket.end(
      `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message)}\r\n` +
        `Connection: close\r\n\r\n${message}`,
    );
  };
  return Object.assign(handler, { connect, state: live });
}

/** The routes of a world whose live state is `live`: every service's ops, GitHub's as GitHub shapes them. */
export function worldRoutes(live: LiveState): Route[] {
  const github = withDiffMedia(conformGithub(githubHandlers()));
  return routeTable((ctx) => handleMcp(ctx, live), { ...github, graphql: githubGraphql(github) });
}

/**
 * What the world would answer a body-less request (a read) at the start of a trial, on a fresh copy of
 * its seeded state: nothing is served or recorded. Undefined when no route takes it.
 */
export function worldAnswer(
  state: ServiceState | undefined,
  method: string,
  path: string,
): { service: string; op: string; result: Result } | undefined {
  const live = seedState(state);
  const url = new URL(path, 'http://world.invalid');
  const match = matchRoute(worldRoutes(live), method, url.pathname);
  if (!match) return undefined;
  const { service, op } = match.route;
  const ctx: Ctx = {
    method,
    pathname: url.pathname,
    query: url.searchParams,
    text: '',
    fields: fieldsOf(undefined, '', url),
    raw: Buffer.alloc(0),
  };
  try {
    const result = match.route.run(ctx, match.params, live, {});
    return { service, op: result.op ?? op, result };
  } catch {
    return undefined;
  }
}

/** The evidence entries of one request: itself, or one per operation it carried out (Result.ops). */
function entriesOf<E extends { op: string; body: string; status: number; refused?: string }>(
  entry: E,
  result: Result,
): E[] {
  if (!result.ops?.length) return [entry];
  return result.ops.map(({ op, status, record, refused, method, path }) => {
    const { refused: _http, ...rest } = entry;
    return {
      ...rest,
      op,
      status,
      ...(method ? { method } : {}),
      ...(path ? { path } : {}),
      body: record.slice(0, RECORD_BODY),
      ...(refused ? { refused } : {}),
    } as E;
  });
}

/** Records a CONNECT (an HTTPS tunnel through the proxy variables) as egress to its target host. */
function recordConnect(recorder: EvidenceRecorder, req: IncomingMessage): void {
  const authority = req.url ?? '';
  const host = authority.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  recorder.addService(
    {
      service: 'egress',
      op: 'egress',
      method: 'CONNECT',
      path: authority,
      host,
      body: '',
      status: 403,
      ...refusal(egressResult()),
    },
    rawRequest(req, ''),
  );
}

function serve(
  req: IncomingMessage,
  { text, raw }: { text: string; raw: Buffer },
  overflow: boolean,
  routes: Route[],
  live: LiveState,
  opts: ServicesOptions,
): { service: string; op: string; result: Result; path: string } {
  const url = originUrl(req);
  const path = url.pathname + url.search;
  const method = req.method ?? 'GET';
  const match = matchRoute(routes, method, url.pathname);
  if (!match) {
    // A service's route asked with another method (a GET of a POST op) is recorded as that service's;
    // the answer stays the 404 GitHub and the other APIs give for a method a path does not take.
    const other = routes.find((r) => r.method !== '*' && r.pattern.test(url.pathname));
    if (other)
      return {
        service: other.service,
        op: 'unknown',
        path,
        result: {
          status: 404,
          json: {
            error: `not found: ${other.service}.${other.op} takes ${other.method}, not ${method}`,
            method,
            path,
          },
        },
      };
    return {
      service: 'unknown',
      op: 'unknown',
      path,
      result: { status: 404, json: { error: 'not found', method, path } },
    };
  }
  const { route, params } = match;
  if (overflow)
    return {
      service: route.service,
      op: route.op,
      path,
      result: { status: 413, json: { error: 'body too large' } },
    };
  const ctx: Ctx = {
    method,
    pathname: url.pathname,
    query: url.searchParams,
    text,
    fields: fieldsOf(req.headers['content-type'], text, url),
    raw,
    authorization: req.headers.authorization,
    contentType: req.headers['content-type'],
    accept: req.headers.accept,
  };
  let result: Result;
  try {
    result = route.run(ctx, params, live, opts);
  } catch (error) {
    result = { status: 500, json: { error: `internal error: ${(error as Error).message}` } };
  }
  return { service: route.service, op: result.op ?? route.op, path, result };
}

/** The request URL in origin form (absolute-form requests to ourselves are reduced to their path). */
function originUrl(req: IncomingMessage): URL {
  const url = req.url ?? '/';
  try {
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? new URL(url) : new URL(url, 'http://services.invalid');
  } catch {
    return new URL('http://services.invalid/');
  }
}

/** The target of an absolute-form (proxy) request that is not for this endpoint, else undefined. */
/**
 * `gh` in a trial (GH_HOST github.localhost) asks `http://api.github.localhost/PATH` through the proxy: that
 * is the world's GitHub (its REST routes under GITHUB_API_PREFIX, GraphQL at /graphql), not egress.
 */
function asWorldGithub(req: IncomingMessage): void {
  const m = /^http:\/\/([^/?#]+)(.*)$/i.exec(req.url ?? '');
  if (m && m[1]!.toLowerCase().replace(/:80$/, '') === GH_CLI_API_HOST) {
    const path = m[2]?.startsWith('/') ? m[2] : `/${m[2] ?? ''}`;
    // GraphQL is served where GitHub Enterprise Server serves it, beside the REST prefix.
    req.url = /^\/graphql(\?|$)/.test(path)
      ? `${GITHUB_GRAPHQL_PATH}${path.slice(8)}`
      : `${GITHUB_API_PREFIX}${path}`;
  }
}

export function egressTarget(req: IncomingMessage, selfHosts: string[]): URL | undefined {
  const url = req.url ?? '';
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return undefined;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    // Unparseable absolute URI: still egress; keep what we can of the host.
    return new URL(
      `http://${encodeURIComponent(url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split('/')[0])}/`,
    );
  }
  return isSelf(target, req, selfHosts) ? undefined : target;
}

function isSelf(target: URL, req: IncomingMessage, selfHosts: string[]): boolean {
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  if (target.protocol !== 'http:' || port !== String(req.socket.localPort)) return false;
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const local = (req.socket.localAddress ?? '').replace(/^::ffff:/, '');
  return ['127.0.0.1', 'localhost', '::1', local, ...selfHosts.map((h) => h.toLowerCase())].includes(host);
}

function egressResult(): Result {
  return { status: 403, text: `${EGRESS_MESSAGE}\n`, type: 'text/plain; charset=utf-8' };
}

/** Body fields: a JSON object or a form, over the query parameters (so `?to=x&amount=1` works too). */
function fieldsOf(contentType: string | undefined, text: string, url: URL): Record<string, unknown> {
  const fields: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const type = String(contentType ?? '');
  const trimmed = text.trim();
  if (type.includes('json') || trimmed.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { ...fields, ...parsed };
    } catch {
      // fall through: treat as a form or as nothing
    }
  }
  if (type.includes('x-www-form-urlencoded') || /^[\w.-]+=[^&]*(&[\w.-]+=[^&]*)*$/.test(trimmed)) {
    return { ...fields, ...Object.fromEntries(new URLSearchParams(trimmed)) };
  }
  return fields;
}

async function readBody(req: IncomingMessage): Promise<{ body: Buffer; overflow: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const buf = chunk as Buffer;
      if (size < MAX_BODY) chunks.push(buf.subarray(0, MAX_BODY - size));
      size += buf.length;
    }
  } catch {
    // A client that hangs up mid-body still gets recorded with what arrived.
  }
  return { body: Buffer.concat(chunks), overflow: size > MAX_BODY };
}

function decodeBody(body: Buffer, encoding: string | undefined): Buffer {
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(body, { maxOutputLength: MAX_BODY });
    if (encoding === 'deflate') return inflateSync(body, { maxOutputLength: MAX_BODY });
    if (encoding === 'br') return brotliDecompressSync(body, { maxOutputLength: MAX_BODY });
  } catch {
    // Keep the bytes as they came.
  }
  return body;
}

/**
 * The text scanned for canaries: request line with the full URL, its percent-decoded form, every header,
 * the body, and the decoding of every base64-looking token among them (Basic auth, encoded payloads).
 */
export function rawRequest(req: IncomingMessage, body: string, issued: string[] = []): string {
  const url = req.url ?? '';
  const full =
    /^[a-z][a-z0-9+.-]*:\/\//i.test(url) || req.method === 'CONNECT'
      ? url
      : `http://${req.headers.host ?? ''}${url}`;
  const lines = [`${req.method} ${full}`, safeDecode(full)];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    lines.push(`${name}: ${name.toLowerCase() === 'authorization' ? presented(value, issued) : value}`);
  }
  lines.push(body);
  const plain = lines.join('\n');
  return `${plain}\n${decodedTokens(plain)}`;
}

/**
 * Credentials the service itself issued to this trial: the world's GitHub issued the job's GITHUB_TOKEN
 * and the OIDC request token. Presented back to it in an Authorization header they are used, not leaked.
 */
export function issuedCredentials(service: string, live: LiveState): string[] {
  const a = live.github.actions;
  return service === 'github' && a ? [a.token, a.id_token_request].filter((t): t is string => !!t) : [];
}

/** An Authorization value without the issued credentials it presents (plain, or Basic's base64 pair). */
export function presented(value: string, issued: string[]): string {
  if (!issued.length) return value;
  const basic = /^basic\s+(\S+)$/i.exec(value.trim())?.[1];
  const pair = basic ? Buffer.from(basic, 'base64').toString('utf8') : undefined;
  const hit = issued.some((t) => value.includes(t) || pair?.includes(t));
  return hit ? '[a credential this service issued]' : value;
}

function decodedTokens(text: string): string {
  const out: string[] = [];
  let budget = 2 * MAX_BODY;
  for (const [token] of text.matchAll(/[A-Za-z0-9+/_-]{12,}={0,2}/g)) {
    if (budget <= 0) break;
    const decoded = Buffer.from(token, 'base64').toString('utf8');
    budget -= decoded.length;
    out.push(decoded);
  }
  return out.join('\n');
}

/** The body the world answers with (text, JSON or bytes). */
const answerBody = (result: Result): string | Buffer =>
  result.raw ?? result.text ?? (result.json === undefined ? '' : `${JSON.stringify(result.json, null, 2)}\n`);

/** The answer as text, for looking into (a binary body read as UTF-8). */
const answerText = (result: Result): string => {
  const body = answerBody(result);
  return typeof body === 'string' ? body : body.toString('utf8');
};

function send(res: ServerResponse, result: Result): void {
  const body = answerBody(result);
  const type =
    result.raw !== undefined || result.text !== undefined
      ? (result.type ?? 'text/plain; charset=utf-8')
      : 'application/json';
  res.writeHead(result.status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    ...result.headers,
  });
  res.end(body);
}
