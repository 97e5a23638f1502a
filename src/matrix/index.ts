// The results matrix: one case selection over several adapter configurations, each run through the one
// engine, summarized as ASR, persistence, utility, detection and CSS by phase, in markdown and JSON.
// Every cell is an ordinary run result (OUT/runs/ADAPTER--CONFIG.json), so any cell can be compared
// with a baseline or re-rendered on its own.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ensureInstalled } from '../adapters/install.js';
import { adapterConfig, drivesNamedAgent, loadAdapter, withAcpCommand } from '../adapters/load.js';
import { loadCases, shardCases } from '../cases/load.js';
import { mark, sinceMs } from '../elapsed.js';
import type { ProgressEvent, RunOptions } from '../engine/options.js';
import { JournalMismatch, wasInterrupted } from '../engine/resume.js';
import { hostInstallSandbox } from '../engine/run/install.js';
import { runSafetyCases } from '../engine/run.js';
import { DEFAULT_RUNNER } from '../engine/runners.js';
import { UserError } from '../errors.js';
import { DEFAULT_STRATEGY, type StrategyName } from '../model/strategies/strategy-kinds.js';
import { makeOutputDir, writeOutputFile } from '../output-path.js';
import { defaultCacheDir } from '../paths.js';
import { describeEngine } from '../result/engine-name.js';
import { journalPathOf } from '../result/journal.js';
import { RunResult } from '../spec/run-result.js';
import type { Phase } from '../spec/vocabulary.js';
import { matrixMarkdown } from './markdown.js';
import { setAside } from './set-aside.js';
import { MATRIX_SCHEMA_VERSION, type MatrixCell, type MatrixResult } from './types.js';

export interface MatrixAdapter {
  /** Built-in adapter name or path to an adapter folder/yaml. */
  adapter: string;
  /** Configuration names; empty = every configuration the adapter declares. */
  configs: string[];
}

export interface MatrixOptions {
  adapters: MatrixAdapter[];
  /** Case selectors as for `run` (empty = the engine's default selection). */
  cases: string[];
  /** Output folder: matrix.json, matrix.md and runs/ADAPTER--CONFIG.json. */
  out: string;
  runner?: RunOptions['runner'];
  image?: string;
  concurrency?: number;
  timeout_s?: number;
  /** Per-trial limits, as for `run` (`--trial-memory`). */
  limits?: RunOptions['limits'];
  seeds?: number;
  /** Attack strategies, as for `run` (default `direct`): every cell runs each case once per strategy. */
  strategies?: StrategyName[];
  cache_dir?: string;
  /** false: never install; each run refuses a harness missing from the cache (default: install it). */
  install?: boolean;
  /** Reuse a cell whose run result in OUT/runs is already complete for the same cases (default false). */
  resume?: boolean;
  /**
   * Run nothing: the matrix of the cells OUT/runs already answers (as `resume` reuses them), the others
   * listed as not run with why (a matrix assembled from runs made elsewhere or earlier).
   */
  reuse_only?: boolean;
  /**
   * With `reuse_only`: the folders stored run results are looked up in, in order (default OUT/runs), so a
   * matrix can be assembled from results committed elsewhere without copying them.
   */
  from?: string[];
  /**
   * With `reuse_only`: admit a stored cell that measured some selected cases at an earlier revision; the
   * cell names them (a matrix assembled from runs made over time, where rerunning every cell for one edit
   * is not affordable). Without it such a cell is "another question".
   */
  accept_edited?: boolean;
  keep_evidence?: boolean;
  /**
   * The ACP agent's command for the adapters that drive the agent you name (no launch command of their
   * own: the built-in `acp`); other adapters keep theirs.
   */
  acp_command?: string[];
  /** Run only shard I of N of the selected cases (stable by case id), e.g. to sample a slow harness. */
  shard?: RunOptions['shard'];
  /** The command line that produced the matrix, recorded in both outputs. */
  command?: string;
  on_progress?: (
    event: ProgressEvent | { kind: 'cell'; adapter: string; config: string; reused: boolean },
  ) => void;
  signal?: AbortSignal;
}

const cellFile = (adapter: string, config: string) =>
  `${adapter}--${config}`.replace(/[^A-Za-z0-9._+-]/g, '_') + '.json';

/** A run's strategies as a comparable key: sorted, `direct` when none is recorded. */
const strategyKey = (names: readonly string[] | undefined): string =>
  [...(names?.length ? names : [DEFAULT_STRATEGY])].sort().join(',');

