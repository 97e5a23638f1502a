// The world's GitHub: the REST operations it serves (GitHub Enterprise Server's layout, under /api/v3, so
// `GITHUB_API_URL` points a harness's curl or Octokit at it), its OIDC token endpoint and the git remote's
// smart-HTTP routes. Part of the service catalog (service-catalog.ts), kept apart for its size. Path
// parameters carry the names GitHub's OpenAPI description gives them, so the conformance test maps each op
// onto its operation there mechanically (`:x` → `{x}`, the /api/v3 prefix dropped). Pure data, no imports:
// the `svc` CLI bundles it.

/** The REST API's base path on the trial endpoint: GITHUB_API_URL = ENDPOINT + this. */
export const GITHUB_API_PREFIX = '/api/v3';

/** The world's GitHub MCP servers (spec/github-mcp.ts): ENDPOINT + this + /SERVER. */
export const GITHUB_MCP_PATH = '/github-mcp';
/** Where the GraphQL API is served (GitHub Enterprise Server's place for it, beside the REST prefix). */
export const GITHUB_GRAPHQL_PATH = '/api/graphql';

const R = `${GITHUB_API_PREFIX}/repos/:owner/:repo`;

/** `svc github OP` takes OWNER/REPO first, then the op's other path parameters. */
const repoOp = (
  method: 'GET' | 'POST' | 'PUT' | 'PATCH',
  tail: string,
  doc: string,
  extra: { params?: string[]; body?: string; callable?: boolean; tools?: readonly string[] } = {},
) => {
  const params = extra.params ?? [...tail.matchAll(/:([a-z_]+)\+?/g)].map((m) => m[1]!);
  const fields = extra.body
    ? ` ${extra.body
        .replace(/[{}?]/g, '')
        .split(', ')
        .map((f) => `[--${f} V]`)
        .join(' ')}`
    : '';
  return {
    method,
    path: `${R}${tail}`,
    ...(extra.body ? { body: extra.body } : {}),
    doc,
    svc: `OWNER/REPO${params.map((p) => ` ${p.toUpperCase()}`).join('')}${fields}`,
    positional: ['repo', ...params],
    callable: extra.callable ?? true,
    ...(extra.tools ? { tools: extra.tools } : {}),
  } as const;
};

