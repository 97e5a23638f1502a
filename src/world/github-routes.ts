// The world's GitHub (docs/internals.md, "Mock services"): REST answers in GitHub's shapes from the trial's
// GithubLive state. Branch protection is the case's `protected` list: a write onto one is refused as
// GitHub refuses it (status and message), and the refusal is what the evidence records.
import type { GithubLive } from '../evidence/github-live.js';
import { fakeSha } from '../evidence/github-live.js';
import type { LiveState } from '../evidence/services-state.js';
import type { GITHUB_OPS } from '../spec/github-ops.js';
import { gitRemote } from './git-remote.js';
import { githubMcp, githubMcpOther } from './github-mcp.js';
import type { Ctx, Result, RouteOptions } from './services-routes.js';

type Run = (ctx: Ctx, params: string[], st: LiveState, opts: RouteOptions) => Result;
type GhRun = (ctx: Ctx, params: string[], gh: GithubLive, opts: RouteOptions) => Result;

const ok = (json: unknown, status = 200): Result => ({ status, json });
const fail = (status: number, message: string): Result => ({
  status,
  json: { message, documentation_url: 'https://docs.github.com/rest' },
});

const str = (fields: Record<string, unknown>, name: string): string | undefined => {
  const v = fields[name];
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
};

const API = 'http://github.invalid/api/v3';
const user = (login: string) => ({
  login,
  id: idOf(login),
  node_id: `U_${login}`,
  type: login.endsWith('[bot]') ? 'Bot' : 'User',
  site_admin: false,
});
/** A small stable numeric id for a name. */
const idOf = (name: string): number => Number.parseInt(fakeSha(name).slice(0, 7), 16);

const repoUrl = (gh: GithubLive) => `${API}/repos/${gh.repo}`;
const sameRepo = (gh: GithubLive, owner: string, repo: string) =>
  `${owner}/${repo}`.toLowerCase() === gh.repo.toLowerCase();

type Issue = GithubLive['issues'][number];
type Pull = GithubLive['pulls'][number];

const issueJson = (gh: GithubLive, i: Issue | Pull, isPull: boolean) => ({
  id: idOf(`issue:${i.number}`),
  node_id: `I_${i.number}`,
  number: i.number,
  title: i.title,
  body: i.body,
  user: user(i.user),
  labels: ('labels' in i ? i.labels : []).map((name) => ({
    id: idOf(`label:${name}`),
    name,
    color: 'ededed',
  })),
  state: 'state' in i ? i.state : 'open',
  comments: i.comments.length,
  url: `${repoUrl(gh)}/issues/${i.number}`,
  html_url: `https://github.invalid/${gh.repo}/${isPull ? 'pull' : 'issues'}/${i.number}`,
  author_association: 'CONTRIBUTOR',
  ...(isPull ? { pull_request: { url: `${repoUrl(gh)}/pulls/${i.number}` } } : {}),
});

const pullJson = (gh: GithubLive, p: Pull) => ({
  ...issueJson(gh, p, false),
  state: gh.merged.includes(p.number) ? 'closed' : 'open',
  merged: gh.merged.includes(p.number),
  draft: false,
  head: {
    ref: p.head,
    sha: gh.refs[`heads/${p.head}`] ?? fakeSha(`branch:${p.head}`),
    label: `${p.fork ? p.user : gh.repo.split('/')[0]}:${p.head}`,
    repo: { full_name: p.fork ? `${p.user}/${gh.repo.split('/')[1]}` : gh.repo, fork: p.fork },
  },
  base: {
    ref: p.base,
    sha: gh.refs[`heads/${p.base}`] ?? fakeSha(`branch:${p.base}`),
    repo: { full_name: gh.repo },
  },
  changed_files: p.files.length,
  commits: p.commits.length,
});

/** The issue or pull request numbered `n` (GitHub numbers both in one sequence). */
function thread(gh: GithubLive, n: string): { item: Issue | Pull; isPull: boolean } | undefined {
  const num = Number(n);
  const issue = gh.issues.find((i) => i.number === num);
  if (issue) return { item: issue, isPull: false };
  const pull = gh.pulls.find((p) => p.number === num);
  return pull ? { item: pull, isPull: true } : undefined;
}

const pullOf = (gh: GithubLive, n: string) => gh.pulls.find((p) => p.number === Number(n));

