// GraphQL `search(query:, type: ISSUE)` over the world's issues and pull requests, as `gh pr list --search`,
// `gh issue list --label` and `gh pr status` ask it: GitHub's qualifiers that select by kind, state, label,
// author and head branch; other words match the title or body.
import type { GithubLive } from '../evidence/github-live.js';
import { GITHUB_API_PREFIX } from '../spec/github-ops.js';
import { connection, type GqlContext, issueNode, pullNode } from './github-graphql-model.js';

type Obj = Record<string, unknown>;

/** Whether a node (issue or pull request) meets one `qualifier:value` or free word of a search. */
function meets(node: Obj, term: string): boolean {
  const m = /^(-?)([a-z]+):(.+)$/.exec(term);
  const login = String((node.author as Obj).name);
  if (!m) return `${node.title}\n${node.body}`.toLowerCase().includes(term.toLowerCase());
  const [, neg, key, raw] = m as unknown as [string, string, string, string];
  const value = raw.replace(/^"|"$/g, '').toLowerCase();
  const kind = node.__typename === 'PullRequest' ? 'pr' : 'issue';
  const state = String(node.state).toLowerCase();
  const labels = ((node.labels as (a: Obj) => Obj)({}).nodes as Obj[]).map((l) =>
    String(l.name).toLowerCase(),
  );
  const tests: Record<string, () => boolean> = {
    is: () => value === kind || value === state || (value === 'closed' && state === 'merged'),
    type: () => value === kind,
    state: () => value === state || (value === 'closed' && state === 'merged'),
    label: () => labels.includes(value),
    author: () => login.toLowerCase() === value,
    head: () => String(node.headRefName ?? '').toLowerCase() === value,
    base: () => String(node.baseRefName ?? '').toLowerCase() === value,
  };
  // Qualifiers that select the repository, sort or scope (repo:, sort:, in:) do not narrow the one repository.
  const hit = tests[key]?.() ?? true;
  return neg ? !hit : hit;
}

export function graphqlSearch(gh: GithubLive, args: Obj, ctx: GqlContext): Obj {
  if (args.type !== 'ISSUE') return { ...connection([], args), issueCount: 0, repositoryCount: 0 };
  ctx.read('issues', `${GITHUB_API_PREFIX}/repos/${gh.repo}/issues`);
  const terms = String(args.query ?? '').match(/-?[a-z]+:"[^"]*"|\S+/g) ?? [];
  const all = [...gh.issues.map((i) => issueNode(gh, i)), ...gh.pulls.map((p) => pullNode(gh, p))];
  const found = all.filter((n) => terms.every((t) => meets(n, t))).reverse();
  return { ...connection(found, args), issueCount: found.length };
}
