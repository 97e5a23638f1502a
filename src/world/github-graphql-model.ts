// The world's GitHub as GraphQL objects: the trial's live state seen through GitHub's GraphQL types
// (Repository, PullRequest, Issue, IssueComment, Label, CheckRun…). Each object carries the fields the state
// determines, named as the schema names them; a field the state says nothing about is answered by the
// generic resolver (github-graphql.ts) with a value of its declared type. A field that reads what a REST
// operation serves reports that operation (`ctx.read`), so evidence checks see the same ops whichever API
// the agent used.
import { fakeSha, type GithubLive } from '../evidence/github-live.js';
import { GITHUB_API_PREFIX } from '../spec/github-ops.js';

/** What resolvers share during one request: the state and the read operations they reported. */
export interface GqlContext {
  gh: GithubLive;
  /** Reports a read: the REST op that serves the same data, its REST path and the status REST answers. */
  read(op: string, path: string, status?: number): void;
}

type Obj = Record<string, unknown>;
type Args = Record<string, unknown>;
type Issue = GithubLive['issues'][number];
type Pull = GithubLive['pulls'][number];

const WEB = 'https://github.invalid';
const EPOCH = '2026-01-01T00:00:00Z';
const idOf = (name: string): number => Number.parseInt(fakeSha(name).slice(0, 7), 16);
const repoPath = (gh: GithubLive) => `${GITHUB_API_PREFIX}/repos/${gh.repo}`;

/** Node ids: a type prefix and the object's key, as opaque to a client as GitHub's and decodable here. */
export const nodeId = (prefix: string, key: string | number): string =>
  `${prefix}_${Buffer.from(String(key)).toString('base64url')}`;
export function decodeNodeId(id: string): { prefix: string; key: string } | undefined {
  const m = /^([A-Z]+)_([A-Za-z0-9_-]*)$/.exec(id);
  return m ? { prefix: m[1]!, key: Buffer.from(m[2]!, 'base64url').toString('utf8') } : undefined;
}

/** A connection over `items` as GitHub pages one: `first`/`last`, `after`/`before` cursors (the index). */
export function connection(items: unknown[], args: Args): Obj {
  const cursor = (i: number) => Buffer.from(`cursor:${i}`).toString('base64');
  const at = (c: unknown) =>
    typeof c === 'string' ? Number(Buffer.from(c, 'base64').toString().slice(7)) : NaN;
  const indexed = items.map((node, i) => ({ node, i }));
  let slice = indexed.filter(
    ({ i }) => !(i <= at(args.after) || (Number.isFinite(at(args.before)) && i >= at(args.before))),
  );
  const window = slice.length;
  if (typeof args.first === 'number') slice = slice.slice(0, args.first);
  if (typeof args.last === 'number') slice = slice.slice(Math.max(0, slice.length - args.last));
  return {
    totalCount: items.length,
    nodes: slice.map((s) => s.node),
    edges: slice.map((s) => ({ node: s.node, cursor: cursor(s.i) })),
    pageInfo: {
      hasNextPage: slice.length > 0 && slice.at(-1)!.i < indexed.length - 1 && slice.length < window,
      hasPreviousPage: slice.length > 0 && slice[0]!.i > 0,
      startCursor: slice.length ? cursor(slice[0]!.i) : null,
      endCursor: slice.length ? cursor(slice.at(-1)!.i) : null,
    },
  };
}

export function actor(login: string): Obj {
  const bot = login.endsWith('[bot]');
  return {
    __typename: bot ? 'Bot' : 'User',
    id: nodeId(bot ? 'BOT' : 'U', login),
    databaseId: idOf(login),
    login: bot ? login.slice(0, -'[bot]'.length) : login,
    name: login,
    url: `${WEB}/${login}`,
    avatarUrl: `${WEB}/${login}.png`,
    resourcePath: `/${login}`,
  };
}

const label = (name: string): Obj => ({
  __typename: 'Label',
  id: nodeId('LA', name),
  name,
  color: 'ededed',
  description: null,
  url: `${WEB}/labels/${encodeURIComponent(name)}`,
});

const comment = (gh: GithubLive, n: number, c: { user: string; body: string }, i: number): Obj => ({
  __typename: 'IssueComment',
  id: nodeId('IC', `${n}:${i}`),
  databaseId: idOf(`comment:${i}:${c.body}`),
  author: actor(c.user),
  body: c.body,
  bodyText: c.body,
  createdAt: EPOCH,
  updatedAt: EPOCH,
  url: `${WEB}/${gh.repo}/issues/${n}#issuecomment-${i}`,
  authorAssociation: c.user === 'github-actions[bot]' ? 'NONE' : 'CONTRIBUTOR',
  viewerDidAuthor: c.user === 'github-actions[bot]',
  includesCreatedEdit: false,
  isMinimized: false,
  minimizedReason: null,
});

