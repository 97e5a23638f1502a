// The GitHub event a `github_event` case stands for: the webhook payload a workflow run by that event
// would see as `github.event` (the fields prompt templates read: the pull request, issue, comment,
// review comment, release, workflow run or check run), built from the case's GitHub world. A CI profile
// or a team's wiring places these fields in the harness's prompt, as the workflow's template does.
import type { GithubState } from '../spec/github-state.js';
import type { GithubSource } from '../spec/vocabulary.js';
import type { Case } from './schema.js';

/** An event as a workflow sees it: `github.event_name` and `github.event`. */
export interface GithubEvent {
  name: string;
  payload: Record<string, unknown>;
}

/** The top-level keys an event payload may carry; a template reading any other key is a typo. */
export const EVENT_KEYS = [
  'action',
  'number',
  'pull_request',
  'issue',
  'comment',
  'release',
  'workflow_run',
  'check_run',
  'repository',
  'sender',
] as const;

/** The event that triggers a workflow for each source of untrusted text. */
export const EVENT_OF_SOURCE: Record<GithubSource, string> = {
  pr_title: 'pull_request',
  pr_body: 'pull_request',
  fork_pr_file: 'pull_request',
  commit_message: 'pull_request',
  review_comment: 'pull_request_review_comment',
  issue_body: 'issues',
  issue_comment: 'issue_comment',
  workflow_log: 'workflow_run',
  check_run_output: 'check_run',
  release_notes: 'release',
};

type Gh = GithubState;
type Pull = Gh['pulls'][number];
type Issue = Gh['issues'][number];

/**
 * The object of a kind the event is about: the one whose text carries the trigger (the attacker wrote
 * the event), else the first. A workflow is triggered by the object that holds the untrusted text.
 */
function about<T>(items: T[], trigger: string): T | undefined {
  return items.find((i) => JSON.stringify(i).includes(trigger)) ?? items[0];
}

const user = (login: string) => ({ login });

function pullPayload(p: Pull, gh: Gh) {
  return {
    number: p.number,
    title: p.title,
    body: p.body,
    user: user(p.user),
    head: { ref: p.head, repo: { full_name: p.fork ? `${p.user}/${gh.repo.split('/')[1]}` : gh.repo } },
    base: { ref: p.base, repo: { full_name: gh.repo } },
    html_url: `https://github.com/${gh.repo}/pull/${p.number}`,
  };
}

function issuePayload(i: Issue, gh: Gh) {
  return {
    number: i.number,
    title: i.title,
    body: i.body,
    user: user(i.user),
    labels: i.labels.map((name) => ({ name })),
    state: i.state,
    html_url: `https://github.com/${gh.repo}/issues/${i.number}`,
  };
}

/** The payload's subject for each event: the object the untrusted text sits in, as GitHub sends it. */
function subject(source: GithubSource, gh: Gh, trigger: string): Record<string, unknown> | undefined {
  switch (source) {
    case 'issue_body': {
      const i = about(gh.issues, trigger);
      return i && { action: 'opened', issue: issuePayload(i, gh) };
    }
    case 'issue_comment':
      return commentSubject(gh, trigger);
    case 'review_comment': {
      const p = about(gh.pulls, trigger);
      const c = p && about(p.review_comments, trigger);
      return (
        p && {
          action: 'created',
          pull_request: pullPayload(p, gh),
          ...(c ? { comment: { body: c.body, path: c.path, line: c.line, user: user(c.user) } } : {}),
        }
      );
    }
    case 'release_notes': {
      const r = about(gh.releases, trigger);
      return r && { action: 'published', release: { tag_name: r.tag, name: r.name ?? r.tag, body: r.body } };
    }
    case 'workflow_log': {
      const r = about(gh.runs, trigger);
      return (
        r && {
          action: 'completed',
          workflow_run: { id: r.id, name: r.name, head_branch: r.head_branch, conclusion: r.conclusion },
        }
      );
    }
    case 'check_run_output': {
      const r = about(gh.check_runs, trigger);
      const output = r && { title: r.title, summary: r.summary, text: r.text };
      return (
        r && { action: 'completed', check_run: { id: r.id, name: r.name, conclusion: r.conclusion, output } }
      );
    }
    default: {
      const p = about(gh.pulls, trigger);
      return p && { action: 'opened', number: p.number, pull_request: pullPayload(p, gh) };
    }
  }
}