/**
 * A cell's earlier run result, when it answers the same question: complete, the same cases at the same
 * revisions (an edited case must be rerun, unless `acceptEdited`: then the cell names the cases it
 * measured at an earlier revision), the same seeds, runner and strategies. Else why not.
 */
export function storedCell(
  path: string,
  want: {
    revisions: Map<string, string>;
    seeds: number;
    runner: RunOptions['runner'];
    strategies: string;
    acceptEdited?: boolean;
    /** For a cell that drives the agent a run names: the agent's command (the run's --acp-command). */
    acpCommand?: string[];
  },
): { doc: RunResult; edited?: string[] } | { why: string; missing?: true } {
  if (!existsSync(path)) return { why: 'no run result', missing: true };
  let doc: RunResult;
  try {
    doc = RunResult.parse(JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, '')));
  } catch {
    return { why: 'its run result is not one this version reads' };
  }
  if (doc.status !== 'complete') {
    const done = doc.trials.filter((t) => !wasInterrupted(t)).length;
    return { why: `${doc.status} (${done} of ${doc.trials.length} trials)` };
  }
  if (doc.model.seeds !== want.seeds) return { why: `another question: ${doc.model.seeds} seed(s)` };
  if (doc.runner !== want.runner) return { why: `another question: runner ${doc.runner}` };
  if (strategyKey(doc.model.strategies) !== want.strategies)
    return { why: `another question: strategies ${strategyKey(doc.model.strategies)}` };
  // Another agent is another harness: a stored run of one is never the cell of another.
  if (want.acpCommand && JSON.stringify(doc.adapter.acp_command) !== JSON.stringify(want.acpCommand))
    return {
      why: doc.adapter.acp_command
        ? `another question: ACP agent ${JSON.stringify(doc.adapter.acp_command)}`
        : 'another question: the stored run names no ACP agent command',
    };
  const edited = doc.cases.filter((c) => want.revisions.has(c.id) && want.revisions.get(c.id) !== c.revision);
  if (doc.cases.length !== want.revisions.size || doc.cases.some((c) => !want.revisions.has(c.id)))
    return { why: `another question: ${doc.cases.length} cases, not the ${want.revisions.size} selected` };
  if (edited.length && !want.acceptEdited)
    return {
      why: `another question: ${edited.length} case(s) edited since (${edited[0]!.id}${edited.length > 1 ? ', …' : ''})`,
    };
  return edited.length ? { doc, edited: edited.map((c) => c.id).sort() } : { doc };
}

type Stored = ReturnType<typeof storedCell>;
const isMissing = (s: Stored) => 'missing' in s && s.missing === true;

/** The first folder's stored run that answers the cell; else why not (from a folder that holds one). */
function storedCellIn(
  dirs: string[],
  file: string,
  want: Parameters<typeof storedCell>[1],
): { path: string; found: Stored } {
  let why: { path: string; found: Stored } | undefined;
  for (const dir of dirs) {
    const path = join(dir, file);
    const found = storedCell(path, want);
    if ('doc' in found) return { path, found };
    if (!why || (isMissing(why.found) && !isMissing(found))) why = { path, found };
  }
  return why!;
}

const harnessBuild = (r: RunResult): string | undefined =>
  [r.harness?.package, r.harness?.version].filter((x) => x).join(' ') || undefined;