/** The fields issues and pull requests share (GitHub numbers both in one sequence). */
function thread(gh: GithubLive, t: Issue | Pull, kind: 'issues' | 'pull'): Obj {
  const n = t.number;
  const labels = 'labels' in t ? t.labels : [];
  return {
    number: n,
    title: t.title,
    body: t.body,
    bodyText: t.body,
    author: actor(t.user),
    url: `${WEB}/${gh.repo}/${kind}/${n}`,
    resourcePath: `/${gh.repo}/${kind}/${n}`,
    createdAt: EPOCH,
    updatedAt: EPOCH,
    locked: false,
    authorAssociation: 'CONTRIBUTOR',
    repository: () => repository(gh),
    labels: (a: Args) => connection(labels.map(label), a),
    comments: (a: Args, ctx: GqlContext) => {
      ctx.read('issue_comments', `${repoPath(gh)}/issues/${n}/comments`);
      return connection(
        t.comments.map((c, i) => comment(gh, n, c, i + 1)),
        a,
      );
    },
  };
}

export function issueNode(gh: GithubLive, i: Issue): Obj {
  return {
    ...thread(gh, i, 'issues'),
    __typename: 'Issue',
    id: nodeId('I', i.number),
    databaseId: idOf(`issue:${i.number}`),
    state: i.state === 'closed' ? 'CLOSED' : 'OPEN',
    stateReason: i.state === 'closed' ? 'COMPLETED' : null,
    closed: i.state === 'closed',
  };
}

const headOid = (gh: GithubLive, p: Pull) => gh.refs[`heads/${p.head}`] ?? fakeSha(`branch:${p.head}`);

function checkRun(gh: GithubLive, c: GithubLive['check_runs'][number]): Obj {
  return {
    __typename: 'CheckRun',
    id: nodeId('CR', c.id),
    databaseId: c.id,
    name: c.name,
    status: 'COMPLETED',
    conclusion: c.conclusion.toUpperCase(),
    title: c.title,
    summary: c.summary,
    text: c.text,
    detailsUrl: `${WEB}/${gh.repo}/runs/${c.id}`,
    url: `${WEB}/${gh.repo}/runs/${c.id}`,
    startedAt: EPOCH,
    completedAt: EPOCH,
    checkSuite: { workflowRun: { workflow: { name: c.name } } },
  };
}

/** A commit of a pull request, with the check runs recorded against it (or its branch). */
function prCommit(gh: GithubLive, p: Pull, message: string, oid: string, last: boolean): Obj {
  const checks = gh.check_runs.filter(
    (c) => (last && (c.ref === p.head || c.ref === oid)) || c.ref === oid.slice(0, c.ref.length),
  );
  const [headline, ...rest] = message.split('\n');
  const commit = {
    __typename: 'Commit',
    id: nodeId('C', oid),
    oid,
    abbreviatedOid: oid.slice(0, 7),
    message,
    messageHeadline: headline,
    messageBody: rest.join('\n').trim(),
    committedDate: EPOCH,
    authoredDate: EPOCH,
    author: { name: p.user, email: `${p.user}@users.noreply.invalid`, user: actor(p.user) },
    url: `${WEB}/${gh.repo}/commit/${oid}`,
    statusCheckRollup: (_a: Args, ctx: GqlContext) => {
      if (!checks.length) return null;
      ctx.read('check_runs', `${repoPath(gh)}/commits/${oid}/check-runs`);
      const failing = checks.some((c) => c.conclusion === 'failure');
      return {
        id: nodeId('SCR', oid),
        state: failing ? 'FAILURE' : 'SUCCESS',
        contexts: (a: Args) =>
          connection(
            checks.map((c) => checkRun(gh, c)),
            a,
          ),
      };
    },
  };
  return { __typename: 'PullRequestCommit', id: nodeId('PRC', oid), commit, url: commit.url };
}

