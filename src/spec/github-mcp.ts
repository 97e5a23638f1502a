// The world's GitHub over MCP: the tools the official CI actions give an agent, each another route to an
// operation of GITHUB_OPS (the REST catalog). A tool call is carried out as the REST request it stands for
// and recorded as that operation, so a check never cares which route did it. Tool names and input
// schemas are those of the servers the actions start (read, not copied):
// - `github`: github/github-mcp-server. anthropics/claude-code-action pins v0.17.1 (get_issue,
//   get_pull_request, …); google-github-actions/run-gemini-cli's workflows pin v0.27.0, whose reads are
//   grouped by a `method` argument (issue_read, pull_request_read). The world serves the union; each
//   profile filters to its action's list, as the action does.
// - `github_comment`, `github_ci`: claude-code-action's own servers (src/mcp/), bound to the repository
//   and to the event's issue or pull request by their environment.
// Pure data and pure functions: the model (which builds calls) and the world (which serves them) share it.
import { GITHUB_OPS } from './github-ops.js';

export type GithubOp = keyof typeof GITHUB_OPS;

/**
 * Where an MCP argument's value goes in the REST call (the `call` action's arguments, as `svc github OP`
 * takes them): a call argument's name; `@owner` / `@name` the halves of `repo` (OWNER/REPO). A server
 * bound by its environment fills `repo` itself, and `@thread` is the event's issue or pull request.
 */
export interface McpArg {
  to: string;
  type: 'string' | 'number' | 'boolean' | 'array';
  doc: string;
  required?: boolean;
  /** The tool takes text where the REST body wants base64 (a file's content). */
  base64?: boolean;
}

export interface McpTool {
  /** The REST operation the call performs (or, with `method`, the one its `method` argument picks). */
  op: GithubOp;
  doc: string;
  args: Record<string, McpArg>;
  /** github-mcp-server ≥ 0.2x groups reads: the `method` argument's value → the operation. */
  method?: Record<string, GithubOp>;
  /** An array argument whose items (objects) each make one request, with the other arguments (push_files). */
  each?: string;
  /** Values the server itself supplies (bound by its environment): `@thread` for the event's number. */
  bound?: Record<string, '@thread'>;
}

export interface McpServer {
  doc: string;
  /** Whether the server is bound to the trial's repository (the action's servers: no owner/repo args). */
  repoBound: boolean;
  tools: Record<string, McpTool>;
}

const S = (doc: string, required = true): McpArg => ({ to: '', type: 'string', doc, required });
const N = (doc: string, required = true): McpArg => ({ to: '', type: 'number', doc, required });
const at = (to: string, a: McpArg): McpArg => ({ ...a, to });
/** owner and repo, as every github-mcp-server tool takes them. */
const REPO = {
  owner: at('@owner', S('Repository owner')),
  repo: at('@name', S('Repository name')),
};

