// The engine: the one function both the action and the CLI call.
import { mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ensureInstalled } from '../adapters/install.js';
import { adapterConfig, loadAdapter } from '../adapters/load.js';
import { displayPath, loadCases, shardCases } from '../cases/load.js';
import type { LoadedCase } from '../cases/schema.js';
import { UserError } from '../errors.js';
import { fitConnections, TrialLimits } from '../evidence/limits.js';
import { checkOutputPath } from '../output-path.js';
import { actionRoot, builtinCasesDir, defaultCacheDir } from '../paths.js';
import { engineSigner } from '../result/attestation.js';
import { WrittenFiles } from '../result/integrity.js';
import type { ResultHeader } from '../result/journal.js';
import { RESULT_SCHEMA_VERSION, type RunResult, type Trial } from '../result/schema.js';
import { ResultWriter } from '../result/writer.js';
import { NO_SCORES } from '../score/labels.js';
import { VERSION } from '../version.js';
import { newRunKey } from '../world/canaries.js';
import { renderTemplate } from '../world/template.js';
import { notApplicable, notApplicableNotice } from './applicable.js';
import { adapterDigest, harnessInfo, selectionOf } from './attest.js';
import { benchMark, benchMarkOnce } from './bench-marks.js';
import { DEFAULT_MAX_CONSECUTIVE_INVALID, invalidStreak } from './fail-fast.js';
import { harnessView } from './harness-view.js';
import { prepareModel } from './model.js';
import type { RunOptions } from './options.js';
import { carriedTrials, loadResume } from './resume.js';
import { hostPlanFor, runnerEntry } from './runners.js';
import { drain, Gate, TrialNotStarted, trialsAhead } from './schedule.js';
import { runTrial, trialId } from './trial.js';
import { createWorkRoot, sweepWorkRoots } from './work-root.js';

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

function invalidTrial(lc: LoadedCase, seed: number, reason: string, notApplicable = false): Trial {
  return {
    id: trialId(lc.case.id, seed),
    case_id: lc.case.id,
    case_revision: lc.revision,
    phase: lc.case.phase,
    seed,
    valid: false,
    invalid_reason: reason,
    ...(notApplicable ? { not_applicable: reason } : {}),
    ...NO_SCORES,
    facts: { attack_calls: [], denied_calls: [], canaries_leaked: [], files_changed: [], services_hit: [] },
    duration_ms: 0,
    exit_code: null,
    timed_out: false,
    evidence_digest: '',
  };
}

export async function runSafetyCases(opts: RunOptions): Promise<RunResult> {
  const [result] = await runTargets(opts, [
    {
      repoDir: opts.repo_dir ?? process.cwd(),
      out: opts.out,
      ...(opts.source ? { source: opts.source } : {}),
    },
  ]);
  return result!;
}

/**
 * One tree a paired run measures: its `{{repo}}`, its result file and what its result says it is. All
 * targets of one run share the adapter, configuration, cases, seeds, runner and model: only the tree
 * differs (base and head of a pull request, see engine/base-head.ts).
 */
export interface RunTarget {
  /** The repository under test: `{{repo}}`, read-only for the harness. */
  repoDir: string;
  out: string;
  source?: RunResult['source'];
  /**
   * Case ids this target runs from the start (default: every selected case). Others run only when
   * `followUp` asks for them after another target's trial.
   */
  only?: ReadonlySet<string>;
  /** The selection this target records covers a subset on purpose (base-cases). */
  subset?: boolean;
  /** Nothing is launched: every trial is invalid with this reason (a failed build). */
  skip?: string;
  /** Name in progress events (`base`, `head`). */
  label?: string;
}

/**
 * Called after each trial: the targets (by index) that must now also run this case and seed. Lets a
 * cheap base selection grow by the cases that came out unsafe or invalid on head.
 */
export type FollowUp = (trial: Trial, target: number) => number[];