/** A pull request's connections: commits (with their checks), files, reviews and review threads. */
function pullConnections(gh: GithubLive, p: Pull, head: string): Obj {
  const last = p.commits.length - 1;
  const commits = () =>
    p.commits.map((c, i) =>
      prCommit(gh, p, c.message, i === last ? head : fakeSha(`commit:${p.number}:${i}`), i === last),
    );
  const count = (patch: string, sign: string) => patch.split('\n').filter((l) => l.startsWith(sign)).length;
  return {
    commits: (a: Args, ctx: GqlContext) => {
      ctx.read('pull_commits', `${repoPath(gh)}/pulls/${p.number}/commits`);
      return connection(commits(), a);
    },
    files: (a: Args, ctx: GqlContext) => {
      ctx.read('pull_files', `${repoPath(gh)}/pulls/${p.number}/files`);
      const files = p.files.map((f) => ({
        path: f.filename,
        additions: count(f.patch, '+'),
        deletions: count(f.patch, '-'),
        changeType: CHANGE_TYPE[f.status] ?? 'MODIFIED',
      }));
      return connection(files, a);
    },
    reviews: (a: Args) => {
      const reviews = gh.reviews
        .filter((r) => r.pull === p.number)
        .map((r, i) => ({
          __typename: 'PullRequestReview',
          id: nodeId('PRR', `${p.number}:${i}`),
          author: actor('github-actions[bot]'),
          authorAssociation: 'NONE',
          body: r.body,
          state: REVIEW_STATE[r.event] ?? 'COMMENTED',
          submittedAt: EPOCH,
          commit: { oid: head },
        }));
      return connection(reviews, a);
    },
    reviewThreads: (a: Args, ctx: GqlContext) => {
      ctx.read('review_comments', `${repoPath(gh)}/pulls/${p.number}/comments`);
      const threads = p.review_comments.map((c, i) => ({
        id: nodeId('PRRT', `${p.number}:${i}`),
        path: c.path,
        line: c.line,
        isResolved: false,
        comments: (ca: Args) =>
          connection(
            [{ ...comment(gh, p.number, c, i + 1), __typename: 'PullRequestReviewComment', path: c.path }],
            ca,
          ),
      }));
      return connection(threads, a);
    },
  };
}

export function pullNode(gh: GithubLive, p: Pull): Obj {
  const merged = gh.merged.includes(p.number);
  const lines = (sign: string) =>
    p.files.reduce((s, f) => s + f.patch.split('\n').filter((l) => l.startsWith(sign)).length, 0);
  const head = headOid(gh, p);
  const [owner, name] = gh.repo.split('/') as [string, string];
  const headOwner = p.fork ? p.user : owner;
  return {
    ...thread(gh, p, 'pull'),
    ...pullConnections(gh, p, head),
    __typename: 'PullRequest',
    id: nodeId('PR', p.number),
    databaseId: idOf(`issue:${p.number}`),
    state: merged ? 'MERGED' : 'OPEN',
    merged,
    closed: merged,
    mergedAt: merged ? EPOCH : null,
    isDraft: false,
    mergeable: merged ? 'UNKNOWN' : 'MERGEABLE',
    mergeStateStatus: gh.protected.includes(p.base) ? 'BLOCKED' : 'CLEAN',
    maintainerCanModify: !p.fork,
    additions: lines('+'),
    deletions: lines('-'),
    changedFiles: p.files.length,
    baseRefName: p.base,
    headRefName: p.head,
    baseRefOid: gh.refs[`heads/${p.base}`] ?? fakeSha(`branch:${p.base}`),
    headRefOid: head,
    isCrossRepository: p.fork,
    headRepositoryOwner: actor(headOwner),
    headRepository: { __typename: 'Repository', id: nodeId('R', `${headOwner}/${name}`), name },
    baseRepository: () => repository(gh),
  };
}

const CHANGE_TYPE: Record<string, string> = { added: 'ADDED', removed: 'DELETED', renamed: 'RENAMED' };

export const REVIEW_STATE: Record<string, string> = {
  APPROVE: 'APPROVED',
  REQUEST_CHANGES: 'CHANGES_REQUESTED',
  COMMENT: 'COMMENTED',
};

const byState = (states: unknown, state: string) =>
  !Array.isArray(states) || states.length === 0 || states.includes(state);

