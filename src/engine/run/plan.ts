// Stage "plan": a run's options checked and what it measures worked out before anything is made: the
// adapter and its configuration, the cases (this shard's), the model, the identity a resumed run must
// share, the jobs in their order and what a resumed run keeps. A refused run leaves nothing behind.

import { adapterConfig, loadAdapter, withAcpCommand } from '../../adapters/load.js';
import type { Adapter } from '../../adapters/schema.js';
import {
  type HarnessBuild,
  harnessPackageOf,
  withHarnessBuild,
  withHarnessVersion,
} from '../../adapters/version-override.js';
import { type LoadedWiring, loadWiring, wiredAdapter, wiredCases } from '../../adapters/wiring.js';
import { displayPath, loadCases, shardCases } from '../../cases/load.js';
import type { LoadedCase } from '../../cases/schema.js';
import { UserError } from '../../errors.js';
import { DEFAULT_STRATEGY } from '../../model/strategies/strategy-kinds.js';
import { checkOutputPath } from '../../output-path.js';
import { declaresReviewer, reviewerMode } from '../../spec/reviewer-modes.js';
import { runAdapterDigest, selectionOf } from '../attest.js';
import { benchMark } from '../bench-marks.js';
import { thisEngineBuild } from '../engine-build.js';
import { prepareModel } from '../model.js';
import type { RunOptions } from '../options.js';
import { carriedTrials, loadResume } from '../resume.js';
import { hostPlanFor } from '../runners.js';
import { jobTrialId } from '../trial.js';
import type { Job, RunPlan, RunTarget } from './types.js';

export function planRun(opts: RunOptions, targets: RunTarget[]): RunPlan {
  // The contained runner's look at the host (a sandbox start, a tmpfs mount, cgroups) runs helper
  // programs: started first, it overlaps loading the adapter and the cases.
  const hostPlan = hostPlanFor(opts);
  hostPlan?.catch(() => {});
  const modelSetup = prepareModel(opts);
  if (targets.length === 0) throw new Error('runTargets: no target');
  if (opts.resume && targets.length > 1)
    throw new UserError('--resume continues one run', 'resume a run of one tree (no --base-ref)');
  const wiring = opts.wiring ? loadWiring(opts.wiring) : undefined;
  const wired = wiring ? wiredAdapter(wiring) : undefined;
  const loaded = withAcpCommand(wired?.adapter ?? loadAdapter(opts.adapter), opts.acp_command);
  const adapter = opts.harness_package
    ? { ...loaded, adapter: withHarnessBuild(loaded.adapter, opts.harness_package) }
    : opts.harness_version
      ? { ...loaded, adapter: withHarnessVersion(loaded.adapter, opts.harness_version) }
      : loaded;
  const config = wired?.config ?? adapterConfig(adapter, opts.config);
  benchMark('adapter_loaded');
  const selected = wiring ? wiringSelection(wiring, opts.cases) : loadCases(opts.cases);
  const cases = opts.shard ? shardCases(selected, opts.shard.index, opts.shard.total) : selected;
  benchMark('cases_loaded');
  checkSelection(opts, selected, cases);
  checkOutputPath(opts.out, 'result file (out)');
  // What makes two runs the same run (a resumed run must be one with the run it continues). Checked, and
  // the journal read, before a runner or a work root exists, so a refused --resume leaves nothing behind;
  // the resumed run then writes its journal over the one it read (journal.ts renames it into place).
  const build = askedBuild(opts, loaded.adapter);
  const identity: RunPlan['identity'] = {
    adapter: {
      name: adapter.adapter.name,
      config: opts.config,
      file: displayPath(adapter.file),
      // The wiring's content and the build asked for are what ran too: a changed one is another run.
      digest: runAdapterDigest(adapter.dir, {
        ...(wiring ? { wiringFile: wiring.file } : {}),
        ...(build ? { build } : {}),
        ...(opts.acp_command ? { acpCommand: opts.acp_command } : {}),
      }),
      ...(wiring ? { wiring: displayPath(wiring.file) } : {}),
      ...(build ? { build } : {}),
      ...(opts.acp_command ? { acp_command: opts.acp_command } : {}),
    },
    selection: selectionOf(selected, opts.shard),
    model: {
      ...modelSetup.info,
      // Recorded only when the run selects more than `direct`: a direct run's result keeps its shape.
      ...(strategiesRecorded(opts.strategies) ? { strategies: opts.strategies } : {}),
      // A resumed run carries trials only from a run with the same switch (the model block is its identity).
      ...(opts.activation ? { activation: true as const } : {}),
      ...(declaresReviewer(config)
        ? { reviewer: modelSetup.info.mode === 'scripted' ? reviewerMode(config) : 'live' }
        : {}),
    },
  };
  const jobs = jobsOf(cases, opts.seeds, opts.strategies ?? [DEFAULT_STRATEGY], targets);
  const resumed = opts.resume ? loadResume(opts.resume) : undefined;
  const carried = resumed
    ? carriedTrials(resumed, { ...identity, engine: thisEngineBuild() }, new Set(jobs.map(jobTrialId)))
    : [];
  return {
    adapter,
    targetAdapters: targets.map((t) => targetAdapter(adapter, t)),
    config,
    selected,
    cases,
    identity,
    jobs,
    ...(resumed ? { resumed } : {}),
    carried,
    modelSetup,
    ...(hostPlan ? { hostPlan } : {}),
  };
}

