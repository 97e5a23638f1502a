// What the action knows about where it runs, from the environment the Actions runner sets and the
// event payload (GITHUB_EVENT_PATH). Read explicitly (not from @actions/github's module-level context)
// so the action and its tests see exactly the same thing.
import { existsSync, readFileSync } from 'node:fs';

export interface PullRequestInfo {
  number: number;
  headSha: string;
  headRef: string;
  baseRef: string;
  baseSha: string;
  /** `owner/name` of the head repository; null when the fork was deleted. */
  headRepo: string | null;
  baseRepo: string;
  /** Head repository differs from the base repository: the token is read-only. */
  isFork: boolean;
}

/** A merge queue's group (`merge_group` event): the commit the queue made and the base it is tested on. */
export interface MergeGroupInfo {
  headSha: string;
  /** `refs/heads/gh-readonly-queue/main/pr-…` */
  headRef: string;
  baseSha: string;
  /** The branch the queue merges into (`refs/heads/` left off). */
  baseRef: string;
}

export interface ActionContext {
  eventName: string;
  /** Commit the workflow runs on (for a pull request, the merge commit). */
  sha: string;
  ref: string;
  owner?: string;
  repo?: string;
  serverUrl: string;
  apiUrl: string;
  runId?: string;
  runAttempt?: string;
  workspace: string;
  workflowRef?: string;
  payload: Record<string, any>;
  pullRequest?: PullRequestInfo;
  mergeGroup?: MergeGroupInfo;
  defaultBranch?: string;
  /** The branch a push or dispatch ran on (`refs/heads/X` → X). */
  branch?: string;
}

