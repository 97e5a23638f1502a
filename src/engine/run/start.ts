// Stage "start": what a planned run makes before its first trial: the harness installed, what each
// tree's harness may read and may not see, the runner started, the work root, one result writer per
// target (its header attests what contains the trials). A start that fails tears down what it made.
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ensureInstalled } from '../../adapters/install.js';
import { displayPath } from '../../cases/load.js';
import { taxaOf } from '../../cases/taxonomy.js';
import { actionRoot, builtinCasesDir, defaultCacheDir } from '../../paths.js';
import { engineSigner } from '../../result/attestation.js';
import { WrittenFiles } from '../../result/integrity.js';
import type { ResultHeader } from '../../result/journal.js';
import { ResultWriter } from '../../result/writer.js';
import type { Runner } from '../../runner/types.js';
import { RESULT_SCHEMA_VERSION } from '../../spec/run-result.js';
import { VERSION } from '../../version.js';
import { newRunKey } from '../../world/canaries.js';
import { hostGhBinary } from '../../world/github-world.js';
import { renderTemplate } from '../../world/template.js';
import { harnessInfo } from '../attest.js';
import { benchMark } from '../bench-marks.js';
import { type HarnessView, harnessView } from '../harness-view.js';
import type { RunOptions } from '../options.js';
import { runnerEntry } from '../runners.js';
import { jobTrialId } from '../trial.js';
import { createWorkRoot, sweepWorkRoots } from '../work-root.js';
import type { RunPlan, RunStarted, RunTarget } from './types.js';

export async function startRun(opts: RunOptions, targets: RunTarget[], plan: RunPlan): Promise<RunStarted> {
  const { adapter } = plan;
  const cacheDir = opts.cache_dir ?? defaultCacheDir();
  // A harness from npm is installed (pinned) into the cache on first use; later runs reuse it.
  if (adapter.adapter.install) {
    await ensureInstalled(adapter.adapter, cacheDir, {
      adapterDir: adapter.dir,
      ...(opts.repo_dir ? { projectDir: opts.repo_dir } : {}),
      log: (line) => opts.on_progress?.({ kind: 'notice', message: line }),
    });
  }
  const runKey = newRunKey();
  const runId = runKey.slice(0, 12);
  const evidenceDirOf = (out: string) =>
    opts.keep_evidence ? join(dirname(out), `${basename(out, '.json')}.evidence`) : undefined;
  // Made before the runner starts, not at the first kept trial: a folder that appears later would not be
  // hidden from the trials already running, nor from the containers started ahead for them.
  for (const t of targets) {
    await mkdir(dirname(resolve(t.out)), { recursive: true });
    const d = evidenceDirOf(t.out);
    if (d) await mkdir(d, { recursive: true });
  }
  const view = viewOf(targets, plan, cacheDir, evidenceDirOf);
  // Containers started ahead get exactly what each tree's trials get (one warm set per tree).
  const prewarm = view.readOnly.map((readOnly) => ({ readOnly, hide: view.hide }));
  const runner = await startRunner(
    await runnerEntry(opts.runner).create(opts, {
      runId,
      prewarm,
      ...(plan.hostPlan ? { hostPlan: plan.hostPlan } : {}),
    }),
  );
  // A SIGKILLed engine leaves its work root behind: the next run removes it.
  await sweepWorkRoots();
  const workRoot = await createWorkRoot(runId);
  // Every file the engine writes (result, evidence), with its digest, to check before it is trusted.
  const written = new WrittenFiles();
  const writers = resultWriters(opts, targets, plan, { runner, view, cacheDir, written });
  const kept = new Set(plan.carried.map((t) => t.id));
  const todo = plan.jobs.filter((j) => !kept.has(jobTrialId(j)));
  return {
    cacheDir,
    runKey,
    runner,
    workRoot,
    written,
    writers,
    readOnlyOf: view.readOnly,
    hidden: view.hide,
    evidenceDirOf,
    todo,
  };
}

/**
 * What a harness may read but never write (the action's reference harness and svc, the adapter, the
 * install cache, the tree under test) and what it may not even see there: credentials, its case, the
 * engine's files, every tree's result and evidence (a base trial never sees the head's result).
 */