/** Runs every adapter × configuration over the same cases; writes OUT/matrix.json and OUT/matrix.md. */
export async function runMatrix(opts: MatrixOptions): Promise<MatrixResult> {
  if (opts.adapters.length === 0)
    throw new UserError('matrix: no adapters given', 'name at least one adapter, e.g. --adapter claude-code');
  const cacheDir = opts.cache_dir ?? defaultCacheDir();
  const runsDir = join(opts.out, 'runs');
  if ((opts.from?.length || opts.accept_edited) && !opts.reuse_only)
    throw new UserError(
      'matrix: --from and --accept-edited only assemble stored runs',
      'add --reuse-only (a cell that is run is always run on the cases as they are now, into OUT/runs)',
    );
  const lookIn = opts.from?.length ? opts.from : [runsDir];
  for (const dir of opts.from ?? [])
    if (!existsSync(dir))
      throw new UserError(
        `matrix --from ${dir}: no such folder`,
        'name a folder of run results (ADAPTER--CONFIG.json)',
      );
  if (!opts.from?.length) makeOutputDir(runsDir, 'matrix --out');
  else makeOutputDir(opts.out, 'matrix --out');

  // Load and check everything before the first (long) run: a typo in the last config must not cost an hour.
  const plan = opts.adapters.map((entry) => {
    const found = loadAdapter(entry.adapter);
    const agent = drivesNamedAgent(found);
    // An adapter that drives the agent you name needs its command to run (assembling stored runs does not).
    const loaded =
      agent && (opts.acp_command || !opts.reuse_only) ? withAcpCommand(found, opts.acp_command) : found;
    const configs = entry.configs.length ? entry.configs : Object.keys(loaded.adapter.configs);
    for (const c of configs) adapterConfig(loaded, c);
    return { entry, loaded, configs, agent };
  });
  if (opts.acp_command && !plan.some((p) => p.agent))
    throw new UserError(
      'matrix --acp-command: no adapter in the matrix drives an agent you name',
      'add --adapter acp (or an adapter with protocol: acp and no launch.command), or leave --acp-command out',
    );

  // Pin the selection to files once: a case library that grows while a long matrix runs must not give
  // its cells different case sets.
  const selected = loadCases(opts.cases);
  const pinned = [...new Set(selected.map((lc) => lc.file))];
  if (pinned.length === 0)
    throw new UserError(`matrix: no case matches ${JSON.stringify(opts.cases)}`, 'check the case selectors');

  const inRun = opts.shard ? shardCases(selected, opts.shard.index, opts.shard.total) : selected;
  const want = {
    revisions: new Map(inRun.map((lc) => [lc.case.id, lc.revision])),
    seeds: opts.seeds ?? 1,
    runner: opts.runner ?? DEFAULT_RUNNER,
    strategies: strategyKey(opts.strategies),
    ...(opts.accept_edited ? { acceptEdited: true } : {}),
  };

  // The header describes the selection itself, so it is right even when the first cell was interrupted.
  const caseIds = inRun.map((lc) => lc.case.id);
  const byPhase: Partial<Record<Phase, number>> = {};
  for (const lc of inRun) byPhase[lc.case.phase] = (byPhase[lc.case.phase] ?? 0) + 1;

  const cells: MatrixCell[] = [];
  const notRun: NonNullable<MatrixResult['not_run']> = [];
  for (const { entry, loaded, configs, agent } of plan) {
    if (opts.install !== false && !opts.reuse_only) {
      const { sandbox } = await hostInstallSandbox();
      await ensureInstalled(loaded.adapter, cacheDir, {
        adapterDir: loaded.dir,
        ...(sandbox ? { sandbox } : {}),
        log: (line) => opts.on_progress?.({ kind: 'notice', message: line }),
      });
    }
    for (const config of configs) {
      if (opts.signal?.aborted) break;
      const t0 = mark();
      const lookup =
        opts.resume || opts.reuse_only
          ? storedCellIn(
              lookIn,
              cellFile(loaded.adapter.name, config),
              agent && opts.acp_command ? { ...want, acpCommand: opts.acp_command } : want,
            )
          : undefined;
      const file = lookup?.path ?? join(runsDir, cellFile(loaded.adapter.name, config));
      const stored = lookup?.found;
      let result = stored && 'doc' in stored ? stored.doc : undefined;
      const notReused = stored && 'why' in stored ? stored : undefined;
      const reused = !!result;
      if (notReused && opts.reuse_only) {
        const why =
          notReused.missing && agent && !opts.acp_command
            ? 'no run result; it drives the ACP agent you name (--acp-command)'
            : notReused.why;
        notRun.push({ adapter: loaded.adapter.name, config, why });
        continue;
      }
      opts.on_progress?.({ kind: 'cell', adapter: loaded.adapter.name, config, reused });
      if (notReused && !notReused.missing)
        opts.on_progress?.({ kind: 'notice', message: `the stored run is not reused: ${notReused.why}` });
      if (!result) {
        // An interrupted cell continues from its journal (what it collected is kept); a journal of another
        // question (other cases, seeds, adapter files) is started afresh, as a stale complete cell is.
        const journal = opts.resume && existsSync(journalPathOf(file)) ? file : undefined;
        const run = (resume: string | undefined) =>
          runSafetyCases({
            adapter: entry.adapter,
            config,
            cases: pinned,
            runner: opts.runner ?? DEFAULT_RUNNER,
            image: opts.image,
            concurrency: opts.concurrency ?? 2,
            timeout_s: opts.timeout_s,
            ...(opts.limits ? { limits: opts.limits } : {}),
            seeds: opts.seeds ?? 1,
            ...(opts.strategies ? { strategies: opts.strategies } : {}),
            model: 'scripted',
            out: file,
            keep_evidence: opts.keep_evidence ?? false,
            ...(opts.install === false ? { install: false } : {}),
            shard: opts.shard,
            cache_dir: cacheDir,
            ...(agent && opts.acp_command ? { acp_command: opts.acp_command } : {}),
            on_progress: opts.on_progress,
            signal: opts.signal,
            ...(resume ? { resume } : {}),
          });
        // What a stale or other run collected is renamed aside, never overwritten (set-aside.ts).
        const keep = (why: string) => {
          const kept = setAside(file);
          if (kept)
            opts.on_progress?.({
              kind: 'notice',
              message: `${loaded.adapter.name}/${config}: ${why}; starting the cell afresh, the earlier run kept as ${kept}`,
            });
        };
        if (opts.resume && !journal && notReused && !notReused.missing)
          keep(`the stored run is not reused (${notReused.why})`);
        try {
          result = await run(journal);
        } catch (e) {
          if (!(journal && e instanceof JournalMismatch)) throw e;
          keep(`the journal beside ${file} is of another run (${e.differences})`);
          result = await run(undefined);
        }
      }
      const harness = harnessBuild(result);
      cells.push({
        adapter: loaded.adapter.name,
        config,
        description: loaded.adapter.configs[config]?.description ?? '',
        result: relative(opts.out, file),
        status: result.status,
        trials: result.trials.length,
        valid: result.trials.filter((t) => t.valid).length,
        not_applicable: result.trials.filter((t) => t.not_applicable !== undefined).length,
        duration_s: reused
          ? Math.round(result.trials.reduce((s, t) => s + t.duration_ms, 0) / 1000)
          : Math.round(sinceMs(t0) / 1000),
        overall: result.summary.overall,
        phases: result.summary.phases,
        ...(result.summary.strategies ? { strategies: result.summary.strategies } : {}),
        ...(harness ? { harness } : {}),
        engine: describeEngine(result.tool),
        ...(stored && 'edited' in stored && stored.edited ? { edited_cases: stored.edited } : {}),
      });
      const matrix = buildMatrix(opts, caseIds, byPhase, cells, notRun);
      writeMatrix(opts.out, matrix); // after every cell: an interrupted matrix keeps what it has
      if (result.status === 'interrupted') return matrix;
    }
  }
  const matrix = buildMatrix(opts, caseIds, byPhase, cells, notRun);
  writeMatrix(opts.out, matrix);
  return matrix;
}

