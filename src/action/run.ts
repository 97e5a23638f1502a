// The action's body: inputs → results (the engine, or existing run results) → baseline → gate → outputs
// → reports → the new baseline saved. main.ts only calls run(); everything here takes its collaborators
// from `deps` (deps.ts) so that tests can drive it, while the bundled action uses the real ones.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { baseResultPath } from '../baseline/base-head.js';
import { cacheEntry, saveBaselineToCache } from '../baseline/cache.js';
import {
  applyReuseRule,
  gateInput,
  loadEarly,
  type ResolvedBaseline,
  resolveBaseline,
} from '../baseline/resolve.js';
import type { Baseline } from '../compare/baseline.js';
import { isUserError } from '../errors.js';
import {
  type ActionInputs,
  defaultResultPath,
  InputError,
  type InputName,
  parseInputs,
} from '../front/inputs.js';
import { jobSecretMask } from '../front/job-secrets.js';
import { evaluateGate, type GateOutcome } from '../gate/index.js';
import { checkOutputPath } from '../output-path.js';
import { withSecretMask } from '../report/mask.js';
import { verifyResultFile } from '../result/integrity.js';
import {
  type ActionContext,
  baseOfEvent,
  isDefaultBranchPush,
  readActionContext,
  untrustedResultReason,
  workflowRunPullRequest,
} from './context.js';
import { type CoreApi, defaultDeps, type RunDeps, type RunOutcome } from './deps.js';
import { bisectBump, bumpOfRun } from './harness-bump.js';
import { maskedDeps } from './masked.js';
import { publishReports } from './publish.js';
import { produceResults, type Results } from './results.js';

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
  const file = checkBeforeTrials(inputs, cwd);
  const results = await produceResults(deps, ctx, inputs, signal);
  const bump = await bumpOfRun(deps, ctx, inputs, results);
  const now = results.heads[0]?.result.harness;
  const resolved = applyReuseRule(await baselineOf(deps, ctx, inputs, results, file), {
    // A paired run measured its own base tree: nothing stored is reused.
    kind: results.paired ? 'base' : inputs.baseline.kind,
    ...(now ? { now } : {}),
    ...(bump ? { bump: bump.bump } : {}),
  });
  const g = judge(ctx, inputs, results, resolved);
  const harness = bump ? await bisectBump(deps, inputs, results, g, bump) : undefined;
  const resultPath = resultFileOf(cwd, inputs, results, g);
  Object.assign(outcome, { ...g, resultPath });
  // The result file is the engine's alone: it must still hold this run's result (see result/integrity.ts).
  const verify = () => results.reportOnly || verifyResultFile(resultPath, results.heads[0]!.result);
  verify();
  // Outputs first: whatever happens to the reports, later steps can read them.
  setOutputs(io, g, resultPath, !!results.paired?.base);
  io.setOutput('harness-bump', harness ? `${harness.package} ${harness.from} → ${harness.to}` : '');
  io.setOutput('first-bad-version', harness?.bisect?.firstBad ?? '');
  await publishReports({
    deps,
    ctx,
    inputs,
    gate: g,
    ...(harness ? { harness } : {}),
    notices: [...results.notices, ...resolved.notices],
    outcome,
  });
  await saveBaseline(deps, ctx, inputs, g, resultPath, results.reportOnly, verify);
  // Once more as the step ends: later steps upload or commit this file.
  verify();
  finish(io, g);
}

/**
 * Before the first trial: a named baseline file is read, and every file this step writes is checked, so
 * no minutes of trials are spent on a bad path and nothing collected is lost to one.
 */
function checkBeforeTrials(inputs: ActionInputs, cwd: string): Baseline | undefined {
  const file = loadEarly(inputs.baseline, cwd);
  if (inputs.resultPath) checkOutputPath(inputs.resultPath, 'result-path', cwd);
  if (inputs.sarif) checkOutputPath(inputs.sarif, 'sarif', cwd);
  if (inputs.junit) checkOutputPath(inputs.junit, 'junit', cwd);
  return file;
}

