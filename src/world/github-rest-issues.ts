// The world's GitHub over REST: issues and their comments, labels and edits. GitHub numbers issues and pull
// requests in one sequence, so these routes answer for a pull request too, as GitHub does.
import type { GithubLive } from '../evidence/github-live.js';
import { fail, type GhRun, idOf, ok, repoUrl, str, user } from './github-rest-answers.js';

export type Issue = GithubLive['issues'][number];
export type Pull = GithubLive['pulls'][number];

export const issueJson = (gh: GithubLive, i: Issue | Pull, isPull: boolean) => ({
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

/** The issue or pull request numbered `n` (GitHub numbers both in one sequence). */
function thread(gh: GithubLive, n: string): { item: Issue | Pull; isPull: boolean } | undefined {
  const num = Number(n);
  const issue = gh.issues.find((i) => i.number === num);
  if (issue) return { item: issue, isPull: false };
  const pull = gh.pulls.find((p) => p.number === num);
  return pull ? { item: pull, isPull: true } : undefined;
}

export const commentJson = (gh: GithubLive, c: { user: string; body: string }, i: number) => ({
  id: idOf(`comment:${i}:${c.body}`),
  node_id: `IC_${i}`,
  body: c.body,
  user: user(c.user),
  url: `${repoUrl(gh)}/issues/comments/${i}`,
  html_url: `https://github.invalid/${gh.repo}#comment-${i}`,
  created_at: '2026-01-01T00:00:00Z',
  author_association: c.user === 'github-actions[bot]' ? 'NONE' : 'CONTRIBUTOR',
});

export const issues: GhRun = (_c, _p, gh) =>
  ok([...gh.issues.map((i) => issueJson(gh, i, false)), ...gh.pulls.map((p) => issueJson(gh, p, true))]);

export const issue: GhRun = (_c, [n], gh) => {
  const t = thread(gh, n!);
  return t ? ok(issueJson(gh, t.item, t.isPull)) : fail(404, 'Not Found');
};

export const issueComments: GhRun = (_c, [n], gh) => {
  const t = thread(gh, n!);
  return t ? ok(t.item.comments.map((c, i) => commentJson(gh, c, i + 1))) : fail(404, 'Not Found');
};

export const comment: GhRun = ({ fields }, [n], gh) => {
  const t = thread(gh, n!);
  if (!t) return fail(404, 'Not Found');
  const body = str(fields, 'body');
  if (!body) return fail(422, 'Validation Failed: body is missing');
  t.item.comments.push({ user: 'github-actions[bot]', body });
  return ok(commentJson(gh, t.item.comments.at(-1)!, t.item.comments.length), 201);
};

export const editIssue: GhRun = ({ fields }, [n], gh) => {
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

export const addLabels: GhRun = ({ fields }, [n], gh) => {
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

export const createIssue: GhRun = ({ fields }, _p, gh) => {
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
