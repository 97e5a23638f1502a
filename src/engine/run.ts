// The engine: the one function both the action and the CLI call. A run goes through named stages
// (./run/): plan (options checked, what is measured), start (installs, the runner, result writers),
// drain (the trials), then finish (results written and verified).
import { rm } from 'node:fs/promises';
import type { RunResult } from '../spec/run-result.js';
import { benchMark } from './bench-marks.js';
import type { RunOptions } from './options.js';
import { drainRun } from './run/drain.js';
import { planRun } from './run/plan.js';
import { startRun } from './run/start.js';
import type { FollowUp, RunTarget } from './run/types.js';

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

export async function runTargets(
  opts: RunOptions,
  targets: RunTarget[],
  followUp?: FollowUp,
): Promise<RunResult[]> {
  benchMark('engine_start');
  const plan = planRun(opts, targets);
  const started = await startRun(opts, targets, plan);
  let stopped = false;
  try {
    ({ stopped } = await drainRun(opts, targets, plan, started, followUp));
  } finally {
    await started.runner.stop();
    await rm(started.workRoot, { recursive: true, force: true }).catch(() => {});
  }
  const { budget } = plan.modelSetup;
  if (budget?.exhausted)
    opts.on_progress?.({ kind: 'notice', message: `budget exhausted: ${budget.over()}` });
  const results = started.writers.map((w) => w.finish(stopped ? 'interrupted' : 'complete'));
  // Its peak RSS is the engine's over the whole run (the harnesses' memory is theirs).
  benchMark('run_finished');
  // After the last trial and the runner's teardown: a file that changed since its last write was
  // written by a trial or something it left behind. Fail, naming it, before anyone trusts it.
  started.written.verify();
  return results;
}
