// The Octokit the action talks to GitHub with: @actions/github's getOctokit plus @octokit/plugin-retry
// (5xx and other transient answers, with growing waits) and @octokit/plugin-throttling (GitHub's primary
// and secondary rate limits, honouring retry-after, and writes spaced as GitHub asks). Without them one
// 502 or one secondary rate limit lost the PR comment or the check run.
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { type OctokitLike, SERVER_ERROR_RETRIES } from './github.js';

/** Retries after a rate limit; longer waits than this are not worth holding the job for. */
export const RATE_LIMIT_RETRIES = 2;
export const MAX_RATE_LIMIT_WAIT_S = 120;

export interface ClientLog {
  warning(message: string): void;
}

export function resilientOctokit(token: string, baseUrl: string | undefined, log: ClientLog): OctokitLike {
  const onLimit =
    (kind: string) =>
    (
      retryAfter: number,
      options: { method?: string; url?: string },
      _octokit: unknown,
      retryCount: number,
    ) => {
      const what = `${options.method ?? ''} ${options.url ?? ''}`.trim();
      if (retryCount < RATE_LIMIT_RETRIES && retryAfter <= MAX_RATE_LIMIT_WAIT_S) {
        log.warning(`GitHub ${kind} rate limit on ${what}: retrying in ${retryAfter} s`);
        return true;
      }
      log.warning(`GitHub ${kind} rate limit on ${what}: giving up (retry-after ${retryAfter} s)`);
      return false;
    };
  return getOctokit(
    token,
    {
      ...(baseUrl ? { baseUrl } : {}),
      retry: { retries: SERVER_ERROR_RETRIES },
      throttle: { onRateLimit: onLimit('primary'), onSecondaryRateLimit: onLimit('secondary') },
    },
    retry,
    throttling,
  ) as unknown as OctokitLike;
}