/** The baseline of this run; the cache's is the base branch's latest result for this adapter and configuration. */
async function baselineOf(
  deps: RunDeps,
  ctx: ActionContext,
  inputs: ActionInputs,
  results: Results,
  file: Baseline | undefined,
): Promise<ResolvedBaseline> {
  const first = results.heads[0]!.result;
  const base = baseOfEvent(ctx);
  const resolved = await resolveBaseline(inputs.baseline, {
    reportOnly: results.reportOnly,
    cwd: deps.cwd,
    ...(file ? { file } : {}),
    ...(results.paired ? { paired: results.paired } : {}),
    cache: {
      api: deps.cache,
      cwd: deps.cwd,
      adapter: first.adapter.name,
      config: first.adapter.config,
      branch: base.ref || ctx.defaultBranch || ctx.branch,
      ...(base.sha ? { sha: base.sha } : {}),
    },
  });
  if (resolved.restoredKey)
    deps.core.info(`Baseline restored from the Actions cache: ${resolved.restoredKey}`);
  return resolved;
}

/** The engine's one gate, as `harness-risk compare` runs it. A fork's own run result (workflow_run): shown, never a pass. */
function judge(
  ctx: ActionContext,
  inputs: ActionInputs,
  results: Results,
  resolved: ResolvedBaseline,
): GateOutcome {
  const untrusted = results.reportOnly ? untrustedResultReason(ctx) : undefined;
  return evaluateGate(
    gateInput({
      heads: results.heads,
      resolved,
      options: inputs.gate,
      scope: inputs.shard && !results.reportOnly ? 'shard' : 'merge',
      ...(untrusted ? { untrusted } : {}),
    }),
  );
}

/** This run's result file: the engine's, or (several results, or a named result-path) the merged one, written now. */
function resultFileOf(cwd: string, inputs: ActionInputs, results: Results, g: GateOutcome): string {
  if (results.resultPath) return results.resultPath;
  const { current } = g;
  const path = resolve(
    cwd,
    inputs.resultPath ?? defaultResultPath(current.adapter.name, current.adapter.config),
  );
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(current, null, 2)}\n`);
  return path;
}

function setOutputs(io: CoreApi, g: GateOutcome, resultPath: string, baseRan: boolean) {
  const { current, comparison, verdict } = g;
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
  io.setOutput('base-result-path', baseRan ? baseResultPath(resultPath) : '');
}

/** The new baseline, on the default branch (save-baseline: auto) or when asked (true). */
async function saveBaseline(
  deps: RunDeps,
  ctx: ActionContext,
  inputs: ActionInputs,
  { current }: GateOutcome,
  resultPath: string,
  reportOnly: boolean,
  verify: () => void,
) {
  const { core: io } = deps;
  const save = inputs.saveBaseline === 'true' || (inputs.saveBaseline === 'auto' && isDefaultBranchPush(ctx));
  if (!save) return;
  if (current.status !== 'complete') return io.warning(`baseline not saved: this run is ${current.status}`);
  if (inputs.shard && !reportOnly)
    return io.notice(
      'baseline not saved from a single shard: merge the shards with run-result in a final job and save there',
    );
  verify();
  const branch = ctx.branch ?? ctx.ref.replace(/^refs\/(heads|tags)\//, '');
  const r = await saveBaselineToCache(
    deps.cache,
    resultPath,
    cacheEntry(current.adapter.name, current.adapter.config, branch || ctx.defaultBranch, ctx.sha),
    deps.cwd,
  );
  if (r.saved) io.info(r.message);
  else io.notice(r.message);
}

/** The step's status follows fail-on. */
function finish(io: CoreApi, { verdict }: GateOutcome) {
  const line = (verdict.gating.length ? verdict.gating : verdict.reasons).join('; ');
  if (verdict.verdict === 'fail') io.setFailed(`harness-risk: ${line}`);
  else io.info(`harness-risk: ${verdict.reasons.length ? `not gating: ${line}` : 'pass'}`);
}
