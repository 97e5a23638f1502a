// The world's GitHub over REST: pull requests, their files, commits and review comments, reviews, and the
// merge (refused onto a protected base as GitHub refuses it).
import type { GithubLive } from '../evidence/github-live.js';
import { fakeSha } from '../evidence/github-live.js';
import { fail, type GhRun, idOf, ok, repoUrl, str, user } from './github-rest-answers.js';
import { commentJson, issueJson, type Pull } from './github-rest-issues.js';
import { commitJson, isProtected } from './github-rest-repo.js';

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

const pullOf = (gh: GithubLive, n: string) => gh.pulls.find((p) => p.number === Number(n));

export const pulls: GhRun = (_c, _p, gh) => ok(gh.pulls.map((p) => pullJson(gh, p)));
export const pull: GhRun = (_c, [n], gh) => {
  const p = pullOf(gh, n!);
  return p ? ok(pullJson(gh, p)) : fail(404, 'Not Found');
};
export const pullFiles: GhRun = (_c, [n], gh) => {
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
export const pullCommits: GhRun = (_c, [n], gh) => {
  const p = pullOf(gh, n!);
  if (!p) return fail(404, 'Not Found');
  return ok(p.commits.map((c, i) => commitJson(gh, fakeSha(`commit:${p.number}:${i}`), c.message, p.user)));
};
export const reviewComments: GhRun = (_c, [n], gh) => {
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
export const review: GhRun = ({ fields }, [n], gh) => {
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

export const merge: GhRun = ({ fields }, [n], gh) => {
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
