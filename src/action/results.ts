// This run's result(s): the engine run on this checkout (with the base tree beside it for baseline:
// base), or existing run results to report on (report-only: `run-result`, merged when several).
import { relative, resolve } from 'node:path';
import { ignoredProjectNpmrc } from '../adapters/npmrc.js';
import type { PairedOutcome } from '../baseline/base-head.js';
import { readRunResultFile } from '../compare/baseline.js';
import { type ProgressEvent, type RunOptions, settingsOf } from '../engine/options.js';
import { npmrcIgnoredNotice } from '../engine/run/install.js';
import { type ActionInputs, defaultResultPath, InputError } from '../front/inputs.js';
import type { NamedResult } from '../gate/shards.js';
import { sanitizeText } from '../report/escape.js';
import { expandResultFiles, ResultFilesError } from '../result/files.js';
import { type ActionContext, forkTreeReason } from './context.js';
import type { CoreApi, RunDeps } from './deps.js';
import { engineModel } from './live.js';
import { runPaired } from './paired.js';

export interface Results {
  heads: NamedResult[];
  /** The engine's result file; '' when several results are reported on (the merged file is written later). */
  resultPath: string;
  /** The results are existing files: no case was run here. */
  reportOnly: boolean;
  /** baseline: base: the paired run. */
  paired?: PairedOutcome;
  /** For the report: why the run does not use the model it asked for. */
  notices: string[];
  /** The engine's options of this run (absent in report-only mode): what a bisect runs again. */
  run?: RunOptions;
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

export const relativeName = (file: string, cwd: string) => {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') ? rel : file;
};

export async function produceResults(
  deps: RunDeps,
  ctx: ActionContext,
  inputs: ActionInputs,
  signal: AbortSignal,
): Promise<Results> {
  return inputs.runResult.length > 0 ? existingResults(deps, inputs) : runCases(deps, ctx, inputs, signal);
}

function existingResults(deps: RunDeps, inputs: ActionInputs): Results {
  const { core: io, cwd } = deps;
  const files = expandRunResults(inputs.runResult, cwd);
  const heads = files.map((f) => ({ result: readRunResultFile(f), name: relativeName(f, cwd) }));
  io.info(
    `Reporting on ${files.length} existing run result${files.length === 1 ? '' : 's'} (${heads.reduce((n, h) => n + h.result.trials.length, 0)} trials); no cases are run.`,
  );
  return {
    heads,
    resultPath: files.length === 1 && !inputs.resultPath ? files[0]! : '',
    reportOnly: true,
    notices: [],
  };
}

async function runCases(
  deps: RunDeps,
  ctx: ActionContext,
  inputs: ActionInputs,
  signal: AbortSignal,
): Promise<Results> {
  const { core: io, cwd } = deps;
  const notices: string[] = [];
  const resultPath = resolve(
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
  const run = runOptionsOf(inputs, ctx, model.options, resultPath, signal, progressLog(io), cwd);
  const ignored = run.npmrc && !run.npmrc.project ? ignoredProjectNpmrc(cwd, run.npmrc) : undefined;
  if (ignored && run.npmrc && !run.npmrc.project) {
    const notice = sanitizeText(npmrcIgnoredNotice(relativeName(ignored, cwd), run.npmrc.reason), 800);
    io.warning(notice);
    notices.push(notice);
  }
  io.startGroup(`harness-risk: ${inputs.adapter} / ${inputs.config}`);
  try {
    const name = relativeName(resultPath, cwd);
    if (inputs.baseline.kind === 'base') {
      const paired = await runPaired(deps, ctx, inputs, run);
      return { heads: [{ result: paired.head, name }], resultPath, reportOnly: false, paired, notices, run };
    }
    const result = await deps.engine(run);
    return { heads: [{ result, name }], resultPath, reportOnly: false, notices, run };
  } finally {
    io.endGroup();
  }
}

/** The engine's options: the run as parsed, and what the action adds (where, which commit, progress). */
function runOptionsOf(
  inputs: ActionInputs,
  ctx: ActionContext,
  model: Pick<RunOptions, 'model' | 'live' | 'replay'>,
  out: string,
  signal: AbortSignal,
  onProgress: (ev: ProgressEvent) => void,
  cwd: string,
): RunOptions {
  const sha = ctx.pullRequest?.headSha || ctx.mergeGroup?.headSha || ctx.sha;
  const fork = forkTreeReason(ctx);
  return {
    ...settingsOf(inputs),
    // A fork's tree never picks the registry of the harness install (docs/forks.md).
    ...(fork ? { npmrc: { project: false, reason: fork } } : {}),
    // On a hosted runner the action may install bubblewrap and allow user namespaces (sudo).
    host_setup: true,
    ...model,
    out,
    // The checkout: its .npmrc is the one the npmrc scope admits or leaves out (and {{repo}}).
    repo_dir: cwd,
    keep_evidence: false,
    signal,
    source: {
      ...(ctx.owner ? { repository: `${ctx.owner}/${ctx.repo}` } : {}),
      ...(sha ? { sha } : {}),
      ...(ctx.ref ? { ref: ctx.ref } : {}),
    },
    on_progress: onProgress,
  };
}

/**
 * Progress in the log. Case ids and notices are printed behind a prefix, on one line: nothing a case or
 * a harness says can start a line with `::` and become a workflow command.
 */
function progressLog(io: CoreApi): (ev: ProgressEvent) => void {
  return (ev) => {
    if (ev.kind === 'start')
      io.info(`  ${ev.trials} trials on ${sanitizeText(ev.adapter, 100)}/${sanitizeText(ev.config, 100)}`);
    else if (ev.kind === 'trial')
      io.info(
        `  [${ev.done}/${ev.total}]${ev.tree ? ` ${ev.tree}` : ''} ${sanitizeText(ev.case_id, 120)}${ev.strategy ? ` [${ev.strategy}]` : ''}: ${!ev.valid ? `invalid (${sanitizeText(ev.reason ?? '', 200)})` : ev.a ? 'attack succeeded' : 'attack resisted'}`,
      );
    else io.info(`  note: ${sanitizeText(ev.message, 500)}`);
  };
}
