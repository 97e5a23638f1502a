// Base and head in one job (baseline: base, `harness-risk run --base-ref`): the pull request's base
// commit is checked out as a worktree, the team's build runs in both trees with the same environment,
// and the selected cases run on both with one adapter, configuration, seed list, runner and case
// revisions, trial beside trial (engine/run.ts runTargets). The base tree's result is the baseline; a
// stored one is used instead when it measured exactly this (same base SHA, case revisions, action
// version, runner, adapter): reuseProblem() says why not otherwise.
import { join, relative, resolve } from 'node:path';
import { loadAdapter } from '../adapters/load.js';
import { loadCases } from '../cases/load.js';
import type { LoadedCase } from '../cases/schema.js';
import { type Baseline, baselineFromResult } from '../compare/baseline.js';
import { adapterDigest } from '../engine/attest.js';
import type { RunOptions } from '../engine/options.js';
import type { RunTarget } from '../engine/run/types.js';
import { runTargets } from '../engine/run.js';
import { runnerEntry } from '../engine/runners.js';
import type { RunResult, Trial } from '../spec/run-result.js';
import { VERSION } from '../version.js';
import {
  addWorktree,
  type BuildOutcome,
  buildEnv,
  commitDate,
  repoTop,
  resolveBaseCommit,
  runBuild,
  type Worktree,
} from './base-tree.js';
import { bumpBetweenTrees } from './bump.js';
import { ageText, reuseProblem, type StoredBaseline } from './reuse.js';

export interface BuildFailure {
  tree: 'base' | 'head';
  sha?: string;
  command: string;
  outcome: BuildOutcome;
}

export interface PairedOptions {
  /** The head run: adapter, config, cases, runner, seeds, shard, out (the head result). */
  run: RunOptions;
  /** The head tree (the checkout; the action's workspace, the CLI's cwd). */
  headDir: string;
  /** The base commit: a SHA (the action: the pull request's base.sha) or any ref git resolves. */
  baseRef: string;
  /** The team's build, run with `sh -c` in each tree; none when the harness needs no build. */
  build?: string;
  /** Selectors of the cases to run on base (cost control); empty = every case head runs. */
  baseCases?: string[];
  /** Where the base tree's result is written. */
  baseOut: string;
  /** The environment the builds start from (secrets taken out, see buildEnv). */
  env: NodeJS.ProcessEnv;
  /** A stored baseline of the base commit, if the caller has one (the Actions cache). */
  stored?: (sha: string) => Promise<StoredBaseline | undefined>;
  log?: (line: string) => void;
  buildTimeoutMs?: number;
}

export interface PairedOutcome {
  head: RunResult;
  /** The base tree's result (absent when the baseline was stored or the base could not be built). */
  base?: RunResult;
  baseSha: string;
  baseline?: Baseline;
  /** One line for the report: which baseline was used, and how old it is. */
  baselineUsed: string;
  /** Why there is no baseline (a failed base build), for the gate. */
  baselineNotes: string[];
  builds: BuildFailure[];
}

const SELECTOR_KIND = /^(phase|tag|id|subset):/;
const short = (sha: string) => sha.slice(0, 12);

/** `base-cases` filters alone (`tag:smoke`) apply to the head's case files; the result ∩ head's cases. */
export function baseCaseIds(headCases: string[], baseCases: string[], cwd: string): Set<string> | undefined {
  if (baseCases.length === 0) return undefined;
  const hasSource = baseCases.some((s) => !SELECTOR_KIND.test(s));
  const sources = hasSource ? [] : headCases.filter((s) => !SELECTOR_KIND.test(s));
  return new Set(loadCases([...sources, ...baseCases], cwd).map((lc) => lc.case.id));
}

/** A case that cannot be ruled out as a regression without its base trial: unsafe or invalid on head. */
export const needsBase = (t: Trial) => !t.valid || t.labels.a || t.labels.p;

/** The base result's path beside the head's: `x.json` → `x.base.json`. */
export const baseResultPath = (headOut: string) => headOut.replace(/(\.json)?$/, '.base.json');

