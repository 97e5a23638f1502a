// The engine: the one function both the action and the CLI call.
import { mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ensureInstalled } from '../adapters/install.js';
import { adapterConfig, loadAdapter } from '../adapters/load.js';
import { displayPath, loadCases, shardCases } from '../cases/load.js';
import type { LoadedCase } from '../cases/schema.js';
import { UserError } from '../errors.js';
import { actionRoot, defaultCacheDir } from '../paths.js';
import { WrittenFiles } from '../result/integrity.js';
import type { ResultHeader } from '../result/journal.js';
import { RESULT_SCHEMA_VERSION, type RunResult, type Trial } from '../result/schema.js';
import { ResultWriter } from '../result/writer.js';
import { ProcessRunner } from '../runner/process.js';
import type { Runner } from '../runner/types.js';
import { NO_SCORES } from '../score/labels.js';
import { VERSION } from '../version.js';
import { newRunKey } from '../world/canaries.js';
import { renderTemplate } from '../world/template.js';
import { adapterDigest, harnessInfo, selectionOf } from './attest.js';
import type { RunOptions } from './options.js';
import { carriedTrials, loadResume } from './resume.js';
import { runTrial, trialId } from './trial.js';
import { createWorkRoot, sweepWorkRoots } from './work-root.js';

/** Runs `task` over `items` with at most `limit` at once; results keep the input order. */
export async function pool<T, R>(
  items: T[],
  limit: number,
  task: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

async function makeRunner(opts: RunOptions, runId: string, prewarmReadOnly: string[]): Promise<Runner> {
  if (opts.runner === 'process' || opts.runner === 'process-uncontained')
    return new ProcessRunner({
      containment: opts.runner === 'process-uncontained' ? 'off' : 'auto',
      setupHost: opts.host_setup ?? false,
      ...(opts.limits ? { limits: opts.limits } : {}),
      onWarning: (message) => opts.on_progress?.({ kind: 'notice', message }),
    });
  if (!opts.image)
    throw new UserError(
      'runner docker needs an image',
      'set `image:` (action input) or --image (CLI) to the image holding your harness build',
    );
  const { DockerRunner } = await import('../runner/docker.js');
  return new DockerRunner({
    image: opts.image,
    runId,
    // One idle container ready per concurrent trial; none ever serves a second trial.
    warm: opts.concurrency,
    prewarmReadOnly,
    onWarning: (message) => opts.on_progress?.({ kind: 'notice', message }),
  }) as Runner;
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

function invalidTrial(lc: LoadedCase, seed: number, reason: string): Trial {
  return {
    id: trialId(lc.case.id, seed),
    case_id: lc.case.id,
    case_revision: lc.revision,
    phase: lc.case.phase,
    seed,
    valid: false,
    invalid_reason: reason,
    ...NO_SCORES,
    facts: { attack_calls: [], denied_calls: [], canaries_leaked: [], files_changed: [], services_hit: [] },
    duration_ms: 0,
    exit_code: null,
    timed_out: false,
    evidence_digest: '',
  };
}

export async function runSafetyCases(opts: RunOptions): Promise<RunResult> {
  if (opts.model === 'live') {
    throw new UserError(
      'model mode "live" is not available in this version',
      'use model: scripted (the deterministic worst-case model)',
    );
  }
  const adapter = loadAdapter(opts.adapter);
  const config = adapterConfig(adapter, opts.config);
  const selected = loadCases(opts.cases);
  const cases = opts.shard ? shardCases(selected, opts.shard.index, opts.shard.total) : selected;
  if (cases.length === 0)
    throw new UserError(
      `no case matches ${JSON.stringify(opts.cases)}`,
      'check the case selectors (paths, phase:, tag:, id:, subset:)',
    );

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
    model: { mode: opts.model, seeds: opts.seeds },
  };
  const jobs = cases.flatMap((lc) => Array.from({ length: opts.seeds }, (_, s) => ({ lc, seed: s })));
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

  // What this run measures, attested in the result (read from files; nothing of the harness is run).
  // The repository under test: {{repo}} for the attestation and the trials, read-only for the harness.
  const repoDir = process.cwd();
  const harness = harnessInfo(adapter, cacheDir, (t) =>
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
  // What a harness may read but never write: the action's dist/ (reference harness, svc), the adapter,
  // the harness install cache and the repository under test. The same list for every trial.
  const readOnly = [...new Set([join(actionRoot(), 'dist'), adapter.dir, cacheDir, repoDir])];
  const runner = await makeRunner(opts, runId, readOnly);
  // Before the header is written: the header records what contains the trials. A start that fails
  // half-way (a daemon that answered, then an image that is missing) still tears down what it made.
  try {
    await runner.start();
  } catch (e) {
    await runner.stop().catch(() => {});
    throw e;
  }
  // A SIGKILLed engine leaves its work root behind: the next run removes it.
  await sweepWorkRoots();
  const workRoot = await createWorkRoot(runId);
  const keepEvidenceDir = opts.keep_evidence
    ? join(dirname(opts.out), `${basename(opts.out, '.json')}.evidence`)
    : undefined;
  // Made now, not at the first kept trial: a folder that appears mid-run would not be hidden from the
  // trials already running.
  if (keepEvidenceDir) await mkdir(keepEvidenceDir, { recursive: true });
  // What no trial may see: the result (and its temp file's folder when that is ours alone) and evidence.
  const hidden = hiddenPaths(opts.out, keepEvidenceDir, readOnly);
  // Every file the engine writes (result, evidence), with its digest, to check before it is trusted.
  const written = new WrittenFiles();
  // Docker: the image id is known once the daemon has been asked (in start()).
  const image = runner.attest?.().image;
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
    selection: identity.selection,
    model: identity.model,
    source: opts.source ?? {},
    cases: cases.map((lc) => ({
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
    })),
  };
  const writer = new ResultWriter(opts.out, header, written, { carried });
  const kept = new Set(carried.map((t) => t.id));
  const todo = jobs.filter((j) => !kept.has(trialId(j.lc.case.id, j.seed)));
  if (resumed)
    opts.on_progress?.({
      kind: 'notice',
      message: `resuming from ${resumed.path}: ${carried.length} trial(s) kept, ${todo.length} to run`,
    });

  const progress = opts.on_progress ?? (() => {});
  progress({ kind: 'start', trials: todo.length, adapter: adapter.adapter.name, config: opts.config });
  let done = 0;
  // A signal that fired before this run began counts too: its event will not fire again.
  let stopped = opts.signal?.aborted ?? false;
  const onAbort = () => (stopped = true);
  opts.signal?.addEventListener('abort', onAbort);
  try {
    await pool(todo, opts.concurrency, async ({ lc, seed }) => {
      let trial: Trial;
      if (stopped) {
        trial = invalidTrial(lc, seed, 'run interrupted before this trial started');
      } else {
        try {
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
            repoDir,
            readOnly,
            hidden,
            timeoutMs: (opts.timeout_s ?? adapter.adapter.timeout_s) * 1000,
            // Beside the result, one folder per result file, so two configs never overwrite each other.
            keepEvidenceDir,
            signal: opts.signal,
            written,
          });
          // The abort reached this trial's harness: what it recorded is not a measurement.
          trial = stopped ? invalidTrial(lc, seed, 'run interrupted while this trial ran') : out.trial;
          for (const n of out.notices) progress({ kind: 'notice', message: n });
        } catch (e) {
          // A user error in the case or adapter stops the run: every trial would fail the same way.
          if (e instanceof UserError) throw e;
          trial = invalidTrial(lc, seed, `infrastructure: ${(e as Error).message}`);
        }
      }
      writer.add(trial);
      done++;
      progress({
        kind: 'trial',
        done,
        total: todo.length,
        case_id: lc.case.id,
        valid: trial.valid,
        a: trial.labels.a,
        u: trial.labels.u,
        reason: trial.invalid_reason,
      });
    });
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    await runner.stop();
    await rm(workRoot, { recursive: true, force: true }).catch(() => {});
  }
  const result = writer.finish(stopped ? 'interrupted' : 'complete');
  // After the last trial and the runner's teardown: a file that changed since its last write was
  // written by a trial or something it left behind. Fail, naming it, before anyone trusts it.
  written.verify();
  return result;
}
