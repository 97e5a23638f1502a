// The action's collaborators (@actions/core, the engine, the paired run, the Actions cache, the GitHub
// API) and what a run of it comes to: below run.ts and the modules it calls, so that tests can drive the
// action with fakes while the bundled action uses the real ones.
import * as cache from '@actions/cache';
import * as core from '@actions/core';
import { type PairedOptions, type PairedOutcome, runBaseAndHead } from '../baseline/base-head.js';
import type { CacheApi } from '../baseline/cache.js';
import type { Comparison } from '../compare/compare.js';
import type { RunOptions } from '../engine/options.js';
import { runSafetyCases } from '../engine/run.js';
import type { ThresholdViolation } from '../gate/thresholds.js';
import type { Verdict } from '../gate/verdict.js';
import { type GitHubApi, octokitApi } from '../report/github.js';
import { resilientOctokit } from '../report/github-client.js';
import type { RunResult } from '../spec/run-result.js';
import type { ActionContext } from './context.js';

/** The parts of @actions/core the action uses (a fake in tests). */
export interface CoreApi {
  getInput(name: string): string;
  setOutput(name: string, value: string): void;
  setFailed(message: string): void;
  setSecret(secret: string): void;
  info(message: string): void;
  debug(message: string): void;
  notice(message: string, props?: core.AnnotationProperties): void;
  warning(message: string, props?: core.AnnotationProperties): void;
  error(message: string, props?: core.AnnotationProperties): void;
  startGroup(name: string): void;
  endGroup(): void;
  /** Appends markdown to the job summary; false when there is no job summary file. */
  writeSummary(markdown: string): Promise<boolean>;
}

export interface RunDeps {
  core: CoreApi;
  env: NodeJS.ProcessEnv;
  cwd: string;
  engine: (options: RunOptions) => Promise<RunResult>;
  /** baseline: base: base and head in one job (baseline/base-head.ts). */
  paired: (options: PairedOptions) => Promise<PairedOutcome>;
  cache: CacheApi;
  github: (token: string, ctx: ActionContext) => GitHubApi;
}

export interface RunOutcome {
  verdict?: Verdict;
  comparison?: Comparison;
  violations?: ThresholdViolation[];
  current?: RunResult;
  resultPath?: string;
  comment?: 'created' | 'updated' | 'skipped' | 'failed';
  check?: 'created' | 'skipped' | 'failed';
  /** Set when the step failed before a verdict (bad input, engine error). */
  error?: string;
}

const realCore: CoreApi = {
  getInput: (n) => core.getInput(n),
  setOutput: (n, v) => core.setOutput(n, v),
  setFailed: (m) => core.setFailed(m),
  setSecret: (s) => core.setSecret(s),
  info: (m) => core.info(m),
  debug: (m) => core.debug(m),
  notice: (m, p) => core.notice(m, p),
  warning: (m, p) => core.warning(m, p),
  error: (m, p) => core.error(m, p),
  startGroup: (n) => core.startGroup(n),
  endGroup: () => core.endGroup(),
  async writeSummary(markdown) {
    if (!process.env.GITHUB_STEP_SUMMARY) return false;
    await core.summary.addRaw(markdown, true).write();
    return true;
  },
};

export function defaultDeps(): RunDeps {
  return {
    core: realCore,
    env: process.env,
    cwd: process.cwd(),
    engine: runSafetyCases,
    paired: runBaseAndHead,
    cache: {
      isFeatureAvailable: cache.isFeatureAvailable,
      restoreCache: cache.restoreCache,
      saveCache: cache.saveCache,
    },
    github: (token, ctx) =>
      octokitApi(resilientOctokit(token, ctx.apiUrl, { warning: (m) => core.warning(m) })),
  };
}
