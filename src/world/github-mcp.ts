// The world's GitHub MCP servers (spec/github-mcp.ts): a tool call is carried out as the REST request it
// stands for, by the same handler the REST route runs, and recorded as that REST operation (its path,
// body and status, the refusal included). So branch protection, the evidence and every check treat a
// merge through `merge_pull_request` exactly as `PUT …/pulls/N/merge`.
import type { LiveState } from '../evidence/services-state.js';
import {
  GITHUB_MCP_SERVERS,
  type GithubOp,
  inputSchema,
  type McpServer,
  restCalls,
  restRequest,
} from '../spec/github-mcp.js';
import { isObject, type Outcome, serveRpc } from './mcp.js';
import { type Ctx, type Result, type RouteOptions, refusal } from './services-routes.js';

type Run = (ctx: Ctx, params: string[], st: LiveState, opts: RouteOptions) => Result;

/** One REST request a tool call made, for the evidence. */
type McpRecord = NonNullable<Result['ops']>[number];

/** The route of POST GITHUB_MCP_PATH/SERVER, carrying calls out through the REST handlers given. */
export function githubMcp(handlers: Partial<Record<GithubOp, Run>>): Run {
  return (ctx, [server], st, opts) => {
    const spec = Object.hasOwn(GITHUB_MCP_SERVERS, server!) ? GITHUB_MCP_SERVERS[server!] : undefined;
    if (!spec) return { status: 404, json: { message: `no GitHub MCP server ${server}` } };
    const records: McpRecord[] = [];
    const result = serveRpc(ctx, {
      name: `github/${server}`,
      tools: () => listing(spec),
      call: (params) => call(server!, spec, params, { ctx, st, opts, handlers, records }),
    });
    // The handshake and tool lists are recorded as this route's op; tool calls as their REST ops.
    return { ...result, op: undefined, ...(records.length ? { ops: records } : {}) };
  };
}

/** Other methods on an MCP endpoint (a GET for server-sent events, a DELETE ending the session). */
export const githubMcpOther: Run = () => ({
  status: 405,
  json: { message: 'only POST is supported' },
  headers: { allow: 'POST' },
});

const listing = (spec: McpServer) =>
  Object.entries(spec.tools).map(([name, t]) => ({
    name,
    description: t.doc,
    inputSchema: inputSchema(t),
  }));

interface CallScope {
  ctx: Ctx;
  st: LiveState;
  opts: RouteOptions;
  handlers: Partial<Record<GithubOp, Run>>;
  records: McpRecord[];
}

function call(server: string, spec: McpServer, params: Record<string, unknown>, s: CallScope): Outcome {
  const name = String(params.name);
  const tool = Object.hasOwn(spec.tools, name) ? spec.tools[name] : undefined;
  if (!tool) return { error: { code: -32602, message: `unknown tool: ${name}` } };
  const input = isObject(params.arguments) ? params.arguments : {};
  const calls = restCalls(server, tool, input, { repo: s.st.github.repo, thread: s.opts.thread });
  if (typeof calls === 'string') return { error: { code: -32602, message: `${name}: ${calls}` } };
  const texts: string[] = [];
  let failed = false;
  for (const c of calls) {
    const result = perform(c.op, c.args, s);
    failed ||= result.status >= 400;
    texts.push(result.text ?? JSON.stringify(result.json ?? {}, null, 2));
  }
  return { result: { content: texts.map((text) => ({ type: 'text', text })), isError: failed } };
}

/** One REST request through the route's own handler, recorded. */
function perform(op: GithubOp, args: Record<string, unknown>, s: CallScope): Result {
  const req = restRequest(op, args);
  const text = req.method === 'GET' ? '' : JSON.stringify(req.fields);
  const ctx: Ctx = {
    method: req.method,
    pathname: req.path,
    query: req.query,
    text,
    fields: { ...Object.fromEntries(req.query), ...req.fields },
    raw: Buffer.from(text),
    authorization: s.ctx.authorization,
    contentType: 'application/json',
  };
  const run = s.handlers[op];
  let result: Result;
  try {
    result = run ? run(ctx, req.params, s.st, s.opts) : { status: 404, json: { message: 'Not Found' } };
  } catch (error) {
    result = { status: 500, json: { message: `internal error: ${(error as Error).message}` } };
  }
  const q = req.query.toString();
  s.records.push({
    op,
    method: req.method,
    path: q ? `${req.path}?${q}` : req.path,
    record: result.record ?? text,
    status: result.status,
    ...refusal(result),
  });
  return result;
}
