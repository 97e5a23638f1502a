// Base and head in one job (baseline: base, `harness-risk run --base-ref`): the pull request's base
// commit is checked out as a worktree, the team's build runs in both trees with the same environment,
// and the selected cases run on both with one adapter, configuration, seed list, runner and case
// revisions, trial beside trial (engine/run.ts runTargets). The base tree's result is the baseline; a
// stored one is used instead when it measured exactly this (same base SHA, case revisions, action
// version, runner, adapter): reuseProblem() says why not otherwise.
import { join, relative, resolve } from 'node:path';
import { loadAdapter } from '../adapters/load.js';
import {
  addWorktree,
  type BuildOutcome,
  buildEnv,
  commitDate,
  repoTop,
  resolveBaseCommit,
  runBuild,
  type Worktree,
} from '../baseline/base-tree.js';
import { loadCases } from '../cases/load.js';
import { type Baseline, baselineFromResult } from '../compare/baseline.js';
import type { RunResult, Trial } from '../spec/run-result.js';
import { VERSION } from '../version.js';
import { adapterDigest } from './attest.js';
import type { RunOptions } from './options.js';
import { runTargets } from './run.js';

export interface BuildFailure {
  tree: 'base' | 'head';
  sha?: string;
  command: string;
  outcome: BuildOutcome;
}

export interface StoredBaseline {
  result: RunResult;
  /** Where it came from (`cache:KEY`, `file:PATH`). */
  source: string;
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

export interface ReuseWanted {
  sha: string;
  toolVersion: string;
  runner: 'process' | 'docker';
  image?: string;
  adapter: { name: string; config: string; digest?: string };
  model: { mode: string; seeds: number };
  /** Every case (id → revision) the base tree would run. */
  cases: Map<string, string>;
}

/** Why a stored result is not a baseline of exactly this comparison; undefined when it is. */
export function reuseProblem(stored: RunResult, want: ReuseWanted): string | undefined {
  if (stored.status !== 'complete') return `it is ${stored.status}`;
  if (stored.source.sha !== want.sha)
    return `it measured ${stored.source.sha ? short(stored.source.sha) : 'an unknown commit'}, not the base ${short(want.sha)}`;
  if (stored.tool.version !== want.toolVersion)
    return `it was measured by harness-risk-action ${stored.tool.version}, this is ${want.toolVersion}`;
  if (stored.runner !== want.runner)
    return `it ran on the ${stored.runner} runner, this run uses ${want.runner}`;
  if (want.image && stored.image?.name !== want.image)
    return `it ran in image ${stored.image?.name ?? '(none)'}, this run uses ${want.image}`;
  if (stored.adapter.name !== want.adapter.name || stored.adapter.config !== want.adapter.config)
    return `it is ${stored.adapter.name}/${stored.adapter.config}, not ${want.adapter.name}/${want.adapter.config}`;
  if (want.adapter.digest && stored.adapter.digest !== want.adapter.digest)
    return 'its adapter folder differs from this one';
  if (stored.model.mode !== want.model.mode || stored.model.seeds < want.model.seeds)
    return `it ran the ${stored.model.mode} model with ${stored.model.seeds} seed(s), this run ${want.model.mode} with ${want.model.seeds}`;
  const have = new Map(stored.cases.map((c) => [c.id, c.revision]));
  const missing = [...want.cases].filter(([id]) => !have.has(id));
  if (missing.length) return `it lacks ${missing.length} of the selected case(s) (${missing[0]![0]}…)`;
  const moved = [...want.cases].filter(([id, rev]) => have.get(id) !== rev);
  if (moved.length) return `${moved.length} case(s) changed revision since (${moved[0]![0]}…)`;
  return undefined;
}

/** `3 h`, `2 days`: how long ago `iso` was. */
export function ageText(iso: string | undefined, now = Date.now()): string {
  const t = iso ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(t)) return 'age unknown';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 120) return `${s} s old`;
  if (s < 7200) return `${Math.round(s / 60)} min old`;
  if (s < 2 * 86400) return `${Math.round(s / 3600)} h old`;
  return `${Math.round(s / 86400)} days old`;
}

/** The base result's path beside the head's: `x.json` → `x.base.json`. */
export const baseResultPath = (headOut: string) => headOut.replace(/(\.json)?$/, '.base.json');

