// GraphQL mutations of the world's GitHub, each carried out by its REST twin (kind → twin, as the check-kind
// registry maps kind → handler): `mergePullRequest` is the `merge` op with the same path parameters and
// fields, so the state changes, branch protection refuses and the evidence records exactly what the REST
// call would, whichever API the agent used. A mutation without a twin here is refused.
import type { GithubLive } from '../evidence/github-live.js';
import {
  actor,
  decodeNodeId,
  issueNode,
  nodeById,
  nodeId,
  pullNode,
  REVIEW_STATE,
  repository,
} from './github-graphql-model.js';

type Args = Record<string, unknown>;
type Obj = Record<string, unknown>;

/** A REST call that carries out a mutation, and the payload the mutation answers once it succeeded. */
export interface Twin {
  /** The REST op (GITHUB_OPS) that does the same. */
  op: string;
  /** Its path parameters after OWNER/REPO. */
  params: string[];
  /** Its body fields. */
  fields: Record<string, unknown>;
  payload: (gh: GithubLive) => Obj;
}

/** A mutation's REST twin for its `input`, or the error GitHub would answer (an id that names nothing). */
type ToTwin = (input: Args, gh: GithubLive) => Twin | string;

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** The number of the issue or pull request a node id names (PR_… or I_…), else undefined. */
function threadNumber(id: unknown, prefixes: string[] = ['PR', 'I']): number | undefined {
  const d = typeof id === 'string' ? decodeNodeId(id) : undefined;
  return d && prefixes.includes(d.prefix) && /^\d+$/.test(d.key) ? Number(d.key) : undefined;
}

const unresolved = (id: unknown) => `Could not resolve to a node with the global id of '${String(id)}'`;

/** The issue or pull request as its payload field names it. */
function threadPayload(gh: GithubLive, n: number): Obj {
  const issue = gh.issues.find((i) => i.number === n);
  if (issue) return { issue: issueNode(gh, issue), subject: issueNode(gh, issue) };
  const pull = gh.pulls.find((p) => p.number === n)!;
  return { pullRequest: pullNode(gh, pull), subject: pullNode(gh, pull), issue: null };
}

/** closeIssue, reopenPullRequest…: the REST `edit_issue` with a state. */
const setState =
  (key: string, state: 'open' | 'closed', prefixes: string[]): ToTwin =>
  (input) => {
    const n = threadNumber(input[key], prefixes);
    if (n === undefined) return unresolved(input[key]);
    return { op: 'edit_issue', params: [String(n)], fields: { state }, payload: (g) => threadPayload(g, n) };
  };

/** updateIssue / updatePullRequest: the REST `edit_issue` with title, body and state. */
const update =
  (key: string, prefixes: string[]): ToTwin =>
  (input) => {
    const n = threadNumber(input[key], prefixes);
    if (n === undefined) return unresolved(input[key]);
    const state = text(input.state)?.toLowerCase();
    return {
      op: 'edit_issue',
      params: [String(n)],
      fields: defined({ title: text(input.title), body: text(input.body), state }),
      payload: (g) => ({ ...threadPayload(g, n), actor: actor('github-actions[bot]') }),
    };
  };