export function readActionContext(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ActionContext {
  let payload: Record<string, any> = {};
  const eventPath = env.GITHUB_EVENT_PATH;
  if (eventPath && existsSync(eventPath)) {
    try {
      payload = JSON.parse(readFileSync(eventPath, 'utf8'));
    } catch {
      payload = {};
    }
  }
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? payload.repository?.full_name ?? '').split('/');
  const pr = payload.pull_request;
  let pullRequest: PullRequestInfo | undefined;
  if (pr && typeof pr.number === 'number') {
    const headRepo: string | null = pr.head?.repo?.full_name ?? null;
    const baseRepo: string = pr.base?.repo?.full_name ?? env.GITHUB_REPOSITORY ?? '';
    pullRequest = {
      number: pr.number,
      headSha: pr.head?.sha ?? env.GITHUB_SHA ?? '',
      headRef: pr.head?.ref ?? '',
      baseRef: pr.base?.ref ?? env.GITHUB_BASE_REF ?? '',
      baseSha: pr.base?.sha ?? '',
      headRepo,
      baseRepo,
      isFork: headRepo === null || headRepo.toLowerCase() !== baseRepo.toLowerCase(),
    };
  }
  const mg = payload.merge_group;
  const mergeGroup: MergeGroupInfo | undefined =
    env.GITHUB_EVENT_NAME === 'merge_group' && mg && typeof mg.base_sha === 'string'
      ? {
          headSha: mg.head_sha ?? env.GITHUB_SHA ?? '',
          headRef: mg.head_ref ?? '',
          baseSha: mg.base_sha,
          baseRef: String(mg.base_ref ?? '').replace(/^refs\/heads\//, ''),
        }
      : undefined;
  const ref = env.GITHUB_REF ?? '';
  return {
    eventName: env.GITHUB_EVENT_NAME ?? '',
    sha: env.GITHUB_SHA ?? '',
    ref,
    ...(owner && repo ? { owner, repo } : {}),
    serverUrl: env.GITHUB_SERVER_URL ?? 'https://github.com',
    apiUrl: env.GITHUB_API_URL ?? 'https://api.github.com',
    ...(env.GITHUB_RUN_ID ? { runId: env.GITHUB_RUN_ID } : {}),
    ...(env.GITHUB_RUN_ATTEMPT ? { runAttempt: env.GITHUB_RUN_ATTEMPT } : {}),
    workspace: env.GITHUB_WORKSPACE ?? cwd,
    ...(env.GITHUB_WORKFLOW_REF ? { workflowRef: env.GITHUB_WORKFLOW_REF } : {}),
    payload,
    ...(pullRequest ? { pullRequest } : {}),
    ...(mergeGroup ? { mergeGroup } : {}),
    ...(payload.repository?.default_branch
      ? { defaultBranch: payload.repository.default_branch as string }
      : {}),
    ...(ref.startsWith('refs/heads/') ? { branch: ref.slice('refs/heads/'.length) } : {}),
  };
}

/**
 * The base the change is compared with: a pull request's base, a merge queue group's base (the queue tests
 * the merged result against the branch it merges into), or the commit before a push (sha only).
 */
export function baseOfEvent(ctx: ActionContext): { sha?: string; ref?: string } {
  if (ctx.pullRequest)
    return { sha: ctx.pullRequest.baseSha || undefined, ref: ctx.pullRequest.baseRef || undefined };
  if (ctx.mergeGroup) return { sha: ctx.mergeGroup.baseSha, ref: ctx.mergeGroup.baseRef || undefined };
  const before = ctx.payload.before;
  if (ctx.eventName === 'push')
    return {
      ...(typeof before === 'string' && before && !/^0+$/.test(before) ? { sha: before } : {}),
      ...(ctx.branch ? { ref: ctx.branch } : {}),
    };
  return {};
}

export function runUrl(ctx: ActionContext): string | undefined {
  if (!ctx.owner || !ctx.repo || !ctx.runId) return undefined;
  return `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}/actions/runs/${ctx.runId}${ctx.runAttempt && ctx.runAttempt !== '1' ? `/attempts/${ctx.runAttempt}` : ''}`;
}

/** A push (or a manual/scheduled run) on the repository's default branch. */
export function isDefaultBranchPush(ctx: ActionContext): boolean {
  return ctx.eventName === 'push' && !!ctx.defaultBranch && ctx.branch === ctx.defaultBranch;
}

/**
 * The pull request a trusted `workflow_run` job reports on (the fork-PR route, README): the number comes
 * from the `pull-request` input (saved by the untrusted PR workflow), the head commit from the triggering
 * run. The token is this repository's own, so it may write: never a fork here.
 */
export function workflowRunPullRequest(ctx: ActionContext, number: number): PullRequestInfo | undefined {
  const run = ctx.payload.workflow_run;
  if (ctx.eventName !== 'workflow_run' || !run) return undefined;
  const baseRepo = `${ctx.owner ?? ''}/${ctx.repo ?? ''}`;
  // A same-repository PR is listed by the event; a fork PR is not (GitHub leaves pull_requests empty).
  const listed = (run.pull_requests ?? []).find((p: any) => p?.number === number);
  return {
    number,
    headSha: run.head_sha ?? '',
    headRef: run.head_branch ?? '',
    baseRef: listed?.base?.ref ?? ctx.defaultBranch ?? '',
    baseSha: listed?.base?.sha ?? '',
    headRepo: run.head_repository?.full_name ?? null,
    baseRepo,
    isFork: false,
  };
}

/**
 * Why results reported by this job cannot be trusted, when they cannot: a `workflow_run` job reporting on
 * the artifact of a run whose head repository is a fork. GitHub runs a fork's `pull_request` workflow from
 * the pull request's own files, so the fork controls the harness, the workflow and the job that wrote the
 * result: it can upload any numbers it likes (README, "Fork pull requests").
 */
export function untrustedResultReason(ctx: ActionContext): string | undefined {
  const run = ctx.payload.workflow_run;
  if (ctx.eventName !== 'workflow_run' || !run) return undefined;
  const here = `${ctx.owner ?? ''}/${ctx.repo ?? ''}`.toLowerCase();
  const head: string | undefined = run.head_repository?.full_name;
  if (head && head.toLowerCase() === here) return undefined;
  return `it was produced by a workflow run of ${head ?? 'a deleted repository'} (a fork), which controls both the harness and the job that measured it`;
}

/**
 * Why the checked-out tree must not choose what runs outside the sandbox, when it must not: the job runs
 * with the base repository's privileges (its workflow file, a token that may write) on files a fork may
 * control. That is any event but `pull_request` whose payload names a pull request from another (or a
 * deleted) repository (`pull_request_target`, `pull_request_review`…), a `workflow_run` of a fork's run,
 * and a comment on a pull request (`issue_comment`: the payload does not say whose head it is). A
 * `pull_request` job of a fork runs the fork's own workflow with a read-only token: nothing to protect.
 */
export function forkTreeReason(ctx: ActionContext): string | undefined {
  if (ctx.eventName === 'pull_request') return undefined;
  const base = `${ctx.owner ?? ''}/${ctx.repo ?? ''}`;
  const pr = ctx.payload.pull_request;
  if (ctx.pullRequest?.isFork && pr) {
    const head = ctx.pullRequest.headRepo ?? 'a deleted repository';
    return `this ${ctx.eventName || 'job'} job runs with the privileges of ${ctx.pullRequest.baseRepo || base} on a pull request from ${head} (a fork), whose files it may have checked out`;
  }
  const run = ctx.payload.workflow_run;
  if (ctx.eventName === 'workflow_run' && run) {
    const head: string | undefined = run.head_repository?.full_name;
    if (!head || head.toLowerCase() !== base.toLowerCase())
      return `this workflow_run job runs with the privileges of ${base} on a run of ${head ?? 'a deleted repository'} (a fork), whose files it may have checked out`;
  }
  if (ctx.eventName === 'issue_comment' && ctx.payload.issue?.pull_request)
    return `this issue_comment job runs with the privileges of ${base} on a pull request whose head may be a fork's`;
  return undefined;
}
