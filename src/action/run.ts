// The action's body: inputs → engine (or existing run results) → baseline → compare → gate → report →
// outputs. main.ts only calls run(); everything here takes its collaborators from `deps` so that tests
// can drive it, while the bundled action uses the real ones.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import * as cache from '@actions/cache';
import * as core from '@actions/core';
import {
  type Baseline,
  type CacheApi,
  loadBaselineFile,
  readRunResultFile,
  restoreBaselineFromCache,
  saveBaselineToCache,
} from '../compare/baseline.js';
import type { Comparison } from '../compare/compare.js';
import {
  baseResultPath,
  buildFailureText,
  type PairedOptions,
  type PairedOutcome,
  runBaseAndHead,
} from '../engine/base-head.js';
import type { RunOptions } from '../engine/options.js';
import { runSafetyCases } from '../engine/run.js';
import { isUserError } from '../errors.js';
import {
  type ActionInputs,
  defaultResultPath,
  InputError,
  type InputName,
  parseInputs,
} from '../front/inputs.js';
import { jobSecretMask } from '../front/job-secrets.js';
import { evaluateGate } from '../gate/index.js';
import type { NamedResult } from '../gate/shards.js';
import type { ThresholdViolation } from '../gate/thresholds.js';
import type { Verdict } from '../gate/verdict.js';
import { checkOutputPath } from '../output-path.js';
import { sanitizeText } from '../report/escape.js';
import { type GitHubApi, octokitApi } from '../report/github.js';
import { resilientOctokit } from '../report/github-client.js';
import { withSecretMask } from '../report/mask.js';
import { expandResultFiles, ResultFilesError } from '../result/files.js';
import { verifyResultFile } from '../result/integrity.js';
import type { RunResult } from '../spec/run-result.js';
import {
  type ActionContext,
  baseOfEvent,
  isDefaultBranchPush,
  readActionContext,
  untrustedResultReason,
  workflowRunPullRequest,
} from './context.js';
import { engineModel } from './live.js';
import { maskedDeps } from './masked.js';
import { runPaired } from './paired.js';
import { publishReports } from './publish.js';

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
  /** baseline: base: base and head in one job (engine/base-head.ts). */
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

/** `run-result` entries, with errors naming the input. */
function expandRunResults(entries: string[], cwd: string): string[] {
  try {
    return expandResultFiles(entries, cwd);
  } catch (e) {
    if (e instanceof ResultFilesError) throw new InputError('run-result', e.message);
    throw e;
  }
}

const relativeName = (file: string, cwd: string) => {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') ? rel : file;
};

const fmt = (x: number) => (Math.round(x * 10_000) / 10_000).toString();

export async function run(partial: Partial<RunDeps> = {}): Promise<RunOutcome> {
  const unmasked: RunDeps = { ...defaultDeps(), ...partial };
  // Nothing secret is published: every renderer (in its escape path) and every outlet (log, summary,
  // GitHub API, files) masks the job's secrets, whatever a harness printed. See front/job-secrets.ts.
  const { env } = unmasked;
  const mask = jobSecretMask(env, {
    workspace: env.GITHUB_WORKSPACE ?? unmasked.cwd,
    near: [env.HOME, env.RUNNER_TEMP],
  });
  // Read now, before any harness runs: an uncontained one could empty a credential file after printing it.
  void mask.size;
  return withSecretMask(mask, () => runMasked(maskedDeps(unmasked, mask)));
}

async function runMasked(deps: RunDeps): Promise<RunOutcome> {
  const { core: io, env, cwd } = deps;
  const outcome: RunOutcome = {};
  const ctx = readActionContext(env, cwd);

  let inputs: ActionInputs;
  try {
    inputs = parseInputs((name: InputName) => io.getInput(name));
  } catch (e) {
    const msg =
      e instanceof InputError
        ? `${e.message}. Fix the step's \`with:\` block (action.yml lists every input).`
        : String(e);
    io.setFailed(msg);
    outcome.error = msg;
    return outcome;
  }
  // The token is for the comment and the check run only: mask it and take it out of the environment, so
  // nothing started from here (engine, runners, harnesses) can read it.
  if (inputs.pullRequest !== undefined) {
    const pr = workflowRunPullRequest(ctx, inputs.pullRequest);
    if (!pr || inputs.runResult.length === 0) {
      const msg =
        'input pull-request: only for a workflow_run job that reports on existing results (run-result); on pull_request events the pull request comes from the event. Remove it, or see the README for the fork-PR workflow_run route';
      io.setFailed(msg);
      outcome.error = msg;
      return outcome;
    }
    ctx.pullRequest = pr;
  }
  if (inputs.githubToken) io.setSecret(inputs.githubToken);
  for (const k of Object.keys(env)) if (/^INPUT_GITHUB[-_]TOKEN$/i.test(k)) delete env[k];
  // The provider key lives in this process and the trial endpoint only: masked in every log line and
  // out of the environment anything started from here could read.
  if (inputs.live?.key) io.setSecret(inputs.live.key);
  for (const k of Object.keys(env)) if (/^INPUT_MODEL[-_]KEY$/i.test(k)) delete env[k];

  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await main(deps, ctx, inputs, outcome, abort.signal);
  } catch (e) {
    const msg =
      isUserError(e) || e instanceof InputError
        ? (e as Error).message
        : `harness-risk-action failed: ${(e as Error)?.stack ?? e}`;
    io.setFailed(msg);
    outcome.error = msg;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return outcome;
}

