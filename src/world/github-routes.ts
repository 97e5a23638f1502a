// The world's GitHub (docs/internals.md, "Mock services"): REST answers in GitHub's shapes from the trial's
// GithubLive state. Here: the route table, one handler per op; the handlers are github-rest-issues.ts,
// -pulls.ts, -repo.ts and -actions.ts, on what they share in github-rest-answers.ts.
import type { GithubLive } from '../evidence/github-live.js';
import type { LiveState } from '../evidence/services-state.js';
import type { GITHUB_OPS } from '../spec/github-ops.js';
import { gitRemote } from './git-remote.js';
import { githubMcp, githubMcpOther } from './github-mcp.js';
import {
  checkRun,
  checkRuns,
  jobLogs,
  oidcToken,
  run,
  runJobs,
  runs,
  secrets,
  variables,
} from './github-rest-actions.js';
import { fail, type GhRun } from './github-rest-answers.js';
import {
  addLabels,
  comment,
  createIssue,
  editIssue,
  issue,
  issueComments,
  issues,
} from './github-rest-issues.js';
import { merge, pull, pullCommits, pullFiles, pulls, review, reviewComments } from './github-rest-pulls.js';
import {
  addCollaborator,
  collaborators,
  commit,
  contents,
  createRef,
  createRelease,
  putContents,
  ref,
  releaseByTag,
  releases,
  tags,
  updateRef,
} from './github-rest-repo.js';
import type { Ctx, Result, RouteOptions } from './services-routes.js';

type Run = (ctx: Ctx, params: string[], st: LiveState, opts: RouteOptions) => Result;

const sameRepo = (gh: GithubLive, owner: string, repo: string) =>
  `${owner}/${repo}`.toLowerCase() === gh.repo.toLowerCase();

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