export const MUTATION_TWINS: Record<string, ToTwin> = {
  mergePullRequest: (input) => {
    const n = threadNumber(input.pullRequestId, ['PR']);
    if (n === undefined) return unresolved(input.pullRequestId);
    return {
      op: 'merge',
      params: [String(n)],
      fields: defined({
        merge_method: text(input.mergeMethod)?.toLowerCase() ?? 'merge',
        commit_title: text(input.commitHeadline),
        commit_message: text(input.commitBody),
        sha: text(input.expectedHeadOid),
      }),
      payload: (g) => ({ ...threadPayload(g, n), actor: actor('github-actions[bot]') }),
    };
  },
  addComment: (input) => {
    const n = threadNumber(input.subjectId);
    if (n === undefined) return unresolved(input.subjectId);
    return {
      op: 'comment',
      params: [String(n)],
      fields: { body: text(input.body) ?? '' },
      payload: (g) => {
        const t = threadPayload(g, n);
        const subject = t.subject as Obj;
        const comments = [
          ...(g.issues.find((i) => i.number === n) ?? g.pulls.find((p) => p.number === n))!.comments,
        ];
        const i = comments.length;
        const node = {
          __typename: 'IssueComment',
          id: nodeId('IC', `${n}:${i}`),
          body: comments[i - 1]!.body,
          author: actor(comments[i - 1]!.user),
          url: `${String(subject.url)}#issuecomment-${i}`,
        };
        return { subject, commentEdge: { cursor: '', node }, timelineEdge: { cursor: '', node } };
      },
    };
  },
  addPullRequestReview: (input) => {
    const n = threadNumber(input.pullRequestId, ['PR']);
    if (n === undefined) return unresolved(input.pullRequestId);
    // Without an event GitHub leaves the review pending; the REST twin records it as a comment review.
    const event = text(input.event) ?? 'COMMENT';
    return {
      op: 'review',
      params: [String(n)],
      fields: { event, body: text(input.body) ?? '' },
      payload: (g) => {
        const review = {
          __typename: 'PullRequestReview',
          id: nodeId('PRR', `${n}:${g.reviews.length - 1}`),
          state: REVIEW_STATE[event] ?? 'COMMENTED',
          body: text(input.body) ?? '',
          author: actor('github-actions[bot]'),
        };
        return { pullRequestReview: review, reviewEdge: { cursor: '', node: review } };
      },
    };
  },
  createIssue: (input, gh) => {
    const d = decodeNodeId(String(input.repositoryId));
    if (d?.prefix !== 'R' || d.key !== gh.repo) return unresolved(input.repositoryId);
    return {
      op: 'create_issue',
      params: [],
      fields: defined({ title: text(input.title), body: text(input.body) }),
      payload: (g) => ({ issue: issueNode(g, g.issues.at(-1)!) }),
    };
  },
  closeIssue: setState('issueId', 'closed', ['I']),
  reopenIssue: setState('issueId', 'open', ['I']),
  closePullRequest: setState('pullRequestId', 'closed', ['PR']),
  reopenPullRequest: setState('pullRequestId', 'open', ['PR']),
  updateIssue: update('id', ['I']),
  updatePullRequest: update('pullRequestId', ['PR']),
  addLabelsToLabelable: (input) => {
    const n = threadNumber(input.labelableId);
    if (n === undefined) return unresolved(input.labelableId);
    const ids = Array.isArray(input.labelIds) ? input.labelIds : [];
    const labels = ids.map((id) => decodeNodeId(String(id))).filter((d) => d?.prefix === 'LA');
    return {
      op: 'add_labels',
      params: [String(n)],
      fields: { labels: labels.map((d) => d!.key) },
      payload: (g) => ({
        labelable: nodeById(g, nodeId(g.issues.some((i) => i.number === n) ? 'I' : 'PR', n)),
      }),
    };
  },
  createRef: (input, gh) => {
    const d = decodeNodeId(String(input.repositoryId));
    if (d?.prefix !== 'R' || d.key !== gh.repo) return unresolved(input.repositoryId);
    const name = text(input.name) ?? '';
    return {
      op: 'create_ref',
      params: [],
      fields: { ref: name, sha: text(input.oid) },
      payload: (g) => ({ ref: (repository(g).ref as (a: Args) => unknown)({ qualifiedName: name }) }),
    };
  },
  updateRef: (input) => {
    const d = decodeNodeId(String(input.refId));
    if (d?.prefix !== 'REF') return unresolved(input.refId);
    return {
      op: 'update_ref',
      params: [d.key],
      fields: defined({ sha: text(input.oid), force: input.force === true ? true : undefined }),
      payload: (g) => ({ ref: (repository(g).ref as (a: Args) => unknown)({ qualifiedName: d.key }) }),
    };
  },
};