async function main(
  deps: RunDeps,
  ctx: ActionContext,
  inputs: ActionInputs,
  outcome: RunOutcome,
  signal: AbortSignal,
) {
  const { core: io, cwd } = deps;
  const notices: string[] = [];

  // 1. A named baseline file is checked before minutes of trials are spent.
  let baseline: Baseline | undefined;
  if (inputs.baseline.kind === 'file') baseline = loadBaselineFile(inputs.baseline.path, cwd);

  // Every file this step writes is checked before the first trial, so nothing collected is lost to a bad path.
  if (inputs.resultPath) checkOutputPath(inputs.resultPath, 'result-path', cwd);
  if (inputs.sarif) checkOutputPath(inputs.sarif, 'sarif', cwd);
  if (inputs.junit) checkOutputPath(inputs.junit, 'junit', cwd);

  // 2. This run's result: run the engine, or report on existing results (merging shards).
  let heads: NamedResult[];
  let resultPath: string;
  let paired: PairedOutcome | undefined;
  const reportOnly = inputs.runResult.length > 0;
  const files = reportOnly ? expandRunResults(inputs.runResult, cwd) : [];
  if (reportOnly) {
    heads = files.map((f) => ({ result: readRunResultFile(f), name: relativeName(f, cwd) }));
    resultPath = files.length === 1 && !inputs.resultPath ? files[0]! : '';
    io.info(
      `Reporting on ${files.length} existing run result${files.length === 1 ? '' : 's'} (${heads.reduce((n, h) => n + h.result.trials.length, 0)} trials); no cases are run.`,
    );
  } else {
    resultPath = resolve(
      cwd,
      inputs.resultPath ?? defaultResultPath(inputs.adapter, inputs.config, inputs.shard),
    );
    const model = engineModel(inputs, ctx);
    if (model.notice) {
      io.warning(model.notice);
      notices.push(model.notice);
    }
    if (model.options.model === 'scripted' && inputs.seeds > 1) {
      io.notice(
        'seeds > 1 with the scripted model: the scripted model is deterministic, so extra seeds repeat the same trials',
      );
    }
    io.startGroup(`harness-risk: ${inputs.adapter} / ${inputs.config}`);
    try {
      const runOptions: RunOptions = {
        adapter: inputs.adapter,
        config: inputs.config,
        cases: inputs.cases,
        runner: inputs.runner,
        // On a hosted runner the action may install bubblewrap and allow user namespaces (sudo).
        host_setup: true,
        ...(inputs.image ? { image: inputs.image } : {}),
        concurrency: inputs.concurrency,
        max_consecutive_invalid: inputs.maxConsecutiveInvalid,
        ...(inputs.timeoutS ? { timeout_s: inputs.timeoutS } : {}),
        seeds: inputs.seeds,
        ...model.options,
        out: resultPath,
        keep_evidence: false,
        ...(inputs.shard ? { shard: inputs.shard } : {}),
        signal,
        source: {
          ...(ctx.owner ? { repository: `${ctx.owner}/${ctx.repo}` } : {}),
          ...(ctx.pullRequest?.headSha || ctx.mergeGroup?.headSha || ctx.sha
            ? { sha: ctx.pullRequest?.headSha || ctx.mergeGroup?.headSha || ctx.sha }
            : {}),
          ...(ctx.ref ? { ref: ctx.ref } : {}),
        },
        on_progress: (ev) => {
          // Case ids and notices are printed behind a prefix, on one line: nothing a case or a harness
          // says can start a line with `::` and become a workflow command.
          if (ev.kind === 'start')
            io.info(
              `  ${ev.trials} trials on ${sanitizeText(ev.adapter, 100)}/${sanitizeText(ev.config, 100)}`,
            );
          else if (ev.kind === 'trial')
            io.info(
              `  [${ev.done}/${ev.total}]${ev.tree ? ` ${ev.tree}` : ''} ${sanitizeText(ev.case_id, 120)}: ${!ev.valid ? `invalid (${sanitizeText(ev.reason ?? '', 200)})` : ev.a ? 'attack succeeded' : 'attack resisted'}`,
            );
          else io.info(`  note: ${sanitizeText(ev.message, 500)}`);
        },
      };
      if (inputs.baseline.kind === 'base') {
        const p = await runPaired(deps, ctx, inputs, runOptions, resultPath);
        heads = [{ result: p.head, name: relativeName(resultPath, cwd) }];
        paired = p;
        // Which baseline it is: a note of the baseline itself (or, without one, the gate's reason).
        baseline = p.baseline;
      } else {
        const result = await deps.engine(runOptions);
        heads = [{ result, name: relativeName(resultPath, cwd) }];
      }
    } finally {
      io.endGroup();
    }
  }
  const first = heads[0]!.result;

  // 3. The cached baseline of the base branch.
  if (inputs.baseline.kind === 'cache') {
    const base = baseOfEvent(ctx);
    const ref = base.ref || ctx.defaultBranch || ctx.branch;
    const sha = base.sha || 'latest';
    if (!ref) {
      notices.push('no base branch is known for this event, so there is no cached baseline to compare with');
    } else {
      const restored = await restoreBaselineFromCache(
        deps.cache,
        { adapter: first.adapter.name, config: first.adapter.config, ref, sha },
        cwd,
      );
      baseline = restored.baseline;
      notices.push(...restored.notices);
      if (restored.key && baseline) io.info(`Baseline restored from the Actions cache: ${restored.key}`);
    }
  } else if (inputs.baseline.kind === 'none') {
    notices.push('baseline: none, so only absolute numbers and thresholds are reported');
  }
  const baselineNotes = baseline
    ? []
    : paired
      ? paired.baselineNotes
      : inputs.baseline.kind === 'base' && reportOnly
        ? ['baseline: base, but no base-tree result (x.base.json) is among the run results']
        : inputs.baseline.kind === 'none'
          ? ['baseline: none']
          : inputs.baseline.kind === 'cache'
            ? ['no cached baseline of the base branch for this adapter and configuration']
            : [];

  // A fork's own run result (the workflow_run route): shown, never a pass.
  const untrusted = untrustedResultReason(ctx);
  // 4. Compare and gate: the engine's one gate, as `harness-risk compare` runs it.
  const { current, comparison, violations, verdict } = evaluateGate({
    heads,
    ...(baseline ? { baseline } : {}),
    baselineNotes,
    ...(paired?.builds.length
      ? { buildFailures: paired.builds.map((b) => ({ tree: b.tree, message: buildFailureText(b) })) }
      : {}),
    options: inputs.gate,
    scope: inputs.shard && !reportOnly ? 'shard' : 'merge',
    ...(reportOnly && untrusted ? { untrusted } : {}),
  });
  if (!resultPath) {
    // Several results (or a named result-path): the merged, re-summarised result is this run's file.
    resultPath = resolve(
      cwd,
      inputs.resultPath ?? defaultResultPath(current.adapter.name, current.adapter.config),
    );
    mkdirSync(dirname(resultPath), { recursive: true });
    writeFileSync(resultPath, `${JSON.stringify(current, null, 2)}\n`);
  }
  Object.assign(outcome, { comparison, violations, verdict, current, resultPath });

  // The result file is the engine's alone: it must still hold this run's result (see result/integrity.ts).
  if (!reportOnly) verifyResultFile(resultPath, first);

  // 5. Outputs first: whatever happens to the reports, later steps can read them.
  const o = current.summary.overall;
  const valid = o.valid > 0;
  io.setOutput('asr', valid ? fmt(o.asr) : '');
  io.setOutput('persistence', valid ? fmt(o.persistence) : '');
  io.setOutput('css', valid ? fmt(o.css) : '');
  io.setOutput('utility', valid ? fmt(o.utility) : '');
  io.setOutput('detection', valid ? fmt(o.detection) : '');
  io.setOutput('regressions', String(comparison.regressions.length));
  io.setOutput('regressed-phases', comparison.regressedPhases.join(','));
  io.setOutput('verdict', verdict.verdict);
  io.setOutput('result-path', resultPath);
  io.setOutput('base-result-path', paired?.base ? baseResultPath(resultPath) : '');

  // 6–7. Reports: comment, check run, job summary, SARIF and JUnit (publish.ts).
  await publishReports({
    deps,
    ctx,
    inputs,
    gate: { current, comparison, violations, verdict },
    notices,
    outcome,
  });

  // 8. The new baseline, on the default branch.
  const save = inputs.saveBaseline === 'true' || (inputs.saveBaseline === 'auto' && isDefaultBranchPush(ctx));
  if (save) {
    if (current.status !== 'complete') io.warning(`baseline not saved: this run is ${current.status}`);
    else if (inputs.shard && !reportOnly)
      io.notice(
        'baseline not saved from a single shard: merge the shards with run-result in a final job and save there',
      );
    else {
      if (!reportOnly) verifyResultFile(resultPath, first);
      const ref = ctx.branch ?? ctx.ref.replace(/^refs\/(heads|tags)\//, '');
      const r = await saveBaselineToCache(
        deps.cache,
        resultPath,
        {
          adapter: current.adapter.name,
          config: current.adapter.config,
          ref: ref || ctx.defaultBranch || 'unknown',
          sha: ctx.sha || 'unknown',
        },
        cwd,
      );
      if (r.saved) io.info(r.message);
      else io.notice(r.message);
    }
  }

  // Once more as the step ends: later steps upload or commit this file.
  if (!reportOnly) verifyResultFile(resultPath, first);

  // 9. The step's status follows fail-on.
  const line = (verdict.gating.length ? verdict.gating : verdict.reasons).join('; ');
  if (verdict.verdict === 'fail') io.setFailed(`harness-risk: ${line}`);
  else io.info(`harness-risk: ${verdict.reasons.length ? `not gating: ${line}` : 'pass'}`);
}
