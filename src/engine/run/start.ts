// Stage "start": what a planned run makes before its first trial: the harness installed, what each
// tree's harness may read and may not see, the runner started, the work root, one result writer per
// target (its header attests what contains the trials). A start that fails tears down what it made.
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { displayPath } from '../../cases/load.js';
import { taxaOf } from '../../cases/taxonomy.js';
import { actionRoot, builtinCasesDir, defaultCacheDir } from '../../paths.js';
import { engineSigner } from '../../result/attestation.js';
import { WrittenFiles } from '../../result/integrity.js';
import type { ResultHeader } from '../../result/journal.js';
import { ResultWriter } from '../../result/writer.js';
import type { Runner } from '../../runner/types.js';
import { type HarnessInstall, RESULT_SCHEMA_VERSION } from '../../spec/run-result.js';
import { VERSION } from '../../version.js';
import { newRunKey } from '../../world/canaries.js';
import { hostGhBinary } from '../../world/github-world.js';
import { renderTemplate } from '../../world/template.js';
import { harnessInfo } from '../attest.js';
import { benchMark } from '../bench-marks.js';
import { thisEngineBuild } from '../engine-build.js';
import { type HarnessView, harnessView } from '../harness-view.js';
import type { RunOptions } from '../options.js';
import { runnerEntry } from '../runners.js';
import { versionVar } from '../trial/render.js';
import { jobTrialId } from '../trial.js';
import { createWorkRoot, sweepWorkRoots } from '../work-root.js';
import { installHarness } from './install.js';
import type { RunPlan, RunStarted, RunTarget } from './types.js';

export async function startRun(opts: RunOptions, targets: RunTarget[], plan: RunPlan): Promise<RunStarted> {
  const cacheDir = opts.cache_dir ?? defaultCacheDir();
  const { skips: targetSkips, installs } = await installHarnesses(opts, plan, cacheDir);
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
  const writers = resultWriters(opts, targets, plan, { runner, view, cacheDir, written, installs });
  const kept = new Set(plan.carried.map((t) => t.id));
  const todo = plan.jobs.filter((j) => !kept.has(jobTrialId(j)));
  return {
    cacheDir,
    runKey,
    runner,
    workRoot,
    written,
    writers,
    targetSkips,
    readOnlyOf: view.readOnly,
    hidden: view.hide,
    evidenceDirOf,
    todo,
  };
}

/**
 * A harness from npm is installed (pinned) into the cache on first use; later runs reuse it. A bump's
 * trees may pin another version than the adapter: one that does not install leaves that tree's trials
 * invalid, naming why (the run's own pin failing stops the run, as before). Per target: why it is skipped.
 */
async function installHarnesses(
  opts: RunOptions,
  plan: RunPlan,
  cacheDir: string,
): Promise<{ skips: (string | undefined)[]; installs: Map<RunPlan['adapter'], HarnessInstall> }> {
  const failed = new Map<RunPlan['adapter'], string>();
  const installs = new Map<RunPlan['adapter'], HarnessInstall>();
  for (const adapter of new Set(plan.targetAdapters)) {
    if (!adapter.adapter.install) continue;
    try {
      installs.set(adapter, await installHarness(opts, adapter, plan, cacheDir));
    } catch (e) {
      if (adapter === plan.adapter) throw e;
      const npm = adapter.adapter.install.npm;
      failed.set(
        adapter,
        `not run: ${npm?.package}@${npm?.version}, which this tree pins, did not install: ${(e as Error).message}`,
      );
    }
  }
  return { skips: plan.targetAdapters.map((a) => failed.get(a)), installs };
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
  made: {
    runner: Runner;
    view: HarnessView;
    cacheDir: string;
    written: WrittenFiles;
    installs: Map<RunPlan['adapter'], HarnessInstall>;
  },
): ResultWriter[] {
  const { runner, view, cacheDir, installs } = made;
  const { identity } = plan;
  // What each tree measures, attested in its result (read from files; nothing of the harness is run).
  const harnessOf = (repoDir: string, adapter: RunPlan['adapter']) =>
    harnessInfo(adapter, cacheDir, (t) =>
      renderTemplate(t, {
        repo: repoDir,
        action_root: actionRoot(),
        adapter_dir: adapter.dir,
        cache: cacheDir,
        ...versionVar(adapter.adapter),
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
  return targets.map((t, i) => {
    const harness = harnessOf(t.repoDir, plan.targetAdapters[i]!);
    const install = installs.get(plan.targetAdapters[i]!);
    const header: ResultHeader = {
      schema_version: RESULT_SCHEMA_VERSION,
      tool: { name: 'harness-risk-action', version: VERSION, ...thisEngineBuild() },
      started_at: new Date().toISOString(),
      adapter: identity.adapter,
      ...(harness ? { harness } : {}),
      runner: runner.name,
      containment: runner.info?.() ?? {
        name: runner.name,
        containment: 'container',
        mechanism: 'docker: one disposable container per trial',
      },
      ...(install ? { install } : {}),
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
