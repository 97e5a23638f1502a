// The action's outlets, masked: everything it logs (workflow commands), writes to the job summary, sends
// to the GitHub API (comment, check run, annotations) or writes as SARIF/JUnit passes the job's secret
// mask once more. The renderers already mask in their escape path (report/mask.ts); this catches any
// string that reached an outlet without it. Finished output is escaped, so the secrets' escaped forms
// are masked too.
import { inertMarkdown } from '../report/escape.js';
import type { GitHubApi } from '../report/github.js';
import { xmlEscape } from '../report/junit.js';
import { NO_MASK, SecretMask, withSecretMask } from '../report/mask.js';
import { secretEntry } from '../report/secret-rule.js';
import { credentialFileValues } from '../world/credential-values.js';
import type { CoreApi, RunDeps } from './deps.js';

/** The mask for finished output: each secret raw, markdown-escaped, XML-escaped and JSON-escaped. */
export function outputMask(mask: SecretMask): SecretMask {
  // xmlEscape masks too; under NO_MASK it shows what the secret itself becomes.
  const xml = (s: string) => withSecretMask(NO_MASK, () => xmlEscape(s, Number.MAX_SAFE_INTEGER));
  return mask.withForms(inertMarkdown, xml, (s) => JSON.stringify(s).slice(1, -1));
}

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

export interface JobSecretSources {
  /** The repository checkout whose credential files (credential-paths.ts) hold secrets: GITHUB_WORKSPACE. */
  workspace?: string;
  /** Folders whose top holds credential files setup and login actions write (HOME, RUNNER_TEMP). */
  near?: (string | undefined)[];
}

/** The secret values of the credential files of `sources` (certain ones, and entries the rule judges). */
export function credentialSecrets(sources: JobSecretSources): string[] {
  return credentialFileValues(sources.workspace, sources.near ?? []).flatMap((v) =>
    'certain' in v || secretEntry(v.key, v.value) ? [v.value] : [],
  );
}

/**
 * The job's secret mask: every secret of the environment the action runs in (before anything is removed
 * from it; report/secret-rule.ts), and the values of the credential files in the workspace and near the
 * top of HOME and RUNNER_TEMP (read when the mask is first used), in every form (report/mask-forms.ts)
 * and as the renderers escape them.
 */
export function jobSecretMask(
  env: NodeJS.ProcessEnv,
  sources: JobSecretSources = { workspace: env.GITHUB_WORKSPACE, near: [env.HOME, env.RUNNER_TEMP] },
): SecretMask {
  return outputMask(SecretMask.fromEnv(env).with(() => credentialSecrets(sources)));
}

/** The action's collaborators with every outlet masked. */
export function maskedDeps(deps: RunDeps, mask: SecretMask): RunDeps {
  return {
    ...deps,
    core: maskedCore(deps.core, mask),
    github: (token, ctx) => maskedGitHub(deps.github(token, ctx), mask),
  };
}