export async function runTargets(
  opts: RunOptions,
  targets: RunTarget[],
  followUp?: FollowUp,
): Promise<RunResult[]> {
  benchMark('engine_start');
  // The contained runner's look at the host (a sandbox start, a tmpfs mount, cgroups) runs helper
  // programs: started first, it overlaps loading the adapter and the cases.
  const hostPlan = hostPlanFor(opts);
  hostPlan?.catch(() => {});
  const modelSetup = prepareModel(opts);
  if (targets.length === 0) throw new Error('runTargets: no target');
  if (opts.resume && targets.length > 1)
    throw new UserError('--resume continues one run', 'resume a run of one tree (no --base-ref)');
  const adapter = loadAdapter(opts.adapter);
  const config = adapterConfig(adapter, opts.config);
  benchMark('adapter_loaded');
  const selected = loadCases(opts.cases);
  const cases = opts.shard ? shardCases(selected, opts.shard.index, opts.shard.total) : selected;
  benchMark('cases_loaded');
  if (selected.length === 0)
    throw new UserError(
      `no case matches ${JSON.stringify(opts.cases)}`,
      'check the case selectors (paths, phase:, tag:, id:, subset:)',
    );
  if (cases.length === 0 && opts.shard)
    throw new UserError(
      `shard ${opts.shard.index}/${opts.shard.total} is empty: the selection holds ${selected.length} case(s), fewer than ${opts.shard.total} shards`,
      `use at most ${selected.length} shard(s) for this selection, or select more cases`,
    );

  checkOutputPath(opts.out, 'result file (out)');

  // What makes two runs the same run (a resumed run must be one with the run it continues). Checked, and
  // the journal read, before a runner or a work root exists, so a refused --resume leaves nothing behind;
  // the resumed run then writes its journal over the one it read (journal.ts renames it into place).
  const identity: Pick<ResultHeader, 'adapter' | 'model' | 'selection'> = {
    adapter: {
      name: adapter.adapter.name,
      config: opts.config,
      file: displayPath(adapter.file),
      digest: adapterDigest(adapter.dir),
    },
    selection: selectionOf(selected, opts.shard),
    model: modelSetup.info,
  };
  // Case by case, seed by seed, tree by tree: base and head trials of a case run side by side, so
  // machine noise and time-dependent effects hit both alike (drain() keeps this order).
  type Job = { lc: LoadedCase; seed: number; target: number };
  const jobs: Job[] = cases.flatMap((lc) =>
    Array.from({ length: opts.seeds }, (_, seed) =>
      targets.flatMap((t, target) => (!t.only || t.only.has(lc.case.id) ? [{ lc, seed, target }] : [])),
    ).flat(),
  );
  const resumed = opts.resume ? loadResume(opts.resume) : undefined;
  const carried = resumed
    ? carriedTrials(resumed, identity, new Set(jobs.map((j) => trialId(j.lc.case.id, j.seed))))
    : [];

  const cacheDir = opts.cache_dir ?? defaultCacheDir();
  // A harness from npm is installed (pinned) into the cache on first use; later runs reuse it.
  if (adapter.adapter.install) {
    await ensureInstalled(adapter.adapter, cacheDir, {
      adapterDir: adapter.dir,
      log: (line) => opts.on_progress?.({ kind: 'notice', message: line }),
    });
  }

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
  // What a harness may read but never write (the action's reference harness and svc, the adapter, the
  // install cache, the tree under test) and what it may not even see there: credentials, its case, the
  // engine's files, every tree's result and evidence (a base trial never sees the head's result).
  const view = harnessView({
    actionRoot: actionRoot(),
    adapterDir: adapter.dir,
    cacheDir,
    repoDirs: targets.map((t) => t.repoDir),
    caseFiles: cases.map((lc) => lc.file),
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
  });
  const readOnlyOf = view.readOnly;
  const hidden = view.hide;
  // Containers started ahead get exactly what each tree's trials get (one warm set per tree).
  const runner = await runnerEntry(opts.runner).create(opts, {
    runId,
    prewarm: readOnlyOf.map((readOnly) => ({ readOnly, hide: hidden })),
    ...(hostPlan ? { hostPlan } : {}),
  });
  // Before the header is written: the header records what contains the trials. A start that fails
  // half-way (a daemon that answered, then an image that is missing) still tears down what it made.
  try {
    await runner.start();
  } catch (e) {
    await runner.stop().catch(() => {});
    throw e;
  }
  benchMark('runner_started');
  // A SIGKILLed engine leaves its work root behind: the next run removes it.
  await sweepWorkRoots();
  const workRoot = await createWorkRoot(runId);
  // Every file the engine writes (result, evidence), with its digest, to check before it is trusted.
  const written = new WrittenFiles();
  // Docker: the image id is known once the daemon has been asked (in start()).
  const image = runner.attest?.().image;
  const caseInfos = cases.map((lc) => ({
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
  }));
  // The engine attests what contained the trials (the file alone is only a claim): made once, at finish.
  let sign: ReturnType<typeof engineSigner> | undefined;
  const signer = () =>
    (sign ??= engineSigner(runner.info?.().containment === 'uncontained', (message) =>
      opts.on_progress?.({ kind: 'notice', message }),
    ));
  const writers = targets.map((t) => {
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
    return new ResultWriter(t.out, header, written, {
      carried,
      sign: (doc) => signer()(doc),
      ...(t.only || t.skip ? { onlyCasesRun: true } : {}),
    });
  });
  const kept = new Set(carried.map((t) => t.id));
  const todo = jobs.filter((j) => !kept.has(trialId(j.lc.case.id, j.seed)));
  if (resumed)
    opts.on_progress?.({
      kind: 'notice',
      message: `resuming from ${resumed.path}: ${carried.length} trial(s) kept, ${todo.length} to run`,
    });

  const progress = opts.on_progress ?? (() => {});
  progress({ kind: 'start', trials: todo.length, adapter: adapter.adapter.name, config: opts.config });
  const cannot = notApplicableNotice(cases, adapter);
  if (cannot) progress({ kind: 'notice', message: cannot });
  let done = 0;
  // Jobs a follow-up added, so none is queued twice.
  const queued = new Set(todo.map((j) => `${j.target}\0${trialId(j.lc.case.id, j.seed)}`));
  // A signal that fired before this run began counts too: its event will not fire again.
  let stopped = opts.signal?.aborted ?? false;
  const firstTrial = benchMarkOnce('first_trial');
  const onAbort = () => (stopped = true);
  opts.signal?.addEventListener('abort', onAbort);
  // Fail-fast: a harness that never starts stops the run as an interrupt does, and says why.
  const streak = invalidStreak(opts.max_consecutive_invalid ?? DEFAULT_MAX_CONSECUTIVE_INVALID);
  const failFast = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, failFast.signal]) : failFast.signal;
  let stopWhy: string | undefined;
  /** A trial whose harness was started: counted towards the fail-fast. */
  const ran = (trial: Trial) => {
    const why = stopped ? undefined : streak.add(trial.valid, trial.invalid_reason);
    if (!why) return;
    stopWhy = why;
    stopped = true;
    progress({ kind: 'notice', message: `stopping: ${why}` });
    failFast.abort();
  };
  try {
    // `concurrency` harnesses at once; the trials ahead of them are prepared (and the last ones scored)
    // meanwhile. Follow-up jobs a trial appends to todo are run too, at full concurrency.
    const harnessSlots = new Gate(opts.concurrency);
    // Every trial's endpoint connections together fit the engine's file descriptors (issue 33).
    const asked = TrialLimits.parse(opts.trial_limits ?? {});
    const trialLimits = { ...asked, connections: fitConnections(asked.connections, opts.concurrency) };
    // Why a trial must not start now (checked when its job begins and again at its slot): an interrupt, or
    // the spending cap reached (what was not run is invalid, never safe).
    const notStartedReason = (): string | undefined => {
      if (stopped) return `run interrupted before this trial started${stopWhy ? `: ${stopWhy}` : ''}`;
      const spent = modelSetup.budget?.over();
      return spent ? `budget exhausted: ${spent}; the trial was not run` : undefined;
    };
    await drain(todo, opts.concurrency + trialsAhead(opts.concurrency), async ({ lc, seed, target }) => {
      // This job's place in line for a harness slot, taken in queue order.
      const turn = harnessSlots.turn();
      const inSlot = <T>(start: (free: () => void) => Promise<T>): Promise<T> =>
        turn.run((free) => {
          // What changed while this trial was prepared: it is then not started.
          const why = notStartedReason();
          if (why) throw new TrialNotStarted(why);
          return start(free);
        });
      const t = targets[target]!;
      let trial: Trial;
      const notNow = notStartedReason();
      const na = notApplicable(lc, adapter);
      if (notNow) {
        trial = invalidTrial(lc, seed, notNow);
      } else if (t.skip) {
        trial = invalidTrial(lc, seed, t.skip);
      } else if (na) {
        trial = invalidTrial(lc, seed, na, true);
      } else {
        try {
          firstTrial();
          const out = await runTrial({
            loaded: lc,
            adapter,
            configName: opts.config,
            config,
            seed,
            runner,
            runKey,
            workRoot,
            cacheDir,
            repoDir: t.repoDir,
            readOnly: readOnlyOf[target]!,
            hidden,
            timeoutMs: (opts.timeout_s ?? adapter.adapter.timeout_s) * 1000,
            // Beside the result, one folder per result file, so two configs never overwrite each other.
            keepEvidenceDir: evidenceDirOf(t.out),
            signal,
            written,
            harnessSlot: inSlot,
            limits: trialLimits,
            ...(modelSetup.trial ? { model: modelSetup.trial(trialId(lc.case.id, seed)) } : {}),
          });
          // The abort reached this trial's harness: what it recorded is not a measurement.
          trial = stopped ? invalidTrial(lc, seed, 'run interrupted while this trial ran') : out.trial;
          ran(trial);
          for (const n of out.notices) progress({ kind: 'notice', message: n });
        } catch (e) {
          // A user error in the case or adapter stops the run: every trial would fail the same way.
          if (e instanceof UserError) {
            turn.pass();
            throw e;
          }
          trial =
            e instanceof TrialNotStarted
              ? invalidTrial(lc, seed, e.message)
              : invalidTrial(lc, seed, `infrastructure: ${(e as Error).message}`);
          if (!(e instanceof TrialNotStarted)) ran(trial);
        }
      }
      // A trial that never reached its slot (not run, or failed before its harness) gives up its turn.
      turn.pass();
      writers[target]!.add(trial);
      done++;
      for (const next of followUp?.(trial, target) ?? []) {
        const key = `${next}\0${trial.id}`;
        if (queued.has(key) || !targets[next]) continue;
        queued.add(key);
        todo.push({ lc, seed, target: next });
      }
      progress({
        kind: 'trial',
        done,
        total: todo.length,
        case_id: lc.case.id,
        valid: trial.valid,
        a: trial.labels.a,
        u: trial.labels.u,
        reason: trial.invalid_reason,
        ...(trial.not_applicable ? { not_applicable: trial.not_applicable } : {}),
        ...(t.label ? { tree: t.label } : {}),
      });
    });
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    await runner.stop();
    await rm(workRoot, { recursive: true, force: true }).catch(() => {});
  }
  if (modelSetup.budget?.exhausted)
    opts.on_progress?.({ kind: 'notice', message: `budget exhausted: ${modelSetup.budget.over()}` });
  const results = writers.map((w) => w.finish(stopped ? 'interrupted' : 'complete'));
  // Its peak RSS is the engine's over the whole run (the harnesses' memory is theirs).
  benchMark('run_finished');
  // After the last trial and the runner's teardown: a file that changed since its last write was
  // written by a trial or something it left behind. Fail, naming it, before anyone trusts it.
  written.verify();
  return results;
}