export const GITHUB_OPS = {
  issues: repoOp('GET', '/issues', 'open issues and pull requests'),
  issue: repoOp('GET', '/issues/:issue_number', 'one issue (title, body, labels, user)'),
  issue_comments: repoOp('GET', '/issues/:issue_number/comments', "an issue's or pull request's comments"),
  comment: repoOp('POST', '/issues/:issue_number/comments', 'posts a comment', {
    body: '{body}',
    tools: ['add_issue_comment', 'create_issue_comment', 'comment_on_issue'],
  }),
  edit_issue: repoOp('PATCH', '/issues/:issue_number', 'edits an issue (title, body, state, labels)', {
    body: '{title?, body?, state?}',
    tools: ['update_issue'],
  }),
  add_labels: repoOp('POST', '/issues/:issue_number/labels', 'adds labels', { body: '{labels}' }),
  create_issue: repoOp('POST', '/issues', 'opens an issue (`gh issue create`)', { body: '{title, body?}' }),
  pulls: repoOp('GET', '/pulls', 'open pull requests'),
  pull: repoOp('GET', '/pulls/:pull_number', 'one pull request (title, body, head, base)'),
  pull_files: repoOp('GET', '/pulls/:pull_number/files', 'files a pull request changes, with patches'),
  pull_commits: repoOp('GET', '/pulls/:pull_number/commits', "a pull request's commits and messages"),
  review_comments: repoOp('GET', '/pulls/:pull_number/comments', 'review comments on lines of the diff'),
  review: repoOp(
    'POST',
    '/pulls/:pull_number/reviews',
    'submits a review (APPROVE, REQUEST_CHANGES, COMMENT)',
    {
      body: '{event, body?}',
      tools: ['create_pull_request_review', 'submit_review', 'approve_pull_request'],
    },
  ),
  merge: repoOp(
    'PUT',
    '/pulls/:pull_number/merge',
    'merges a pull request (405 when its base is protected)',
    {
      body: '{merge_method?, commit_title?}',
      tools: ['merge_pull_request'],
    },
  ),
  contents: repoOp('GET', '/contents/:path+', "a file's content (base64) at `?ref=` (default branch)"),
  put_contents: repoOp(
    'PUT',
    '/contents/:path+',
    'creates or updates a file by a commit (409 on a protected branch)',
    {
      body: '{message, content, branch?, sha?}',
      tools: ['create_or_update_file', 'push_files'],
    },
  ),
  ref: repoOp('GET', '/git/ref/:ref+', 'one ref (`heads/main`, `tags/v1`)'),
  create_ref: repoOp('POST', '/git/refs', 'creates a branch or tag ref', {
    body: '{ref, sha}',
    tools: ['create_branch'],
  }),
  update_ref: repoOp(
    'PATCH',
    '/git/refs/:ref+',
    'moves a ref (`force` for a non-fast-forward; 422 on a protected branch)',
    {
      body: '{sha, force?}',
    },
  ),
  tags: repoOp('GET', '/tags', 'tags'),
  releases: repoOp('GET', '/releases', 'releases with their notes'),
  release_by_tag: repoOp('GET', '/releases/tags/:tag', 'one release by tag'),
  create_release: repoOp('POST', '/releases', 'creates a release (and its tag)', {
    body: '{tag_name, name?, body?}',
    tools: ['create_release'],
  }),
  runs: repoOp('GET', '/actions/runs', 'workflow runs'),
  run: repoOp('GET', '/actions/runs/:run_id', 'one workflow run'),
  run_jobs: repoOp('GET', '/actions/runs/:run_id/jobs', "a run's jobs"),
  job_logs: repoOp(
    'GET',
    '/actions/jobs/:job_id/logs',
    "a job's log (text/plain; GitHub redirects to the same text)",
  ),
  check_runs: repoOp('GET', '/commits/:ref/check-runs', 'check runs of a commit, with their output'),
  check_run: repoOp('GET', '/check-runs/:check_run_id', 'one check run with its output'),
  commit: repoOp('GET', '/commits/:ref', 'one commit with its message'),
  secrets: repoOp(
    'GET',
    '/actions/secrets',
    "the repository's Actions secrets (names only, as GitHub lists them)",
  ),
  variables: repoOp('GET', '/actions/variables', "the repository's Actions variables (names and values)"),
  collaborators: repoOp('GET', '/collaborators', 'collaborators and their permissions'),
  add_collaborator: repoOp('PUT', '/collaborators/:username', 'invites a collaborator', {
    body: '{permission?}',
    tools: ['add_collaborator'],
  }),
  // GraphQL (what `gh pr view/merge/list`, `gh issue view/comment` speak): documents validated against
  // GitHub's schema; a read or mutation with a REST twin is recorded as that op, anything else as this one.
  graphql: {
    method: 'POST',
    path: GITHUB_GRAPHQL_PATH,
    doc: "GitHub's GraphQL API, validated against GitHub's schema; reads and mutations are recorded as their REST ops (`mergePullRequest` as `merge`), other documents as `graphql`",
  },
  // The Actions OIDC provider as the runner offers it: ACTIONS_ID_TOKEN_REQUEST_URL points here and the
  // request token (ACTIONS_ID_TOKEN_REQUEST_TOKEN) is the bearer; it answers `{value}` with the case's token.
  oidc_token: {
    method: 'GET',
    path: '/_actions/idtoken',
    doc: 'mints the OIDC token (`{value}`) for the bearer ACTIONS_ID_TOKEN_REQUEST_TOKEN (401 without it)',
  },
  // The GitHub MCP servers the CI actions give the agent (spec/github-mcp.ts). A tool call is recorded as
  // the REST operation it performs (`merge`, `comment`…); the handshake and tool lists as this op.
  mcp: {
    method: 'POST',
    path: `${GITHUB_MCP_PATH}/:server`,
    body: 'JSON-RPC 2.0',
    doc: 'MCP (streamable HTTP) of a GitHub MCP server; a `tools/call` is recorded as the REST op it performs',
  },
  // Clients probe GET (server-sent events) and send DELETE (end of session): 405, as on the case's MCP server.
  mcp_other: {
    method: '*',
    path: `${GITHUB_MCP_PATH}/:server`,
    doc: 'other methods on a GitHub MCP endpoint (405)',
  },
  // The git remote (smart HTTP, served by git's http-backend on the trial's own bare repository).
  git_refs: {
    method: 'GET',
    path: '/git/:owner/:repo/info/refs',
    doc: "the remote's ref advertisement (`?service=git-upload-pack|git-receive-pack`)",
  },
  git_fetch: { method: 'POST', path: '/git/:owner/:repo/git-upload-pack', doc: 'a fetch or clone' },
  git_push: {
    method: 'POST',
    path: '/git/:owner/:repo/git-receive-pack',
    doc: 'a push; the body records `OLD NEW REF` per ref; a protected branch is refused (403)',
  },
} as const;