/** The repository: its pull requests and issues, refs, releases, labels. */
export function repository(gh: GithubLive): Obj {
  const [owner, name] = gh.repo.split('/') as [string, string];
  const pull = (n: unknown) => gh.pulls.find((p) => p.number === n);
  const issue = (n: unknown) => gh.issues.find((i) => i.number === n);
  const ref = (qualified: string): Obj | null => {
    const short = qualified.replace(/^refs\//, '');
    const key = gh.refs[short] ? short : gh.refs[`heads/${short}`] ? `heads/${short}` : undefined;
    if (!key) return null;
    const [kind, ...rest] = key.split('/');
    return {
      __typename: 'Ref',
      id: nodeId('REF', key),
      name: rest.join('/'),
      prefix: `refs/${kind}/`,
      target: { __typename: 'Commit', id: nodeId('C', gh.refs[key]!), oid: gh.refs[key] },
    };
  };
  return {
    __typename: 'Repository',
    id: nodeId('R', gh.repo),
    databaseId: idOf(gh.repo),
    name,
    nameWithOwner: gh.repo,
    owner: { ...actor(owner), __typename: 'Organization' },
    url: `${WEB}/${gh.repo}`,
    description: null,
    parent: null,
    isFork: false,
    isPrivate: true,
    visibility: 'PRIVATE',
    hasIssuesEnabled: true,
    hasWikiEnabled: false,
    viewerPermission: 'WRITE',
    mergeCommitAllowed: true,
    squashMergeAllowed: true,
    rebaseMergeAllowed: true,
    defaultBranchRef: ref(`heads/${gh.default_branch}`),
    ref: (a: Args) => ref(String(a.qualifiedName)),
    pullRequest: (a: Args, ctx: GqlContext) => {
      const p = pull(a.number);
      ctx.read('pull', `${repoPath(gh)}/pulls/${a.number}`, p ? 200 : 404);
      return p ? pullNode(gh, p) : notFound('PullRequest', a.number);
    },
    issue: (a: Args, ctx: GqlContext) => {
      const i = issue(a.number);
      ctx.read('issue', `${repoPath(gh)}/issues/${a.number}`, i ? 200 : 404);
      return i ? issueNode(gh, i) : notFound('Issue', a.number);
    },
    issueOrPullRequest: (a: Args, ctx: GqlContext) => {
      const i = issue(a.number);
      const p = pull(a.number);
      ctx.read('issue', `${repoPath(gh)}/issues/${a.number}`, i || p ? 200 : 404);
      return i ? issueNode(gh, i) : p ? pullNode(gh, p) : notFound('issue or pull request', a.number);
    },
    pullRequests: (a: Args, ctx: GqlContext) => {
      ctx.read('pulls', `${repoPath(gh)}/pulls`);
      const list = gh.pulls
        .map((p) => pullNode(gh, p))
        .filter((p) => byState(a.states, String(p.state)))
        .filter((p) => !a.headRefName || p.headRefName === a.headRefName)
        .filter((p) => !a.baseRefName || p.baseRefName === a.baseRefName);
      return connection(list.reverse(), a);
    },
    issues: (a: Args, ctx: GqlContext) => {
      ctx.read('issues', `${repoPath(gh)}/issues`);
      const list = gh.issues.map((i) => issueNode(gh, i)).filter((i) => byState(a.states, String(i.state)));
      return connection(list.reverse(), a);
    },
    labels: (a: Args) => connection([...new Set(gh.issues.flatMap((i) => i.labels))].map(label), a),
    releases: (a: Args, ctx: GqlContext) => {
      ctx.read('releases', `${repoPath(gh)}/releases`);
      return connection(
        gh.releases.map((r) => ({
          __typename: 'Release',
          id: nodeId('RE', r.tag),
          tagName: r.tag,
          name: r.name ?? r.tag,
          description: r.body,
          isDraft: r.draft,
          isPrerelease: false,
          createdAt: EPOCH,
          url: `${WEB}/${gh.repo}/releases/tag/${r.tag}`,
        })),
        a,
      );
    },
  };
}

/** GitHub answers an unknown number with null and a NOT_FOUND error at that path. */
export class NotFoundError extends Error {
  readonly type = 'NOT_FOUND';
}
function notFound(what: string, n: unknown): never {
  throw new NotFoundError(
    `Could not resolve to ${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what} with the number of ${n}.`,
  );
}

/** The object a node id names, or null. */
export function nodeById(gh: GithubLive, id: unknown): Obj | null {
  const d = typeof id === 'string' ? decodeNodeId(id) : undefined;
  if (!d) return null;
  const n = Number(d.key);
  if (d.prefix === 'PR') {
    const p = gh.pulls.find((x) => x.number === n);
    return p ? pullNode(gh, p) : null;
  }
  if (d.prefix === 'I') {
    const i = gh.issues.find((x) => x.number === n);
    return i ? issueNode(gh, i) : null;
  }
  if (d.prefix === 'R' && d.key === gh.repo) return repository(gh);
  if (d.prefix === 'U' || d.prefix === 'BOT') return actor(d.prefix === 'BOT' ? `${d.key}` : d.key);
  return null;
}
