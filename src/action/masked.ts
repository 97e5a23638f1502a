// The action's outlets, masked: everything it logs (workflow commands), writes to the job summary, sends
// to the GitHub API (comment, check run, annotations) or writes as SARIF/JUnit passes the job's secret
// mask once more. The renderers already mask in their escape path (report/mask.ts); this catches any
// string that reached an outlet without it. Finished output is escaped, so the secrets' escaped forms
// are masked too.
import type { GitHubApi } from '../report/github.js';
import type { SecretMask } from '../report/mask.js';
import type { CoreApi, RunDeps } from './deps.js';

export function maskedCore(io: CoreApi, mask: SecretMask): CoreApi {
  const m = (s: string) => mask.text(s);
  return {
    ...io,
    setOutput: (n, v) => io.setOutput(n, m(v)),
    setFailed: (s) => io.setFailed(m(s)),
    info: (s) => io.info(m(s)),
    debug: (s) => io.debug(m(s)),
    notice: (s, p) => io.notice(m(s), p && mask.deep(p)),
    warning: (s, p) => io.warning(m(s), p && mask.deep(p)),
    error: (s, p) => io.error(m(s), p && mask.deep(p)),
    startGroup: (s) => io.startGroup(m(s)),
    writeSummary: (md) => io.writeSummary(m(md)),
  };
}

/** Every payload the action sends to GitHub, masked (comment bodies, check-run output, annotations). */
export function maskedGitHub(api: GitHubApi, mask: SecretMask): GitHubApi {
  return {
    listIssueComments: (p) => api.listIssueComments(p),
    createIssueComment: (p) => api.createIssueComment(mask.deep(p)),
    updateIssueComment: (p) => api.updateIssueComment(mask.deep(p)),
    deleteIssueComment: (p) => api.deleteIssueComment(p),
    createCheckRun: (p) => api.createCheckRun(mask.deep(p)),
    updateCheckRun: (p) => api.updateCheckRun(mask.deep(p)),
    listCheckRunsForRef: (p) => api.listCheckRunsForRef(p),
    ...(api.listPullRequestFiles
      ? {
          listPullRequestFiles: (p: Parameters<NonNullable<GitHubApi['listPullRequestFiles']>>[0]) =>
            api.listPullRequestFiles!(p),
        }
      : {}),
  };
}

/** The action's collaborators with every outlet masked. */
export function maskedDeps(deps: RunDeps, mask: SecretMask): RunDeps {
  return {
    ...deps,
    core: maskedCore(deps.core, mask),
    github: (token, ctx) => maskedGitHub(deps.github(token, ctx), mask),
  };
}
