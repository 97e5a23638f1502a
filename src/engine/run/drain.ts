// Stage "drain": a started run's jobs, `concurrency` harnesses at once with the trials ahead of them
// prepared meanwhile; each trial written as it ends, follow-ups queued, progress told. The run stops
// (what was not run is invalid, never safe) on an interrupt, a spent budget, or a fail-fast streak.

import { UserError } from '../../errors.js';
import { fitConnections, TrialLimits } from '../../evidence/limits.js';
import { DEFAULT_STRATEGY } from '../../model/strategies/strategy-kinds.js';
import { NO_SCORES } from '../../score/labels.js';
import type { Trial } from '../../spec/run-result.js';
import { notApplicable, notApplicableNotice } from '../applicable.js';
import { benchMarkOnce } from '../bench-marks.js';
import { DEFAULT_MAX_CONSECUTIVE_INVALID, invalidStreak } from '../fail-fast.js';
import type { RunOptions } from '../options.js';
import { drain, Gate, TrialNotStarted, trialsAhead } from '../schedule.js';
import { jobTrialId, runTrial, trialId } from '../trial.js';
import type { FollowUp, Job, RunPlan, RunStarted, RunTarget } from './types.js';

type Progress = NonNullable<RunOptions['on_progress']>;

/** Why the run stops early: an interrupt (the run's signal) or the fail-fast, and the trials' signal. */
class RunControl {
  /** A signal that fired before this run began counts too: its event will not fire again. */
  stopped: boolean;
  private why?: string;
  private readonly streak: ReturnType<typeof invalidStreak>;
  private readonly failFast = new AbortController();
  /** What the trials' harnesses are stopped by: the run's signal or the fail-fast. */
  readonly signal: AbortSignal;
  private readonly onAbort = () => (this.stopped = true);

  constructor(
    private readonly opts: RunOptions,
    private readonly progress: Progress,
  ) {
    this.stopped = opts.signal?.aborted ?? false;
    opts.signal?.addEventListener('abort', this.onAbort);
    // Fail-fast: a harness that never starts stops the run as an interrupt does, and says why.
    this.streak = invalidStreak(opts.max_consecutive_invalid ?? DEFAULT_MAX_CONSECUTIVE_INVALID);
    this.signal = opts.signal ? AbortSignal.any([opts.signal, this.failFast.signal]) : this.failFast.signal;
  }

  /** A trial whose harness was started: counted towards the fail-fast. */
  ran(trial: Trial): void {
    const why = this.stopped ? undefined : this.streak.add(trial);
    if (!why) return;
    this.why = why;
    this.stopped = true;
    this.progress({ kind: 'notice', message: `stopping: ${why}` });
    this.failFast.abort();
  }

  /** Why a trial must not start now: an interrupt, or the spending cap reached. */
  notStartedReason(budget: RunPlan['modelSetup']['budget']): string | undefined {
    if (this.stopped) return `run interrupted before this trial started${this.why ? `: ${this.why}` : ''}`;
    const spent = budget?.over();
    return spent ? `budget exhausted: ${spent}; the trial was not run` : undefined;
  }

  detach(): void {
    this.opts.signal?.removeEventListener('abort', this.onAbort);
  }
}