/** An issue comment: on an issue or on a pull request (GitHub sends both as `issue` + `comment`). */
function commentSubject(gh: Gh, trigger: string): Record<string, unknown> | undefined {
  const threads = [
    ...gh.issues.map((i) => ({ issue: issuePayload(i, gh), comments: i.comments })),
    ...gh.pulls.map((p) => ({
      issue: {
        ...pullPayload(p, gh),
        pull_request: { html_url: `https://github.com/${gh.repo}/pull/${p.number}` },
      },
      comments: p.comments,
    })),
  ];
  const t = about(threads, trigger);
  if (!t) return undefined;
  const c = about(t.comments, trigger);
  return {
    action: 'created',
    issue: t.issue,
    ...(c ? { comment: { body: c.body, user: user(c.user) } } : {}),
  };
}

/**
 * The event a `github_event` case stands for, from its GitHub world; undefined for other entry points
 * or a case whose world holds no object of the source's kind.
 */
export function githubEvent(
  c: Pick<Case, 'entry_point' | 'github_source' | 'world' | 'inject'>,
): GithubEvent | undefined {
  const gh = c.world.services?.github;
  if (c.entry_point !== 'github_event' || !c.github_source || !gh) return undefined;
  const s = subject(c.github_source, gh, c.inject.trigger);
  if (!s) return undefined;
  const [owner, name] = gh.repo.split('/');
  return {
    name: EVENT_OF_SOURCE[c.github_source],
    payload: {
      ...s,
      repository: { full_name: gh.repo, name, owner: user(owner!), default_branch: gh.default_branch },
      sender: user(senderOf(s)),
    },
  };
}

/** Who triggered the event: the author of its comment, pull request or issue. */
function senderOf(s: Record<string, unknown>): string {
  for (const k of ['comment', 'pull_request', 'issue'] as const) {
    const login = (s[k] as { user?: { login?: string } } | undefined)?.user?.login;
    if (login) return login;
  }
  return 'contributor';
}

/** The issue or pull request an event is about (an action's comment goes there), when it has one. */
export function eventThread(event: GithubEvent | undefined): number | undefined {
  for (const key of ['pull_request', 'issue'] as const) {
    const n = (event?.payload[key] as { number?: unknown } | undefined)?.number;
    if (typeof n === 'number') return n;
  }
  return undefined;
}

/** What a workflow's action fetches about the event's issue or pull request besides the payload. */
export const THREAD_FIELDS = ['comments', 'review_comments', 'changed_files', 'commits'] as const;
export type ThreadContext = Record<(typeof THREAD_FIELDS)[number], string>;

/** +added/-removed lines of a unified diff. */
function lineCounts(patch: string): string {
  const lines = patch.split('\n');
  const add = lines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).length;
  const del = lines.filter((l) => l.startsWith('-') && !l.startsWith('---')).length;
  return `+${add}/-${del}`;
}

/**
 * The event's thread as an action that fetches it before the agent starts lays it out (claude-code-action
 * lists the comments, the review comments and the changed files, src/create-prompt): from the case's
 * GitHub world, for `{{thread.…}}` in a prompt template. Fields the thread lacks are empty.
 */
export function threadContext(c: Pick<Case, 'world'>, event: GithubEvent | undefined): ThreadContext {
  const gh = c.world.services?.github;
  const n = eventThread(event);
  const pull = gh?.pulls.find((p) => p.number === n);
  const thread = pull ?? gh?.issues.find((i) => i.number === n);
  const lines = (xs: string[]) => xs.join('\n\n');
  return {
    comments: lines((thread?.comments ?? []).map((x) => `[${x.user}]: ${x.body}`)),
    review_comments: lines(
      (pull?.review_comments ?? []).map((x) => `[Comment by ${x.user} on ${x.path}:${x.line}]: ${x.body}`),
    ),
    changed_files: (pull?.files ?? [])
      .map((f) => `- ${f.filename} (${f.status.toUpperCase()}) ${lineCounts(f.patch)}`)
      .join('\n'),
    commits: (pull?.commits ?? []).map((x) => `- ${x.message}`).join('\n'),
  };
}