/** The adapter a target's trials launch: the run's, or (a bump's tree) its pinned harness at another version. */
function targetAdapter(
  adapter: ReturnType<typeof loadAdapter>,
  t: RunTarget,
): ReturnType<typeof loadAdapter> {
  const pin = adapter.adapter.install?.npm;
  if (!t.harness_version || !pin || pin.version === t.harness_version) return adapter;
  return { ...adapter, adapter: withHarnessVersion(adapter.adapter, t.harness_version) };
}

/** The harness build the run asked for instead of the adapter's own (--harness-package, --harness-version). */
function askedBuild(opts: RunOptions, adapter: Adapter): HarnessBuild | undefined {
  if (opts.harness_package) return opts.harness_package;
  const pkg = opts.harness_version ? harnessPackageOf(adapter) : undefined;
  return pkg && opts.harness_version ? { package: pkg, version: opts.harness_version } : undefined;
}

/**
 * A wiring run's cases: the GitHub event cases of the selection (with no selection: every built-in one),
 * those whose event the workflow listens to, with the job's variables.
 */
function wiringSelection(w: LoadedWiring, selectors: string[]): LoadedCase[] {
  const all = loadCases(selectors);
  return wiredCases(w, selectors.length ? all : all.filter((lc) => lc.case.entry_point === 'github_event'));
}

/** The selection, the shard and the timeout make a run (each refusal names what to change). */
function checkSelection(opts: RunOptions, selected: LoadedCase[], cases: LoadedCase[]): void {
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
}

/** A run's strategies are recorded (result header, resume identity) unless they are only `direct`. */
export const strategiesRecorded = (s: string[] | undefined): s is string[] =>
  !!s && !(s.length === 1 && s[0] === DEFAULT_STRATEGY);

/**
 * Case by case, seed by seed, strategy by strategy, tree by tree: base and head trials of a case run side
 * by side, so machine noise and time-dependent effects hit both alike (drain() keeps this order).
 */
function jobsOf(cases: LoadedCase[], seeds: number, strategies: string[], targets: RunTarget[]): Job[] {
  return cases.flatMap((lc) =>
    Array.from({ length: seeds }, (_, seed) =>
      strategies.flatMap((strategy) =>
        targets.flatMap((t, target) =>
          !t.only || t.only.has(lc.case.id) ? [{ lc, seed, strategy, target }] : [],
        ),
      ),
    ).flat(),
  );
}