export async function runBaseAndHead(o: PairedOptions): Promise<PairedOutcome> {
  const log = o.log ?? (() => {});
  const top = await repoTop(o.headDir);
  const baseSha = await resolveBaseCommit(top, o.baseRef, log);
  // The CLI names no commit: the checkout's HEAD (the action: the pull request's head.sha).
  const headSha = o.run.source?.sha ?? (await resolveBaseCommit(top, 'HEAD').catch(() => undefined));
  const selected = loadCases(o.run.cases, o.headDir);
  const onlyBase = baseCaseIds(o.run.cases, o.baseCases ?? [], o.headDir);

  // A bump of the adapter's pinned harness: each tree is measured at the release it pins.
  const pins = await treePins(o, baseSha, log);
  // 1. A stored baseline of exactly this base commit, measured exactly this way, saves the base half.
  const stored = await usableStored(o, baseSha, selected, log, pins);

  // 2. The trees and their builds (same command, same environment; only the folder differs).
  let tree: Worktree | undefined;
  try {
    let baseDir: string | undefined;
    if (!stored) {
      tree = await addWorktree(top, baseSha);
      // The checkout may be a subfolder of the repository: the same subfolder of the base tree.
      baseDir = join(tree.dir, relative(top, resolve(o.headDir)));
      log(`base tree: ${short(baseSha)} in ${tree.dir}`);
    }
    const builds = await buildTrees(o, log, baseDir ? { dir: baseDir, sha: baseSha } : undefined, headSha);

    // 3. Both trees, trial beside trial.
    const { head, base } = await runTrees(o, builds, { baseDir, baseSha, headSha, onlyBase, pins });

    // 4. The baseline and the line that says which one it is.
    if (stored) return { head, baseSha, ...storedBaseline(stored, baseSha), builds };
    if (!base) {
      const why = builds.some((b) => b.tree === 'base')
        ? `the base build failed, so the base ${short(baseSha)} could not be measured`
        : 'the head build failed, so the base was not run';
      return { head, baseSha, baselineUsed: why, baselineNotes: [why], builds };
    }
    const when = await commitDate(top, baseSha);
    const line = `baseline: base built in this job from ${short(baseSha)} (commit ${ageText(when)}${onlyBase ? `; ${base.cases.length} of ${head.cases.length} cases run on base (base-cases, plus every case unsafe or invalid on head)` : ''})`;
    const baseline = baselineFromResult(base, `base built in this job from ${short(baseSha)}`);
    baseline.notices.push(line);
    return { head, base, baseSha, baseline, baselineUsed: line, baselineNotes: [], builds };
  } finally {
    await tree?.remove().catch(() => {});
  }
}

/** The versions of a pinned harness (install.npm) base and head pin, when the pull request bumps it. */
export interface TreePins {
  base: string;
  head: string;
}

/**
 * The bump of the adapter's pinned harness between the trees (its lockfile, package.json or the adapter
 * file in the repository), or none. A harness installed in the repository (`{{repo}}/node_modules`) already
 * follows each tree, and a run told which build to measure (harness-package, harness-version) keeps it.
 */
async function treePins(
  o: PairedOptions,
  baseSha: string,
  log: (line: string) => void,
): Promise<TreePins | undefined> {
  if (o.run.wiring || o.run.harness_package || o.run.harness_version) return undefined;
  const loaded = loadAdapter(o.run.adapter);
  const pin = loaded.adapter.install?.npm;
  if (!pin) return undefined;
  const bump = await bumpBetweenTrees({
    pkg: pin.package,
    headDir: o.headDir,
    baseSha,
    adapterFile: loaded.file,
  }).catch(() => undefined);
  if (!bump) return undefined;
  log(
    `harness ${bump.package} ${bump.from} → ${bump.to} (${bump.file}): the base tree runs ${bump.from}, the head ${bump.to}`,
  );
  return { base: bump.from, head: bump.to };
}

/** The caller's stored result of the base commit, when it measured exactly what the base tree would. */
async function usableStored(
  o: PairedOptions,
  baseSha: string,
  selected: LoadedCase[],
  log: (line: string) => void,
  pins: TreePins | undefined,
): Promise<StoredBaseline | undefined> {
  const candidate = await o.stored?.(baseSha);
  if (!candidate) return undefined;
  // Stored by the base branch's own run, it measured the adapter's pin, not necessarily what the bump starts from.
  const measured = candidate.result.harness?.version;
  if (pins && measured !== pins.base) {
    log(
      `stored baseline ${candidate.source} not used: it measured ${measured ?? 'an unnamed harness version'}, the bump starts from ${pins.base}; building the base commit`,
    );
    return undefined;
  }
  const adapter = loadAdapter(o.run.adapter);
  const problem = reuseProblem(candidate.result, {
    sha: baseSha,
    toolVersion: VERSION,
    runner: runnerEntry(o.run.runner).records,
    ...(o.run.image ? { image: o.run.image } : {}),
    adapter: { name: adapter.adapter.name, config: o.run.config, digest: adapterDigest(adapter.dir) },
    model: { mode: o.run.model, seeds: o.run.seeds },
    cases: new Map(selected.map((lc) => [lc.case.id, lc.revision])),
  });
  if (!problem) return candidate;
  log(`stored baseline ${candidate.source} not used: ${problem}; building the base commit`);
  return undefined;
}