function viewOf(
  targets: RunTarget[],
  plan: RunPlan,
  cacheDir: string,
  evidenceDirOf: (out: string) => string | undefined,
): HarnessView {
  const { adapter } = plan;
  return harnessView({
    actionRoot: actionRoot(),
    adapterDir: adapter.dir,
    cacheDir,
    repoDirs: targets.map((t) => t.repoDir),
    caseFiles: plan.cases.map((lc) => lc.file),
    libraryDir: builtinCasesDir(),
    engineOutputs: targets.flatMap((t) =>
      hiddenPaths(t.out, evidenceDirOf(t.out), [
        join(actionRoot(), 'dist'),
        adapter.dir,
        cacheDir,
        t.repoDir,
      ]),
    ),
    expose: adapter.adapter.expose_credentials,
    // gh for the cases with a GitHub world: a runner that does not show /usr (docker) runs it from here.
    hostTools: plan.cases.some((lc) => lc.case.world.services.github)
      ? [hostGhBinary()].filter((p): p is string => !!p)
      : [],
  });
}

/**
 * The result's folder when it holds nothing a harness needs (`runs/`), and the kept evidence. A result
 * beside the repository's own files stays visible, read-only: the file alone cannot be hidden, since
 * the writer replaces it (rename) while sandboxes start, and a bind over it would race with that.
 */
function hiddenPaths(out: string, evidenceDir: string | undefined, readOnly: string[]): string[] {
  const dir = dirname(resolve(out));
  const holdsNeeded = readOnly.some((r) => r === dir || r.startsWith(`${dir}/`));
  return [...(holdsNeeded ? [] : [dir]), ...(evidenceDir ? [resolve(evidenceDir)] : [])];
}

/**
 * Before the header is written: the header records what contains the trials. A start that fails
 * half-way (a daemon that answered, then an image that is missing) still tears down what it made.
 */
async function startRunner(runner: Runner): Promise<Runner> {
  try {
    await runner.start();
  } catch (e) {
    await runner.stop().catch(() => {});
    throw e;
  }
  benchMark('runner_started');
  return runner;
}

/** One result writer per target; its header says what was run, on what, contained by what. */
function resultWriters(
  opts: RunOptions,
  targets: RunTarget[],
  plan: RunPlan,
  made: { runner: Runner; view: HarnessView; cacheDir: string; written: WrittenFiles },
): ResultWriter[] {
  const { runner, view, cacheDir } = made;
  const { adapter, identity } = plan;
  // What each tree measures, attested in its result (read from files; nothing of the harness is run).
  const harnessOf = (repoDir: string) =>
    harnessInfo(adapter, cacheDir, (t) =>
      renderTemplate(t, {
        repo: repoDir,
        action_root: actionRoot(),
        adapter_dir: adapter.dir,
        cache: cacheDir,
        config: opts.config,
      }),
    );
  // Docker: the image id is known once the daemon has been asked (in start()).
  const image = runner.attest?.().image;
  const caseInfos = plan.cases.map((lc) => ({
    id: lc.case.id,
    revision: lc.revision,
    title: lc.case.title,
    phase: lc.case.phase,
    entry_point: lc.case.entry_point,
    effect: lc.case.effect,
    severity: lc.case.severity,
    file: displayPath(lc.file),
    line: lc.line,
    artifact: lc.case.inject.artifact,
    taxonomy: taxaOf(lc.case, lc.file),
  }));
  // The engine attests what contained the trials (the file alone is only a claim): made once, at finish.
  let sign: ReturnType<typeof engineSigner> | undefined;
  const signer = () =>
    (sign ??= engineSigner(runner.info?.().containment === 'uncontained', (message) =>
      opts.on_progress?.({ kind: 'notice', message }),
    ));
  return targets.map((t) => {
    const harness = harnessOf(t.repoDir);
    const header: ResultHeader = {
      schema_version: RESULT_SCHEMA_VERSION,
      tool: { name: 'harness-risk-action', version: VERSION },
      started_at: new Date().toISOString(),
      adapter: identity.adapter,
      ...(harness ? { harness } : {}),
      runner: runner.name,
      containment: runner.info?.() ?? {
        name: runner.name,
        containment: 'container',
        mechanism: 'docker: one disposable container per trial',
      },
      ...(image ? { image } : {}),
      view: { credentials_hidden: view.credentials, credentials_exposed: view.exposed },
      selection: { ...identity.selection!, ...(t.subset ? { subset: true } : {}) },
      model: identity.model,
      source: t.source ?? {},
      cases: caseInfos,
    };
    // A subset target lists only the cases it ran (the header names every candidate).
    return new ResultWriter(t.out, header, made.written, {
      carried: plan.carried,
      sign: (doc) => signer()(doc),
      ...(t.only || t.skip ? { onlyCasesRun: true } : {}),
    });
  });
}