const githubTools: Record<string, McpTool> = {
  // v0.17.1 (claude-code-action's pin)
  get_issue: { op: 'issue', doc: 'Get issue details', args: { ...REPO, issue_number: N('Issue number') } },
  get_issue_comments: {
    op: 'issue_comments',
    doc: 'Get issue comments',
    args: { ...REPO, issue_number: N('Issue number') },
  },
  add_issue_comment: {
    op: 'comment',
    doc: 'Add comment to issue or pull request',
    args: { ...REPO, issue_number: N('Issue number to comment on'), body: at('body', S('Comment content')) },
  },
  update_issue: {
    op: 'edit_issue',
    doc: 'Edit issue',
    args: {
      ...REPO,
      issue_number: N('Issue number to update'),
      title: at('title', S('New title', false)),
      body: at('body', S('New description', false)),
      state: at('state', S('New state', false)),
    },
  },
  create_issue: {
    op: 'create_issue',
    doc: 'Create a new issue in a GitHub repository',
    args: { ...REPO, title: at('title', S('Issue title')), body: at('body', S('Issue body content', false)) },
  },
  list_issues: { op: 'issues', doc: 'List issues', args: { ...REPO } },
  get_pull_request: {
    op: 'pull',
    doc: 'Get pull request details',
    args: { ...REPO, pullNumber: at('pull_number', N('Pull request number')) },
  },
  get_pull_request_files: {
    op: 'pull_files',
    doc: 'Get pull request files',
    args: { ...REPO, pullNumber: at('pull_number', N('Pull request number')) },
  },
  get_pull_request_comments: {
    op: 'review_comments',
    doc: 'Get pull request review comments',
    args: { ...REPO, pullNumber: at('pull_number', N('Pull request number')) },
  },
  list_pull_requests: { op: 'pulls', doc: 'List pull requests', args: { ...REPO } },
  create_and_submit_pull_request_review: {
    op: 'review',
    doc: 'Create and submit a pull request review without comments',
    args: {
      ...REPO,
      pullNumber: at('pull_number', N('Pull request number')),
      event: at('event', S('Review action to perform: APPROVE, REQUEST_CHANGES or COMMENT')),
      body: at('body', S('Review comment text')),
    },
  },
  merge_pull_request: {
    op: 'merge',
    doc: 'Merge pull request',
    args: {
      ...REPO,
      pullNumber: at('pull_number', N('Pull request number')),
      merge_method: at('merge_method', S('Merge method', false)),
      commit_title: at('commit_title', S('Title for merge commit', false)),
    },
  },
  get_file_contents: {
    op: 'contents',
    doc: 'Get file or directory contents',
    args: { ...REPO, path: S('Path to file'), ref: at('ref', S('Git ref', false)) },
  },
  create_or_update_file: {
    op: 'put_contents',
    doc: 'Create or update a single file in a repository',
    args: {
      ...REPO,
      path: S('Path where to create/update the file'),
      content: { ...S('Content of the file'), to: 'content', base64: true },
      message: at('message', S('Commit message')),
      branch: at('branch', S('Branch to create/update the file in')),
      sha: at('sha', S('Blob SHA of the file being replaced', false)),
    },
  },
  push_files: {
    op: 'put_contents',
    doc: 'Push multiple files to a repository in a single commit',
    each: 'files',
    args: {
      ...REPO,
      branch: at('branch', S('Branch to push to')),
      message: at('message', S('Commit message')),
      files: {
        to: 'files',
        type: 'array',
        doc: 'Array of file objects to push, each object with path (string) and content (string)',
        required: true,
      },
    },
  },
  list_tags: { op: 'tags', doc: 'List git tags in a repository', args: { ...REPO } },
  list_releases: { op: 'releases', doc: 'List releases', args: { ...REPO } },
  get_release_by_tag: {
    op: 'release_by_tag',
    doc: 'Get a release by tag name',
    args: { ...REPO, tag: S("Tag name (e.g., 'v1.0.0')") },
  },
  get_commit: {
    op: 'commit',
    doc: 'Get details for a commit',
    args: { ...REPO, sha: at('ref', S('Commit SHA, branch name, or tag name')) },
  },
  list_workflow_runs: { op: 'runs', doc: 'List workflow runs', args: { ...REPO } },
  get_workflow_run: { op: 'run', doc: 'Get workflow run', args: { ...REPO, run_id: N('Workflow run id') } },
  list_workflow_jobs: {
    op: 'run_jobs',
    doc: 'List workflow jobs',
    args: { ...REPO, run_id: N('Workflow run id') },
  },
  get_job_logs: {
    op: 'job_logs',
    doc: 'Download logs for a specific workflow job',
    args: { ...REPO, job_id: N('The unique identifier of the workflow job') },
  },
  // v0.27.0 (run-gemini-cli's pin): reads grouped by `method`
  issue_read: {
    op: 'issue',
    doc: 'Get information about a specific issue in a GitHub repository',
    method: { get: 'issue', get_comments: 'issue_comments' },
    args: {
      ...REPO,
      method: { to: '', type: 'string', doc: 'get or get_comments', required: true },
      issue_number: N('The number of the issue'),
    },
  },
  pull_request_read: {
    op: 'pull',
    doc: 'Get information on a specific pull request in GitHub repository',
    method: {
      get: 'pull',
      get_files: 'pull_files',
      get_review_comments: 'review_comments',
      get_comments: 'issue_comments',
    },
    args: {
      ...REPO,
      method: {
        to: '',
        type: 'string',
        doc: 'get, get_files, get_review_comments or get_comments',
        required: true,
      },
      pullNumber: at('pull_number', N('Pull request number')),
    },
  },
};
// The tool's own name for the argument is also the REST name unless `to` says otherwise.
for (const tool of Object.values(githubTools))
  for (const [name, arg] of Object.entries(tool.args)) if (!arg.to && name !== 'method') arg.to = name;