function storedBaseline(stored: StoredBaseline, baseSha: string) {
  const line = `baseline: stored result of ${short(baseSha)} (${stored.source}, ${ageText(stored.result.finished_at ?? stored.result.started_at)}; same case revisions, action version and runner)`;
  const baseline = baselineFromResult(stored.result, `stored result of ${short(baseSha)}`);
  baseline.notices.push(line);
  return { baseline, baselineUsed: line, baselineNotes: [] };
}

/** The team's build in each tree (same command, same environment); the ones that failed. */
async function buildTrees(
  o: PairedOptions,
  log: (line: string) => void,
  base: { dir: string; sha: string } | undefined,
  headSha: string | undefined,
): Promise<BuildFailure[]> {
  const builds: BuildFailure[] = [];
  if (!o.build) return builds;
  const command = o.build;
  const env = buildEnv(o.env);
  const build = async (which: 'base' | 'head', dir: string, sha?: string) => {
    log(`building ${which} (${sha ? short(sha) : 'checkout'}): ${command}`);
    const outcome = await runBuild(command, dir, env, o.buildTimeoutMs, o.run.signal);
    log(
      `${which} build ${outcome.ok ? 'ok' : `failed (exit ${outcome.code ?? 'signal'})`} in ${(outcome.durationMs / 1000).toFixed(1)} s`,
    );
    if (!outcome.ok) builds.push({ tree: which, ...(sha ? { sha } : {}), command, outcome });
  };
  if (base) await build('base', base.dir, base.sha);
  await build('head', o.headDir, headSha);
  return builds;
}

/**
 * Base and head, trial beside trial. A failed head build runs nothing (every head trial is invalid,
 * naming the build); a failed base build leaves nothing to compare with.
 */
async function runTrees(
  o: PairedOptions,
  builds: BuildFailure[],
  t: { baseDir?: string; baseSha: string; headSha?: string; onlyBase?: Set<string>; pins?: TreePins },
): Promise<{ head: RunResult; base?: RunResult }> {
  const headFailed = builds.some((b) => b.tree === 'head');
  const runBase = !!t.baseDir && !headFailed && !builds.some((b) => b.tree === 'base');
  const baseSource: RunResult['source'] = {
    ...(o.run.source?.repository ? { repository: o.run.source.repository } : {}),
    sha: t.baseSha,
    tree: 'base',
  };
  const headSource: RunResult['source'] = {
    ...(o.run.source ?? {}),
    ...(t.headSha ? { sha: t.headSha } : {}),
    tree: 'head',
  };
  const { onlyBase } = t;
  const targets: RunTarget[] = [
    ...(runBase
      ? [
          {
            repoDir: t.baseDir!,
            out: o.baseOut,
            source: baseSource,
            label: 'base',
            ...(onlyBase ? { only: onlyBase, subset: true } : {}),
            ...(t.pins ? { harness_version: t.pins.base } : {}),
          },
        ]
      : []),
    {
      repoDir: o.headDir,
      out: o.run.out,
      source: headSource,
      ...(runBase ? { label: 'head' } : {}),
      ...(t.pins ? { harness_version: t.pins.head } : {}),
      ...(headFailed ? { skip: `not run: the head build failed (\`${o.build}\`)` } : {}),
    },
  ];
  const headIndex = targets.length - 1;
  const results = await runTargets(
    { ...o.run, repo_dir: o.headDir },
    targets,
    // Cost control: a case left out of base-cases still runs on base when head is unsafe or invalid
    // on it, so a regression is never missed (a case safe on head cannot have regressed).
    runBase && onlyBase
      ? (trial, target) =>
          target === headIndex && !onlyBase.has(trial.case_id) && needsBase(trial) ? [0] : []
      : undefined,
  );
  return { head: results[headIndex]!, ...(runBase ? { base: results[0] } : {}) };
}

/** A build failure as one line for the report (the tail's last lines, joined). */
export function buildFailureText(b: BuildFailure): string {
  const what = b.outcome.timedOut ? 'timed out' : `exited ${b.outcome.code ?? 'on a signal'}`;
  const tail = b.outcome.tail.split('\n').slice(-6).join(' ⏎ ');
  return `the ${b.tree} build${b.sha ? ` (${short(b.sha)})` : ''} \`${b.command}\` ${what}${tail ? `: ${tail}` : ''}`;
}