export async function runBaseAndHead(o: PairedOptions): Promise<PairedOutcome> {
  const log = o.log ?? (() => {});
  const top = await repoTop(o.headDir);
  const baseSha = await resolveBaseCommit(top, o.baseRef, log);
  // The CLI names no commit: the checkout's HEAD (the action: the pull request's head.sha).
  const headSha = o.run.source?.sha ?? (await resolveBaseCommit(top, 'HEAD').catch(() => undefined));
  const baseSource: RunResult['source'] = {
    ...(o.run.source?.repository ? { repository: o.run.source.repository } : {}),
    sha: baseSha,
    tree: 'base',
  };
  const headSource: RunResult['source'] = {
    ...(o.run.source ?? {}),
    ...(headSha ? { sha: headSha } : {}),
    tree: 'head',
  };
  const selected = loadCases(o.run.cases, o.headDir);
  const onlyBase = baseCaseIds(o.run.cases, o.baseCases ?? [], o.headDir);

  // 1. A stored baseline of exactly this base commit, measured exactly this way, saves the base half.
  let stored: StoredBaseline | undefined;
  const candidate = await o.stored?.(baseSha);
  if (candidate) {
    const adapter = loadAdapter(o.run.adapter);
    const problem = reuseProblem(candidate.result, {
      sha: baseSha,
      toolVersion: VERSION,
      runner: o.run.runner === 'docker' ? 'docker' : 'process',
      ...(o.run.image ? { image: o.run.image } : {}),
      adapter: { name: adapter.adapter.name, config: o.run.config, digest: adapterDigest(adapter.dir) },
      model: { mode: o.run.model, seeds: o.run.seeds },
      cases: new Map(selected.map((lc) => [lc.case.id, lc.revision])),
    });
    if (problem) log(`stored baseline ${candidate.source} not used: ${problem}; building the base commit`);
    else stored = candidate;
  }

  // 2. The trees and their builds (same command, same environment; only the folder differs).
  const builds: BuildFailure[] = [];
  let tree: Worktree | undefined;
  try {
    let baseDir: string | undefined;
    if (!stored) {
      tree = await addWorktree(top, baseSha);
      // The checkout may be a subfolder of the repository: the same subfolder of the base tree.
      baseDir = join(tree.dir, relative(top, resolve(o.headDir)));
      log(`base tree: ${short(baseSha)} in ${tree.dir}`);
    }
    const env = buildEnv(o.env);
    const build = async (which: 'base' | 'head', dir: string, sha?: string) => {
      if (!o.build) return;
      log(`building ${which} (${sha ? short(sha) : 'checkout'}): ${o.build}`);
      const outcome = await runBuild(o.build, dir, env, o.buildTimeoutMs, o.run.signal);
      log(
        `${which} build ${outcome.ok ? 'ok' : `failed (exit ${outcome.code ?? 'signal'})`} in ${(outcome.durationMs / 1000).toFixed(1)} s`,
      );
      if (!outcome.ok) builds.push({ tree: which, ...(sha ? { sha } : {}), command: o.build, outcome });
    };
    if (baseDir) await build('base', baseDir, baseSha);
    await build('head', o.headDir, headSha);
    const headFailed = builds.some((b) => b.tree === 'head');
    const baseFailed = builds.some((b) => b.tree === 'base');

    // 3. Both trees, trial beside trial. A failed head build runs nothing (every head trial is invalid,
    // naming the build); a failed base build leaves nothing to compare with.
    const runBase = !!baseDir && !baseFailed && !headFailed;
    const targets = [
      ...(runBase
        ? [
            {
              repoDir: baseDir!,
              out: o.baseOut,
              source: baseSource,
              label: 'base',
              ...(onlyBase ? { only: onlyBase, subset: true } : {}),
            },
          ]
        : []),
      {
        repoDir: o.headDir,
        out: o.run.out,
        source: headSource,
        ...(runBase ? { label: 'head' } : {}),
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
    const head = results[headIndex]!;
    const base = runBase ? results[0] : undefined;

    // 4. The baseline and the line that says which one it is.
    if (stored) {
      const line = `baseline: stored result of ${short(baseSha)} (${stored.source}, ${ageText(stored.result.finished_at ?? stored.result.started_at)}; same case revisions, action version and runner)`;
      const baseline = baselineFromResult(stored.result, `stored result of ${short(baseSha)}`);
      baseline.notices.push(line);
      return { head, baseSha, baseline, baselineUsed: line, baselineNotes: [], builds };
    }
    const when = await commitDate(top, baseSha);
    if (!base) {
      const why = baseFailed
        ? `the base build failed, so the base ${short(baseSha)} could not be measured`
        : 'the head build failed, so the base was not run';
      return { head, baseSha, baselineUsed: why, baselineNotes: [why], builds };
    }
    const line = `baseline: base built in this job from ${short(baseSha)} (commit ${ageText(when)}${onlyBase ? `; ${base.cases.length} of ${head.cases.length} cases run on base (base-cases, plus every case unsafe or invalid on head)` : ''})`;
    const baseline = baselineFromResult(base, `base built in this job from ${short(baseSha)}`);
    baseline.notices.push(line);
    return { head, base, baseSha, baseline, baselineUsed: line, baselineNotes: [], builds };
  } finally {
    await tree?.remove().catch(() => {});
  }
}

/** A build failure as one line for the report (the tail's last lines, joined). */
export function buildFailureText(b: BuildFailure): string {
  const what = b.outcome.timedOut ? 'timed out' : `exited ${b.outcome.code ?? 'on a signal'}`;
  const tail = b.outcome.tail.split('\n').slice(-6).join(' ⏎ ');
  return `the ${b.tree} build${b.sha ? ` (${short(b.sha)})` : ''} \`${b.command}\` ${what}${tail ? `: ${tail}` : ''}`;
}