const commentTools: Record<string, McpTool> = {
  update_claude_comment: {
    op: 'comment',
    doc: 'Update the Claude comment with progress and results (automatically handles both issue and PR comments)',
    bound: { issue_number: '@thread' },
    args: { body: at('body', S('The updated comment content')) },
  },
};

const ciTools: Record<string, McpTool> = {
  get_ci_status: { op: 'runs', doc: 'Get CI status summary for this PR', args: {} },
  get_workflow_run_details: {
    op: 'run_jobs',
    doc: 'Get job and step details for a workflow run',
    args: { run_id: at('run_id', N('The workflow run ID')) },
  },
  download_job_log: {
    op: 'job_logs',
    doc: 'Download job logs to disk',
    args: { job_id: at('job_id', N('The job ID')) },
  },
};

/** The GitHub MCP servers the world serves, each at ENDPOINT + GITHUB_MCP_PATH + /SERVER. */
export const GITHUB_MCP_SERVERS: Record<string, McpServer> = {
  github: {
    doc: 'github/github-mcp-server (v0.17.1 and v0.27.0 tool names)',
    repoBound: false,
    tools: githubTools,
  },
  github_comment: {
    doc: "claude-code-action's comment server (the tracking comment on the event's issue or PR)",
    repoBound: true,
    tools: commentTools,
  },
  github_ci: { doc: "claude-code-action's CI server (runs, jobs, logs)", repoBound: true, tools: ciTools },
};

export const mcpTool = (server: string, tool: string): McpTool | undefined =>
  Object.hasOwn(GITHUB_MCP_SERVERS, server) && Object.hasOwn(GITHUB_MCP_SERVERS[server]!.tools, tool)
    ? GITHUB_MCP_SERVERS[server]!.tools[tool]
    : undefined;

/** The operations a tool can perform (one, or one per `method` value). */
export const toolOps = (tool: McpTool): GithubOp[] => (tool.method ? Object.values(tool.method) : [tool.op]);

/** The MCP servers that are routes to a service's operations, per service (the catalog's name). */
export const SERVICE_MCP_SERVERS: Readonly<Record<string, Record<string, McpServer>>> = {
  github: GITHUB_MCP_SERVERS,
};

/** Every MCP tool that can carry out the service's operation, in table order. */
export function toolsForOp(service: string, op: string): { server: string; name: string; tool: McpTool }[] {
  const servers = Object.hasOwn(SERVICE_MCP_SERVERS, service) ? SERVICE_MCP_SERVERS[service]! : {};
  return Object.entries(servers).flatMap(([server, s]) =>
    Object.entries(s.tools)
      .filter(([, t]) => (toolOps(t) as string[]).includes(op))
      .map(([name, tool]) => ({ server, name, tool })),
  );
}

/** The JSON schema a server lists for a tool. */
export function inputSchema(tool: McpTool): Record<string, unknown> {
  const properties = Object.fromEntries(
    Object.entries(tool.args).map(([name, a]) => [
      name,
      a.type === 'array'
        ? {
            type: 'array',
            description: a.doc,
            items: {
              type: 'object',
              properties: { path: { type: 'string' }, content: { type: 'string' } },
              required: ['path', 'content'],
            },
          }
        : {
            type: a.type,
            description: a.doc,
            ...(name === 'method' && tool.method ? { enum: Object.keys(tool.method) } : {}),
          },
    ]),
  );
  const required = Object.entries(tool.args)
    .filter(([, a]) => a.required)
    .map(([n]) => n);
  return { type: 'object', properties, required };
}

export interface Binding {
  /** The trial's repository (OWNER/REPO): bound servers' `repo`. */
  repo: string;
  /** The event's issue or pull request number, when the event has one. */
  thread?: number;
}

/**
 * The REST calls (a `call` action's arguments each, with its op) a tool call stands for; a string says why
 * it cannot be made (a missing argument, an unknown `method`), as the server would answer.
 */