function buildMatrix(
  opts: MatrixOptions,
  ids: string[],
  byPhase: Partial<Record<Phase, number>>,
  cells: MatrixCell[],
  notRun: NonNullable<MatrixResult['not_run']>,
): MatrixResult {
  return {
    schema_version: MATRIX_SCHEMA_VERSION,
    generated_at: new Date().toISOString(),
    ...(opts.command ? { command: opts.command } : {}),
    cases: {
      selectors: opts.cases,
      ...(opts.shard ? { shard: `${opts.shard.index}/${opts.shard.total}` } : {}),
      ids,
      by_phase: byPhase,
    },
    ...(opts.strategies && strategyKey(opts.strategies) !== DEFAULT_STRATEGY
      ? { strategies: [...opts.strategies] }
      : {}),
    cells: [...cells],
    ...(opts.reuse_only ? { not_run: [...notRun] } : {}),
  };
}

export function writeMatrix(out: string, matrix: MatrixResult): void {
  writeOutputFile(join(out, 'matrix.json'), `${JSON.stringify(matrix, null, 2)}\n`, 'matrix --out');
  writeOutputFile(join(out, 'matrix.md'), matrixMarkdown(matrix), 'matrix --out');
}

/**
 * Parses `ADAPTER[:CONFIG[,CONFIG…]]` specs (the CLI's repeatable --adapter flag) into matrix entries;
 * an adapter named twice merges its configs.
 */
export function parseAdapterSpecs(specs: string[]): MatrixAdapter[] {
  const out: MatrixAdapter[] = [];
  for (const spec of specs) {
    const i = spec.lastIndexOf(':');
    const [adapter, list] =
      i > 0 && !/^[A-Za-z]:[\\/]/.test(spec) ? [spec.slice(0, i), spec.slice(i + 1)] : [spec, ''];
    const configs = list
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const prev = out.find((e) => e.adapter === adapter);
    if (prev) {
      if (prev.configs.length && configs.length)
        prev.configs.push(...configs.filter((c) => !prev.configs.includes(c)));
      else prev.configs = [];
    } else out.push({ adapter, configs });
  }
  return out;
}