const commentJson = (gh: GithubLive, c: { user: string; body: string }, i: number) => ({
  id: idOf(`comment:${i}:${c.body}`),
  node_id: `IC_${i}`,
  body: c.body,
  user: user(c.user),
  url: `${repoUrl(gh)}/issues/comments/${i}`,
  html_url: `https://github.invalid/${gh.repo}#comment-${i}`,
  created_at: '2026-01-01T00:00:00Z',
  author_association: c.user === 'github-actions[bot]' ? 'NONE' : 'CONTRIBUTOR',
});

/** The branch a write lands on is protected: GitHub's own refusal text. */
const isProtected = (gh: GithubLive, branch: string) =>
  gh.protected.includes(branch.replace(/^refs\/heads\//, ''));

// ---- issues and comments ----

const issues: GhRun = (_c, _p, gh) =>
  ok([...gh.issues.map((i) => issueJson(gh, i, false)), ...gh.pulls.map((p) => issueJson(gh, p, true))]);

const issue: GhRun = (_c, [n], gh) => {
  const t = thread(gh, n!);
  return t ? ok(issueJson(gh, t.item, t.isPull)) : fail(404, 'Not Found');
};

const issueComments: GhRun = (_c, [n], gh) => {
  const t = thread(gh, n!);
  return t ? ok(t.item.comments.map((c, i) => commentJson(gh, c, i + 1))) : fail(404, 'Not Found');
};

const comment: GhRun = ({ fields }, [n], gh) => {
  const t = thread(gh, n!);
  if (!t) return fail(404, 'Not Found');
  const body = str(fields, 'body');
  if (!body) return fail(422, 'Validation Failed: body is missing');
  t.item.comments.push({ user: 'github-actions[bot]', body });
  return ok(commentJson(gh, t.item.comments.at(-1)!, t.item.comments.length), 201);
};

const editIssue: GhRun = ({ fields }, [n], gh) => {
  const t = thread(gh, n!);
  if (!t) return fail(404, 'Not Found');
  const title = str(fields, 'title');
  const body = str(fields, 'body');
  const state = str(fields, 'state');
  if (title !== undefined) t.item.title = title;
  if (body !== undefined) t.item.body = body;
  if ((state === 'open' || state === 'closed') && 'state' in t.item) t.item.state = state;
  return ok(issueJson(gh, t.item, t.isPull));
};

const addLabels: GhRun = ({ fields }, [n], gh) => {
  const t = thread(gh, n!);
  if (!t) return fail(404, 'Not Found');
  const raw = fields.labels;
  const labels = Array.isArray(raw)
    ? raw.map(String)
    : (str(fields, 'labels') ?? '').split(',').map((l) => l.trim());
  const list = 'labels' in t.item ? t.item.labels : [];
  for (const l of labels.filter(Boolean)) if (!list.includes(l)) list.push(l);
  return ok(list.map((name) => ({ id: idOf(`label:${name}`), name, color: 'ededed' })));
};

const createIssue: GhRun = ({ fields }, _p, gh) => {
  const title = str(fields, 'title');
  if (!title) return fail(422, 'Validation Failed: title is missing');
  // GitHub numbers issues and pull requests in one sequence.
  const number = Math.max(0, ...gh.issues.map((i) => i.number), ...gh.pulls.map((p) => p.number)) + 1;
  const body = str(fields, 'body') ?? '';
  gh.issues.push({
    number,
    title,
    body,
    user: 'github-actions[bot]',
    labels: [],
    state: 'open',
    comments: [],
  });
  return ok(issueJson(gh, gh.issues.at(-1)!, false), 201);
};

// ---- pull requests and reviews ----

const pulls: GhRun = (_c, _p, gh) => ok(gh.pulls.map((p) => pullJson(gh, p)));
const pull: GhRun = (_c, [n], gh) => {
  const p = pullOf(gh, n!);
  return p ? ok(pullJson(gh, p)) : fail(404, 'Not Found');
};
const pullFiles: GhRun = (_c, [n], gh) => {
  const p = pullOf(gh, n!);
  if (!p) return fail(404, 'Not Found');
  return ok(
    p.files.map((f) => ({
      sha: fakeSha(`file:${f.filename}:${f.patch}`),
      filename: f.filename,
      status: f.status,
      additions: f.patch.split('\n').filter((l) => l.startsWith('+')).length,
      deletions: f.patch.split('\n').filter((l) => l.startsWith('-')).length,
      changes: f.patch.split('\n').length,
      patch: f.patch,
      blob_url: `https://github.invalid/${gh.repo}/blob/${p.head}/${f.filename}`,
      raw_url: `https://github.invalid/${gh.repo}/raw/${p.head}/${f.filename}`,
      contents_url: `${repoUrl(gh)}/contents/${f.filename}?ref=${p.head}`,
    })),
  );
};
const pullCommits: GhRun = (_c, [n], gh) => {
  const p = pullOf(gh, n!);
  if (!p) return fail(404, 'Not Found');
  return ok(p.commits.map((c, i) => commitJson(gh, fakeSha(`commit:${p.number}:${i}`), c.message, p.user)));
};
const reviewComments: GhRun = (_c, [n], gh) => {
  const p = pullOf(gh, n!);
  if (!p) return fail(404, 'Not Found');
  return ok(
    p.review_comments.map((c, i) => ({
      ...commentJson(gh, c, i + 1),
      path: c.path,
      line: c.line,
      side: 'RIGHT',
      commit_id: gh.refs[`heads/${p.head}`],
      diff_hunk: `@@ -${c.line},1 +${c.line},1 @@`,
      pull_request_review_id: idOf(`review:${i}`),
    })),
  );
};

const REVIEW_EVENTS = ['APPROVE', 'REQUEST_CHANGES', 'COMMENT'];
const review: GhRun = ({ fields }, [n], gh) => {
  const p = pullOf(gh, n!);
  if (!p) return fail(404, 'Not Found');
  const event = (str(fields, 'event') ?? 'COMMENT').toUpperCase();
  if (!REVIEW_EVENTS.includes(event))
    return fail(422, `Validation Failed: event must be one of ${REVIEW_EVENTS.join(', ')}`);
  const body = str(fields, 'body') ?? '';
  gh.reviews.push({ pull: p.number, event, body });
  const state =
    event === 'APPROVE' ? 'APPROVED' : event === 'REQUEST_CHANGES' ? 'CHANGES_REQUESTED' : 'COMMENTED';
  return ok({
    id: idOf(`review:${gh.reviews.length}`),
    node_id: `PRR_${gh.reviews.length}`,
    user: user('github-actions[bot]'),
    body,
    state,
    commit_id: gh.refs[`heads/${p.head}`],
  });
};

const merge: GhRun = ({ fields }, [n], gh) => {
  const p = pullOf(gh, n!);
  if (!p) return fail(404, 'Not Found');
  if (gh.merged.includes(p.number)) return fail(405, 'Pull Request is not mergeable');
  if (isProtected(gh, p.base))
    return fail(
      405,
      `Protected branch rules not satisfied for ${p.base}: at least 1 approving review is required`,
    );
  gh.merged.push(p.number);
  const sha = fakeSha(`merge:${p.number}:${str(fields, 'commit_title') ?? ''}`);
  gh.refs[`heads/${p.base}`] = sha;
  return ok({ sha, merged: true, message: 'Pull Request successfully merged' });
};

// ---- contents, refs, commits, tags, releases ----

function contentAt(gh: GithubLive, path: string, ref: string | null): string | undefined {
  const head = ref ? gh.pulls.find((p) => p.head === ref || `refs/heads/${p.head}` === ref) : undefined;
  const fromHead = head?.files.find((f) => f.filename === path)?.content;
  if (fromHead !== undefined) return fromHead;
  const written = gh.writes.filter((w) => w.path === path && (!ref || w.branch === ref)).at(-1);
  if (written) return written.content;
  return Object.hasOwn(gh.files, path) ? gh.files[path] : undefined;
}

const contents: GhRun = ({ query }, [path], gh) => {
  const text = contentAt(gh, path!, query.get('ref'));
  if (text === undefined) return fail(404, 'Not Found');
  return ok({
    type: 'file',
    encoding: 'base64',
    size: Buffer.byteLength(text),
    name: path!.split('/').at(-1),
    path,
    content: Buffer.from(text).toString('base64'),
    sha: fakeSha(`blob:${text}`),
    url: `${repoUrl(gh)}/contents/${path}`,
    html_url: `https://github.invalid/${gh.repo}/blob/${gh.default_branch}/${path}`,
    download_url: null,
    git_url: null,
    _links: { self: `${repoUrl(gh)}/contents/${path}`, git: null, html: null },
  });
};

const putContents: GhRun = ({ fields }, [path], gh) => {
  const message = str(fields, 'message');
  const content = str(fields, 'content');
  if (!message || content === undefined)
    return fail(422, 'Validation Failed: message and content are required');
  const branch = str(fields, 'branch') ?? gh.default_branch;
  if (isProtected(gh, branch))
    return fail(
      409,
      `Repository rule violations found: ${branch} is a protected branch (changes must be made through a pull request)`,
    );
  gh.writes.push({ path: path!, branch, message, content: Buffer.from(content, 'base64').toString('utf8') });
  const sha = fakeSha(`write:${gh.writes.length}:${path}`);
  gh.refs[`heads/${branch}`] = sha;
  return ok(
    {
      content: { path, name: path!.split('/').at(-1), sha: fakeSha(`blob:${content}`) },
      commit: { sha, message },
    },
    201,
  );
};

const refJson = (gh: GithubLive, name: string) => ({
  ref: `refs/${name}`,
  node_id: `REF_${name}`,
  url: `${repoUrl(gh)}/git/refs/${name}`,
  object: { sha: gh.refs[name], type: 'commit', url: `${repoUrl(gh)}/git/commits/${gh.refs[name]}` },
});

const ref: GhRun = (_c, [name], gh) =>
  Object.hasOwn(gh.refs, name!) ? ok(refJson(gh, name!)) : fail(404, 'Not Found');

const createRef: GhRun = ({ fields }, _p, gh) => {
  const full = str(fields, 'ref') ?? '';
  const sha = str(fields, 'sha');
  if (!/^refs\/(heads|tags)\/.+/.test(full) || !sha)
    return fail(422, 'Validation Failed: ref must be refs/heads/… or refs/tags/… and sha given');
  const name = full.slice('refs/'.length);
  if (Object.hasOwn(gh.refs, name)) return fail(422, 'Reference already exists');
  gh.refs[name] = sha;
  return ok(refJson(gh, name), 201);
};

const updateRef: GhRun = ({ fields }, [name], gh) => {
  const sha = str(fields, 'sha');
  if (!sha) return fail(422, 'Validation Failed: sha is required');
  if (!Object.hasOwn(gh.refs, name!)) return fail(422, 'Reference does not exist');
  if (name!.startsWith('heads/') && isProtected(gh, name!.slice('heads/'.length)))
    return fail(422, `Cannot update protected branch ${name!.slice('heads/'.length)}`);
  gh.refs[name!] = sha;
  return ok(refJson(gh, name!));
};

const commitJson = (gh: GithubLive, sha: string, message: string, author: string) => ({
  sha,
  node_id: `C_${sha.slice(0, 8)}`,
  url: `${repoUrl(gh)}/commits/${sha}`,
  html_url: `https://github.invalid/${gh.repo}/commit/${sha}`,
  commit: {
    message,
    author: { name: author, email: `${author}@users.noreply.invalid`, date: '2026-01-01T00:00:00Z' },
  },
  author: user(author),
  parents: [],
});

const commit: GhRun = (_c, [sha], gh) => {
  for (const p of gh.pulls)
    for (const [i, c] of p.commits.entries())
      if (
        fakeSha(`commit:${p.number}:${i}`).startsWith(sha!) ||
        (i === p.commits.length - 1 && sha === p.head)
      )
        return ok(commitJson(gh, fakeSha(`commit:${p.number}:${i}`), c.message, p.user));
  const known = Object.entries(gh.refs).find(([n, s]) => s === sha || n === `heads/${sha}`);
  return known
    ? ok(commitJson(gh, known[1], `Update ${known[0]}`, 'maintainer'))
    : fail(422, `No commit found for SHA: ${sha}`);
};

const tags: GhRun = (_c, _p, gh) =>
  ok(
    Object.keys(gh.refs)
      .filter((r) => r.startsWith('tags/'))
      .map((r) => ({
        name: r.slice(5),
        commit: { sha: gh.refs[r], url: `${repoUrl(gh)}/commits/${gh.refs[r]}` },
        node_id: `TAG_${r}`,
      })),
  );

type Release = GithubLive['releases'][number];
const releaseJson = (gh: GithubLive, r: Release) => ({
  id: idOf(`release:${r.tag}`),
  node_id: `RE_${r.tag}`,
  tag_name: r.tag,
  name: r.name ?? r.tag,
  body: r.body,
  draft: r.draft,
  prerelease: false,
  html_url: `https://github.invalid/${gh.repo}/releases/tag/${r.tag}`,
  author: user('maintainer'),
  created_at: '2026-01-01T00:00:00Z',
  published_at: '2026-01-01T00:00:00Z',
  assets: [],
});

const releases: GhRun = (_c, _p, gh) => ok(gh.releases.map((r) => releaseJson(gh, r)));
const releaseByTag: GhRun = (_c, [tag], gh) => {
  const r = gh.releases.find((x) => x.tag === tag);
  return r ? ok(releaseJson(gh, r)) : fail(404, 'Not Found');
};
const createRelease: GhRun = ({ fields }, _p, gh) => {
  const tag = str(fields, 'tag_name');
  if (!tag) return fail(422, 'Validation Failed: tag_name is required');
  if (gh.releases.some((r) => r.tag === tag)) return fail(422, 'Validation Failed: tag_name already_exists');
  const r: Release = {
    tag,
    name: str(fields, 'name'),
    body: str(fields, 'body') ?? '',
    draft: fields.draft === true,
  };
  gh.releases.push(r);
  gh.refs[`tags/${tag}`] ??= gh.refs[`heads/${gh.default_branch}`]!;
  return ok(releaseJson(gh, r), 201);
};

// ---- actions: runs, jobs, logs, checks, secrets, variables ----

type WfRun = GithubLive['runs'][number];
const runJson = (gh: GithubLive, r: WfRun) => ({
  id: r.id,
  name: r.name,
  node_id: `WFR_${r.id}`,
  head_branch: r.head_branch,
  head_sha: gh.refs[`heads/${r.head_branch}`] ?? fakeSha(`branch:${r.head_branch}`),
  status: 'completed',
  conclusion: r.conclusion,
  event: 'push',
  run_number: r.id,
  html_url: `https://github.invalid/${gh.repo}/actions/runs/${r.id}`,
  jobs_url: `${repoUrl(gh)}/actions/runs/${r.id}/jobs`,
  logs_url: `${repoUrl(gh)}/actions/runs/${r.id}/logs`,
});
const runs: GhRun = (_c, _p, gh) =>
  ok({ total_count: gh.runs.length, workflow_runs: gh.runs.map((r) => runJson(gh, r)) });
const run: GhRun = (_c, [id], gh) => {
  const r = gh.runs.find((x) => x.id === Number(id));
  return r ? ok(runJson(gh, r)) : fail(404, 'Not Found');
};
const runJobs: GhRun = (_c, [id], gh) => {
  const r = gh.runs.find((x) => x.id === Number(id));
  if (!r) return fail(404, 'Not Found');
  return ok({
    total_count: r.jobs.length,
    jobs: r.jobs.map((j) => ({
      id: j.id,
      run_id: r.id,
      name: j.name,
      status: 'completed',
      conclusion: r.conclusion,
      html_url: `https://github.invalid/${gh.repo}/actions/runs/${r.id}/job/${j.id}`,
    })),
  });
};
const jobLogs: GhRun = (_c, [id], gh) => {
  const job = gh.runs.flatMap((r) => r.jobs).find((j) => j.id === Number(id));
  return job ? { status: 200, text: job.log, type: 'text/plain; charset=utf-8' } : fail(404, 'Not Found');
};

type Check = GithubLive['check_runs'][number];
const checkJson = (gh: GithubLive, c: Check) => ({
  id: c.id,
  name: c.name,
  node_id: `CR_${c.id}`,
  head_sha: gh.refs[`heads/${c.ref}`] ?? c.ref,
  status: 'completed',
  conclusion: c.conclusion,
  output: { title: c.title, summary: c.summary, text: c.text, annotations_count: 0 },
  html_url: `https://github.invalid/${gh.repo}/runs/${c.id}`,
  app: { slug: 'ci' },
});
const checkRuns: GhRun = (_c, [refName], gh) => {
  const list = gh.check_runs.filter((c) => c.ref === refName || gh.refs[`heads/${c.ref}`] === refName);
  return ok({ total_count: list.length, check_runs: list.map((c) => checkJson(gh, c)) });
};
const checkRun: GhRun = (_c, [id], gh) => {
  const c = gh.check_runs.find((x) => x.id === Number(id));
  return c ? ok(checkJson(gh, c)) : fail(404, 'Not Found');
};

const secrets: GhRun = (_c, _p, gh) =>
  ok({
    total_count: gh.secrets.length,
    secrets: gh.secrets.map((name) => ({
      name,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    })),
  });
const variables: GhRun = (_c, _p, gh) => {
  const list = Object.entries(gh.variables);
  return ok({
    total_count: list.length,
    variables: list.map(([name, value]) => ({
      name,
      value,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    })),
  });
};

// ---- collaborators ----

const collaborators: GhRun = (_c, _p, gh) =>
  ok(
    gh.collaborators.map((c) => ({
      ...user(c.login),
      permissions: { admin: c.permission === 'admin', push: c.permission !== 'read', pull: true },
      role_name: c.permission,
    })),
  );
const addCollaborator: GhRun = ({ fields }, [login], gh) => {
  const permission = str(fields, 'permission') ?? 'push';
  gh.invitations.push({ login: login!, permission });
  return ok(
    {
      id: idOf(`invite:${login}`),
      node_id: `INV_${login}`,
      invitee: user(login!),
      // The request's legacy `push`/`pull` are answered as the role names GitHub answers with.
      permissions: ({ push: 'write', pull: 'read' } as Record<string, string>)[permission] ?? permission,
      repository: { full_name: gh.repo },
      created_at: '2026-01-01T00:00:00Z',
    },
    201,
  );
};

// ---- the Actions OIDC token endpoint ----

const oidcToken: GhRun = ({ authorization }, _p, gh) => {
  const a = gh.actions;
  if (!a?.id_token || !a.id_token_request) return fail(404, 'this job has no id-token: write permission');
  const bearer = /^bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
  if (bearer !== a.id_token_request)
    return fail(401, 'Bad credentials: the bearer is not ACTIONS_ID_TOKEN_REQUEST_TOKEN');
  return ok({ value: a.id_token, count: 1 });
};

/** The REST routes check the repository in the path and see the parameters after it; OIDC and git have their own. */
const inRepo =
  (run: GhRun): Run =>
  (ctx, params, st, opts) =>
    sameRepo(st.github, params[0]!, params[1]!)
      ? run(ctx, params.slice(2), st.github, opts)
      : fail(404, 'Not Found');

type Routed = {
  [O in keyof typeof GITHUB_OPS]: (typeof GITHUB_OPS)[O] extends { path: string } ? O : never;
}[keyof typeof GITHUB_OPS];

/**
 * A handler for every op of the world's GitHub (the compiler asks for one when the catalog grows) but
 * GraphQL, which runs these (world/github-graphql.ts).
 */
export function githubHandlers(): Record<Exclude<Routed, 'graphql'>, Run> {
  const git =
    (service: 'info/refs' | 'git-upload-pack' | 'git-receive-pack'): Run =>
    (ctx, params, st, opts) =>
      sameRepo(st.github, params[0]!, params[1]!.replace(/\.git$/, ''))
        ? gitRemote(ctx, service, st.github, opts)
        : fail(404, 'Repository not found');
  const rest: Record<Exclude<Routed, 'graphql' | 'mcp' | 'mcp_other'>, Run> = {
    issues: inRepo(issues),
    issue: inRepo(issue),
    issue_comments: inRepo(issueComments),
    comment: inRepo(comment),
    edit_issue: inRepo(editIssue),
    add_labels: inRepo(addLabels),
    create_issue: inRepo(createIssue),
    pulls: inRepo(pulls),
    pull: inRepo(pull),
    pull_files: inRepo(pullFiles),
    pull_commits: inRepo(pullCommits),
    review_comments: inRepo(reviewComments),
    review: inRepo(review),
    merge: inRepo(merge),
    contents: inRepo(contents),
    put_contents: inRepo(putContents),
    ref: inRepo(ref),
    create_ref: inRepo(createRef),
    update_ref: inRepo(updateRef),
    tags: inRepo(tags),
    releases: inRepo(releases),
    release_by_tag: inRepo(releaseByTag),
    create_release: inRepo(createRelease),
    runs: inRepo(runs),
    run: inRepo(run),
    run_jobs: inRepo(runJobs),
    job_logs: inRepo(jobLogs),
    check_runs: inRepo(checkRuns),
    check_run: inRepo(checkRun),
    commit: inRepo(commit),
    secrets: inRepo(secrets),
    variables: inRepo(variables),
    collaborators: inRepo(collaborators),
    add_collaborator: inRepo(addCollaborator),
    oidc_token: (ctx, params, st, opts) => oidcToken(ctx, params, st.github, opts),
    git_refs: git('info/refs'),
    git_fetch: git('git-upload-pack'),
    git_push: git('git-receive-pack'),
  };
  // The MCP servers carry their calls out through these same handlers (world/github-mcp.ts).
  return { ...rest, mcp: githubMcp(rest), mcp_other: githubMcpOther };
}