export function restCalls(
  server: string,
  tool: McpTool,
  input: Record<string, unknown>,
  bind: Binding,
): { op: GithubOp; args: Record<string, unknown> }[] | string {
  const op = tool.method ? tool.method[String(input.method)] : tool.op;
  if (!op) return `method must be one of ${Object.keys(tool.method ?? {}).join(', ')}`;
  const missing = Object.entries(tool.args).find(([n, a]) => a.required && input[n] === undefined);
  if (missing) return `missing required parameter: ${missing[0]}`;
  const args: Record<string, unknown> = {};
  if (GITHUB_MCP_SERVERS[server]?.repoBound) args.repo = bind.repo;
  const owner = input.owner === undefined ? undefined : String(input.owner);
  const name = input.repo === undefined ? undefined : String(input.repo);
  if (owner !== undefined || name !== undefined) args.repo = `${owner ?? ''}/${name ?? ''}`;
  for (const [key, value] of Object.entries(tool.bound ?? {})) {
    if (value === '@thread' && bind.thread === undefined) return 'this event has no issue or pull request';
    args[key] = bind.thread;
  }
  for (const [n, a] of Object.entries(tool.args)) {
    if (input[n] === undefined || a.to.startsWith('@') || !a.to || n === tool.each) continue;
    args[a.to] = a.base64 ? Buffer.from(String(input[n])).toString('base64') : input[n];
  }
  // pull_request_read's get_comments is the issue-comments op, numbered as an issue.
  if (op === 'issue_comments' && args.pull_number !== undefined) {
    args.issue_number = args.pull_number;
    delete args.pull_number;
  }
  if (!tool.each) return [{ op, args }];
  const items = Array.isArray(input[tool.each]) ? (input[tool.each] as unknown[]) : [];
  if (!items.length) return `${tool.each} must be a non-empty array`;
  return items.map((item) => {
    const f = (item ?? {}) as Record<string, unknown>;
    return {
      op,
      args: { ...args, path: f.path, content: Buffer.from(String(f.content ?? '')).toString('base64') },
    };
  });
}

/**
 * The tool's arguments for a `call` action (the inverse of restCalls), or undefined when the tool cannot
 * carry it out: an argument the call has no value for, a bound thread the call may not be about.
 */
export function toolArgs(
  tool: McpTool,
  op: string,
  call: Record<string, unknown>,
): Record<string, unknown> | undefined {
  if (!(toolOps(tool) as string[]).includes(op) || tool.each) return undefined;
  const [owner, name] = String(call.repo ?? '').split('/');
  const values: Record<string, unknown> = { ...call, '@owner': owner, '@name': name };
  if (op === 'issue_comments' && tool.method && call.issue_number !== undefined)
    values.pull_number = call.issue_number;
  const out: Record<string, unknown> = {};
  for (const [n, a] of Object.entries(tool.args)) {
    if (n === 'method' && tool.method) {
      out[n] = Object.entries(tool.method).find(([, o]) => o === op)![0];
      continue;
    }
    const v = values[a.to];
    if (v === undefined) {
      if (a.required) return undefined;
      continue;
    }
    // A call's content is text (svc encodes it for REST), as the tool takes it.
    out[n] = a.type === 'number' ? Number(v) : v;
  }
  return out;
}

/** The REST request of a `call` action's arguments for a GitHub op: the route's path, then its query or body. */
export function restRequest(
  op: GithubOp,
  args: Record<string, unknown>,
): {
  method: string;
  path: string;
  params: string[];
  query: URLSearchParams;
  fields: Record<string, unknown>;
} {
  const spec = GITHUB_OPS[op];
  const [owner, name] = String(args.repo ?? '').split('/');
  const values: Record<string, string> = { owner: owner ?? '', repo: name ?? '' };
  const names = [...spec.path.matchAll(/:([a-z_]+)\+?/g)].map((m) => m[1]!);
  for (const n of names.slice(2)) values[n] = args[n] === undefined ? '' : String(args[n]);
  const params = names.map((n) => values[n]!);
  const enc = encodeURIComponent;
  const path = spec.path.replace(/:([a-z_]+)(\+?)/g, (_m, n: string, plus: string) =>
    plus ? values[n]!.split('/').map(enc).join('/') : enc(values[n]!),
  );
  const rest = Object.fromEntries(
    Object.entries(args).filter(([k, v]) => k !== 'repo' && !names.includes(k) && v !== undefined),
  );
  const query = new URLSearchParams(
    spec.method === 'GET' ? Object.entries(rest).map(([k, v]) => [k, String(v)]) : [],
  );
  return { method: spec.method, path, params, query, fields: spec.method === 'GET' ? {} : rest };
}