export function invalidTrial(
  { lc, seed, strategy }: Pick<Job, 'lc' | 'seed' | 'strategy'>,
  reason: string,
  notApplicable = false,
): Trial {
  return {
    id: trialId(lc.case.id, seed, strategy),
    case_id: lc.case.id,
    case_revision: lc.revision,
    phase: lc.case.phase,
    seed,
    strategy,
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

/** Runs every job (and the follow-ups they add); whether the run was stopped before its end. */
export async function drainRun(
  opts: RunOptions,
  targets: RunTarget[],
  plan: RunPlan,
  started: RunStarted,
  followUp?: FollowUp,
): Promise<{ stopped: boolean }> {
  const { todo } = started;
  const progress: Progress = opts.on_progress ?? (() => {});
  if (plan.resumed)
    progress({
      kind: 'notice',
      message: `resuming from ${plan.resumed.path}: ${plan.carried.length} trial(s) kept, ${todo.length} to run`,
    });
  progress({ kind: 'start', trials: todo.length, adapter: plan.adapter.adapter.name, config: opts.config });
  const cannot = notApplicableNotice(plan.cases, plan.adapter);
  if (cannot) progress({ kind: 'notice', message: cannot });
  let done = 0;
  // Jobs a follow-up added, so none is queued twice.
  const queued = new Set(todo.map((j) => `${j.target}\0${jobTrialId(j)}`));
  const firstTrial = benchMarkOnce('first_trial');
  const control = new RunControl(opts, progress);
  try {
    const runJob = jobRunner(opts, targets, plan, started, control, firstTrial);
    await drain(todo, opts.concurrency + trialsAhead(opts.concurrency), async (job) => {
      const trial = await runJob(job);
      const t = targets[job.target]!;
      started.writers[job.target]!.add(trial);
      done++;
      for (const next of followUp?.(trial, job.target) ?? []) {
        const key = `${next}\0${trial.id}`;
        if (queued.has(key) || !targets[next]) continue;
        queued.add(key);
        todo.push({ lc: job.lc, seed: job.seed, strategy: job.strategy, target: next });
      }
      progress({
        kind: 'trial',
        done,
        total: todo.length,
        case_id: job.lc.case.id,
        ...(job.strategy !== DEFAULT_STRATEGY ? { strategy: job.strategy } : {}),
        valid: trial.valid,
        a: trial.labels.a,
        u: trial.labels.u,
        reason: trial.invalid_reason,
        ...(trial.not_applicable ? { not_applicable: trial.not_applicable } : {}),
        ...(t.label ? { tree: t.label } : {}),
      });
    });
  } finally {
    control.detach();
  }
  return { stopped: control.stopped };
}

/** One job to its trial: run, or invalid with the reason it was not (a user error stops the run). */
function jobRunner(
  opts: RunOptions,
  targets: RunTarget[],
  plan: RunPlan,
  started: RunStarted,
  control: RunControl,
  firstTrial: () => void,
): (job: Job) => Promise<Trial> {
  const { modelSetup } = plan;
  const progress: Progress = opts.on_progress ?? (() => {});
  // `concurrency` harnesses at once; the trials ahead of them are prepared (and the last ones scored)
  // meanwhile. Follow-up jobs a trial appends to todo are run too, at full concurrency.
  const harnessSlots = new Gate(opts.concurrency);
  // Every trial's endpoint connections together fit the engine's file descriptors (issue 33).
  const asked = TrialLimits.parse(opts.trial_limits ?? {});
  const trialLimits = { ...asked, connections: fitConnections(asked.connections, opts.concurrency) };
  const notStartedReason = () => control.notStartedReason(modelSetup.budget);
  return async (job) => {
    const { lc, seed, strategy, target } = job;
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
    const adapter = plan.targetAdapters[target]!;
    const skip = t.skip ?? started.targetSkips[target];
    let trial: Trial;
    const notNow = notStartedReason();
    const na = notApplicable(lc, adapter);
    if (notNow) trial = invalidTrial(job, notNow);
    else if (skip) trial = invalidTrial(job, skip);
    else if (na) trial = invalidTrial(job, na, true);
    else {
      try {
        firstTrial();
        const out = await runTrial({
          loaded: lc,
          adapter,
          configName: opts.config,
          config: plan.config,
          seed,
          strategy,
          runner: started.runner,
          runKey: started.runKey,
          workRoot: started.workRoot,
          cacheDir: started.cacheDir,
          repoDir: t.repoDir,
          readOnly: started.readOnlyOf[target]!,
          hidden: started.hidden,
          timeoutMs: (opts.timeout_s ?? adapter.adapter.timeout_s) * 1000,
          // Beside the result, one folder per result file, so two configs never overwrite each other.
          keepEvidenceDir: started.evidenceDirOf(t.out),
          signal: control.signal,
          written: started.written,
          harnessSlot: inSlot,
          // The second session (activation) queues for a slot of its own, checked like the first.
          nextSlot: (start) =>
            harnessSlots.run((free) => {
              const why = notStartedReason();
              if (why) throw new TrialNotStarted(why);
              return start(free);
            }),
          ...(opts.activation ? { activation: true } : {}),
          limits: trialLimits,
          ...(modelSetup.trial ? { model: modelSetup.trial(trialId(lc.case.id, seed, strategy)) } : {}),
        });
        // The abort reached this trial's harness: what it recorded is not a measurement.
        trial = control.stopped ? invalidTrial(job, 'run interrupted while this trial ran') : out.trial;
        control.ran(trial);
        for (const n of out.notices) progress({ kind: 'notice', message: n });
      } catch (e) {
        // A user error in the case or adapter stops the run: every trial would fail the same way.
        if (e instanceof UserError) {
          turn.pass();
          throw e;
        }
        const notStarted = e instanceof TrialNotStarted;
        trial = invalidTrial(job, notStarted ? e.message : `infrastructure: ${(e as Error).message}`);
        if (!notStarted) control.ran(trial);
      }
    }
    // A trial that never reached its slot (not run, or failed before its harness) gives up its turn.
    turn.pass();
    return trial;
  };
}
