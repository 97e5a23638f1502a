// The few GitHub REST calls the action makes, behind a small interface (tests give a fake, the action
// gives Octokit), plus one place that recognises "the token may not do this".

/** Retries of one request after a 5xx: @octokit/plugin-retry's count, set in github-client.ts. */
export const SERVER_ERROR_RETRIES = 3;
/** The retry plugin's wait before retry `n` (1 s, 4 s, 9 s), for callers that retry a call themselves. */
export const serverErrorWaitMs = (n: number): number => 1000 * n ** 2;

export interface IssueComment {
  id: number;
  body?: string | null;
}

export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
  raw_details?: string;
}

export interface CheckOutput {
  title: string;
  summary: string;
  text?: string;
  annotations?: CheckAnnotation[];
}

export type CheckConclusion = 'success' | 'failure' | 'neutral';

export interface Repo {
  owner: string;
  repo: string;
}

export interface GitHubApi {
  listIssueComments(p: Repo & { issue_number: number }): Promise<IssueComment[]>;
  createIssueComment(
    p: Repo & { issue_number: number; body: string },
  ): Promise<{ id: number; html_url?: string }>;
  updateIssueComment(
    p: Repo & { comment_id: number; body: string },
  ): Promise<{ id: number; html_url?: string }>;
  deleteIssueComment(p: Repo & { comment_id: number }): Promise<void>;
  createCheckRun(
    p: Repo & {
      name: string;
      head_sha: string;
      status: 'completed';
      conclusion: CheckConclusion;
      completed_at: string;
      details_url?: string;
      external_id?: string;
      output: CheckOutput;
    },
  ): Promise<{ id: number; html_url?: string | null }>;
  updateCheckRun(p: Repo & { check_run_id: number; output: CheckOutput }): Promise<{ id: number }>;
  /** The check runs named `check_name` on commit `ref` (to find one a failed POST may have made). */
  listCheckRunsForRef(
    p: Repo & { ref: string; check_name: string },
  ): Promise<{ id: number; external_id?: string | null; html_url?: string | null }[]>;
  /** The files a pull request changes, with their patches (for annotations on changed lines; optional). */
  listPullRequestFiles?(
    p: Repo & { pull_number: number },
  ): Promise<{ filename: string; status?: string; patch?: string }[]>;
}

/** GitHub lists at most 3,000 files of a pull request, 100 a page. */
export const PULL_FILES_MAX = 3000;

/** Minimal structural type of the Octokit that @actions/github's getOctokit returns. */
export interface OctokitLike {
  request: (route: any, params?: any) => Promise<{ data: any }>;
  paginate: { iterator: (route: any, params?: any) => AsyncIterable<{ data: any }> };
}

export function octokitApi(octokit: OctokitLike): GitHubApi {
  return {
    async listIssueComments({ owner, repo, issue_number }) {
      const out: IssueComment[] = [];
      for await (const page of octokit.paginate.iterator(
        'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
        {
          owner,
          repo,
          issue_number,
          per_page: 100,
        },
      )) {
        for (const c of page.data as IssueComment[]) out.push({ id: c.id, body: c.body });
      }
      return out;
    },
    async createIssueComment(p) {
      return (await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', p)).data;
    },
    async updateIssueComment(p) {
      return (await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', p)).data;
    },
    async deleteIssueComment(p) {
      await octokit.request('DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}', p);
    },
    async createCheckRun(p) {
      // Not retried by the client: GitHub may answer 5xx to a POST that created the run, and a blind retry
      // makes a second one. publishCheckRun looks for it before posting again.
      return (
        await octokit.request('POST /repos/{owner}/{repo}/check-runs', { ...p, request: { retries: 0 } })
      ).data;
    },
    async listCheckRunsForRef({ owner, repo, ref, check_name }) {
      const r = await octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
        owner,
        repo,
        ref,
        check_name,
        filter: 'all',
        per_page: 100,
      });
      return (r.data.check_runs ?? []) as {
        id: number;
        external_id?: string | null;
        html_url?: string | null;
      }[];
    },
    async listPullRequestFiles({ owner, repo, pull_number }) {
      const out: { filename: string; status?: string; patch?: string }[] = [];
      for await (const page of octokit.paginate.iterator(
        'GET /repos/{owner}/{repo}/pulls/{pull_number}/files',
        { owner, repo, pull_number, per_page: 100 },
      )) {
        for (const f of page.data as { filename: string; status?: string; patch?: string }[])
          out.push({
            filename: f.filename,
            ...(f.status ? { status: f.status } : {}),
            ...(f.patch ? { patch: f.patch } : {}),
          });
        if (out.length >= PULL_FILES_MAX) break;
      }
      return out;
    },
    async updateCheckRun(p) {
      return (await octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', p)).data;
    },
  };
}

/** HTTP status of an Octokit RequestError (or anything with a numeric `status`). */
export function httpStatus(e: unknown): number | undefined {
  const s = (e as { status?: unknown } | null)?.status;
  return typeof s === 'number' ? s : undefined;
}

/**
 * A request the token is not allowed to make: 401/403, and 404 on a repository the token cannot see.
 * (GitHub answers 403 "Resource not accessible by integration" to a read-only GITHUB_TOKEN, e.g. on a
 * pull request from a fork.)
 */
export function isPermissionError(e: unknown): boolean {
  const s = httpStatus(e);
  return s === 401 || s === 403 || s === 404;
}

export function errorSummary(e: unknown): string {
  const s = httpStatus(e);
  const msg = (e as Error)?.message ?? String(e);
  return s ? `HTTP ${s}: ${msg.split('\n')[0]}` : msg.split('\n')[0]!;
}
