// `harness-risk`: dispatch to each subcommand (list.ts, validate.ts, coverage.ts, matrix.ts, …) and `run`
// itself. Each parses its flags, calls the engine, prints; no logic of its own.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { listBuiltinAdapters, loadAdapter } from '../adapters/load.js';
import { loadWiring, wiringAdapterRef } from '../adapters/wiring.js';
import { runWithBase } from '../baseline/base.js';
import { runBaseAndHead } from '../baseline/base-head.js';
import { applyReuseRule, gateInput, loadEarly, resolveBaseline } from '../baseline/resolve.js';
import type { BaselineSource } from '../baseline/source.js';
import type { Baseline } from '../compare/baseline.js';
import type { RunOptions, RunSettings } from '../engine/options.js';
import { resumeResultPath } from '../engine/resume.js';
import { runSafetyCases } from '../engine/run.js';
import { UserError } from '../errors.js';
import { evaluateGate, type GateOptions } from '../gate/index.js';
import { checkOutputPath } from '../output-path.js';
import { sanitizeText } from '../report/escape.js';
import { harnessArgs } from '../report/reproduce.js';
import { VERSION } from '../version.js';
import { cmdBisect } from './bisect.js';
import { closingList } from './closing.js';
import { cmdCoverage, cmdSchema } from './coverage.js';
import { cmdDoctor } from './doctor.js';
import { FlagError, GATE_FLAGS, gateOptionsFromFlags, RUN_FLAGS, runSettingsFromFlags } from './flags.js';
import { baselineFlagSource, cmdCompare, verdictText, writeReports } from './gate.js';
import { helpFor } from './help.js';
import { cmdList } from './list.js';
import { cmdMatrix } from './matrix.js';
import { modelOptionsFromFlags } from './model-flags.js';
import { cmdNew } from './new.js';
import { phaseTable } from './phase-table.js';
import { colorEnabled, paint, progressFor } from './progress.js';
import { cmdValidate } from './validate.js';

const USAGE = `harness-risk ${VERSION} — lifecycle-phase safety cases for agent harnesses

Usage:
  harness-risk run --adapter NAME|PATH --config NAME[,NAME…] [--cases SEL]… [options]
  harness-risk run --wiring FILE [--cases SEL]… [options]   (your workflow's wiring: docs/wiring.md)
  harness-risk run … --base-ref REF [--build CMD] [--base-cases SEL]…   (base and head, compared)
  harness-risk compare --head FILE|DIR… [--baseline FILE] [gate options]   (see compare --help)
  harness-risk matrix --adapter NAME[:CONFIG,…]… [--cases SEL]… --out DIR   (see matrix --help)
  harness-risk list [cases|adapters|strategies|reviewers] [--cases SEL]…
  harness-risk validate [--cases SEL]… [--replays N] [--open ADAPTER:CONFIG --guarded ADAPTER:CONFIG]
  harness-risk coverage [--cases SEL]… [--json FILE] [--markdown FILE]
  harness-risk schema [--out DIR]
  harness-risk new case --phase P --entry-point E --effect F [--id ID] [--out DIR]
  harness-risk new adapter NAME [--out DIR]
  harness-risk doctor --adapter NAME|PATH [--config NAME[,NAME…]|all] [--acp-command CMD]
  harness-risk bisect --adapter NAME|PATH --config NAME --from V1 --to V2 [--cases SEL]…
  harness-risk --version | --help

Each command's options: harness-risk COMMAND --help.

Exit status: 0 pass or neutral, 1 when the gate fails (as the action's step would), 2 bad input,
130 interrupted.
`;

const RUN_OPTIONS = {
  ...RUN_FLAGS,
  out: { type: 'string' },
  'keep-evidence': { type: 'boolean', default: false },
  'no-install': { type: 'boolean', default: false },
  resume: { type: 'string' },
  quiet: { type: 'boolean', default: false },
  baseline: { type: 'string' },
  'base-ref': { type: 'string' },
  build: { type: 'string' },
  'base-cases': { type: 'string', multiple: true },
  markdown: { type: 'string' },
  json: { type: 'string' },
  ...GATE_FLAGS,
} as const;

type RunFlags = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof RUN_OPTIONS; strict: true }>
>['values'];

/** What `run` does, decided from its flags before any trial: every bad flag fails here. */
interface RunPlan {
  values: RunFlags;
  settings: RunSettings;
  model: Pick<RunOptions, 'model' | 'live' | 'replay'>;
  adapterName: string;
  configs: string[];
  source: BaselineSource;
  file?: Baseline;
  gate: GateOptions;
}

async function cmdRun(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: RUN_OPTIONS, strict: true });
  const plan = planRun(values);
  const stop = stopper();
  let failed = false;
  const colors = paint(colorEnabled(process.stdout));
  for (const config of plan.configs) {
    const r = await runConfig(plan, config, stop.signal, colors);
    if (r.failed) failed = true;
    // 141 = 128 + SIGPIPE, as a shell reports a pipeline's writer whose reader went away.
    if (r.interrupted) return stop.why() === 'output closed' ? 141 : 130;
  }
  return failed ? 1 : 0;
}

function planRun(values: RunFlags): RunPlan {
  // Bad gate flags or a missing baseline fail before minutes of trials are spent.
  const gate = gateOptionsFromFlags(values);
  const source = baselineSourceOf(values);
  const file = loadEarly(source);
  const wiring = values.wiring ? loadWiring(values.wiring) : undefined;
  if (wiring && (values.adapter || values.config))
    throw new UserError(
      `run: --wiring ${values.wiring} names the harness and its configuration`,
      'drop --adapter and --config (the wiring file says harness: and config:)',
    );
  if (!values.adapter && !wiring)
    throw new UserError(
      'run: --adapter is required',
      `use a built-in adapter (${listBuiltinAdapters().join(', ')}) or a path, or --wiring FILE`,
    );
  const adapterRef = wiring ? wiringAdapterRef(wiring) : values.adapter!;
  const adapter = loadAdapter(adapterRef);
  const names = wiring ? [wiring.wiring.name] : Object.keys(adapter.adapter.configs);
  // Silently running the first of several configurations measures something the user did not pick.
  if (!values.config && names.length > 1)
    throw new UserError(
      `run: --config is required: adapter ${adapter.adapter.name} has ${names.length} configurations (${names.join(', ')})`,
      `pick one or several: --config ${names[0]} or --config ${names.join(',')}`,
    );
  const configs = (values.config ?? names[0]!)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const parsed = runSettingsFromFlags({ ...values, adapter: adapterRef, config: configs[0] ?? '' });
  checkRunFlags(values, configs.length);
  // Before any trial: a bad model flag or a missing key fails now.
  const model = modelOptionsFromFlags(parsed, process.env);
  return {
    values,
    settings: parsed.settings,
    model,
    adapterName: adapter.adapter.name,
    configs,
    source,
    ...(file ? { file } : {}),
    gate,
  };
}

/** --baseline FILE, --base-ref REF, or neither; --build and --base-cases only with --base-ref. */
function baselineSourceOf(values: RunFlags): BaselineSource {
  const baseRef = values['base-ref'];
  if (baseRef && values.baseline)
    throw new UserError(
      '--base-ref and --baseline both name a baseline',
      'use --base-ref REF (build and run the base commit here) or --baseline FILE (a stored result)',
    );
  if (!baseRef && (values.build || values['base-cases']))
    throw new UserError(
      `--${values.build ? 'build' : 'base-cases'} is only used with --base-ref`,
      'add --base-ref REF (e.g. origin/main), or build your harness before harness-risk run',
    );
  if (baseRef && values.resume)
    throw new UserError('--resume continues a run of one tree', 'drop --base-ref to resume');
  return baseRef ? { kind: 'base', ref: baseRef } : baselineFlagSource(values.baseline);
}

/** Flags that name one file or one run cannot go with several configurations; outputs are checked now. */
function checkRunFlags(values: RunFlags, configs: number) {
  if ((values.markdown || values.json) && configs > 1)
    throw new UserError(
      '--markdown/--json name one file but --config names several',
      'run one config at a time, or use harness-risk compare on each result',
    );
  if (values.resume && configs > 1)
    throw new UserError(
      '--resume names one run but --config names several',
      'resume one config at a time: --config NAME --resume runs/ADAPTER-NAME.json',
    );
  if (values.out && configs > 1)
    throw new UserError(
      '--out names one file but --config names several',
      'drop --out (one file per config is written under runs/) or run one config at a time',
    );
  // Every output before the first trial: a path that cannot be written names its flag now.
  if (values.out) checkOutputPath(values.out, '--out');
  if (values.markdown) checkOutputPath(values.markdown, '--markdown');
  if (values.json) checkOutputPath(values.json, '--json');
}

/** SIGINT, SIGTERM or a closed output stop the run: finished trials are kept (resumable). */
function stopper(): { signal: AbortSignal; why: () => string | undefined } {
  const controller = new AbortController();
  let stoppedBy: string | undefined;
  const stop = (why: string) => {
    if (stoppedBy) return;
    stoppedBy = why;
    process.stderr.write(`\n${why}: stopping; finished trials are kept\n`);
    controller.abort();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  // `run … | head` or a pager quit: stop like an interrupt (the result kept, resumable, nothing left
  // mounted), never exit at once with the run half-written.
  onOutputClosed = () => stop('output closed');
  return { signal: controller.signal, why: () => stoppedBy };
}

/** One configuration: run (with the base tree for --base-ref), print, gate. */
async function runConfig(
  plan: RunPlan,
  config: string,
  signal: AbortSignal,
  colors: ReturnType<typeof paint>,
): Promise<{ failed: boolean; interrupted: boolean }> {
  const { values } = plan;
  const out =
    values.out ??
    (values.resume ? resumeResultPath(values.resume) : join('runs', `${plan.adapterName}-${config}.json`));
  const progress = progressFor(values.quiet);
  const runOptions: RunOptions = {
    ...plan.settings,
    config,
    ...plan.model,
    out,
    keep_evidence: values['keep-evidence'],
    ...(values['no-install'] ? { install: false } : {}),
    ...(values.resume ? { resume: values.resume } : {}),
    on_progress: progress.on,
    signal,
  };
  const { source } = plan;
  // --base-ref: the base commit built and run beside this checkout, as the action's baseline: base.
  const paired =
    source.kind === 'base' && source.ref
      ? await runWithBase({
          paired: runBaseAndHead,
          run: runOptions,
          headDir: process.cwd(),
          baseRef: source.ref,
          ...(values.build ? { build: values.build } : {}),
          ...(values['base-cases'] ? { baseCases: values['base-cases'] } : {}),
          env: process.env,
          log: (line) => progress.on({ kind: 'notice', message: line }),
        })
      : undefined;
  const result = paired ? paired.head : await runSafetyCases(runOptions);
  progress.finish();
  for (const b of paired?.builds ?? [])
    process.stderr.write(
      `\n${b.tree} build failed: ${sanitizeText(b.command, 200)}\n${sanitizeText(b.outcome.tail, 4000)}\n`,
    );
  if (paired) process.stdout.write(`\n${sanitizeText(paired.baselineUsed, 500)}\n`);
  process.stdout.write(
    `\n${plan.adapterName} / ${config}  (${result.trials.length} trials, result: ${out})\n${phaseTable(result)}\n`,
  );
  const closing = closingList(result, colors);
  if (closing) process.stdout.write(`${closing}\n`);
  // The action's reuse rule, by the same function: a named file is compared, what it differs in is said.
  const resolved = applyReuseRule(
    await resolveBaseline(source, {
      reportOnly: false,
      ...(plan.file ? { file: plan.file } : {}),
      ...(paired ? { paired } : {}),
    }),
    { kind: source.kind, ...(result.harness ? { now: result.harness } : {}) },
  );
  for (const n of resolved.notices) process.stdout.write(`${sanitizeText(n, 500)}\n`);
  const g = evaluateGate(
    gateInput({
      heads: [{ result, name: out }],
      resolved,
      options: plan.gate,
      scope: plan.settings.shard ? 'shard' : 'merge',
    }),
  );
  writeReports(g, plan.gate.failOn, values.markdown, values.json);
  process.stdout.write(`\n${verdictText(g)}\n`);
  const interrupted = result.status === 'interrupted';
  if (interrupted)
    process.stderr.write(
      `interrupted: ${result.trials.length} trial(s) kept in ${out}; continue with:\n  ${resumeCommand([...harnessArgs(result.adapter), ...identityFlags(values)], out, values.cases ?? [])}\n`,
    );
  return { failed: g.verdict.verdict === 'fail', interrupted };
}

/** The flags besides the harness and the cases that make a run the one a journal continues (resume.ts). */
function identityFlags(values: {
  seeds?: string;
  strategies?: string;
  shard?: string;
  activation?: boolean;
}) {
  const flags = (['seeds', 'strategies', 'shard'] as const).flatMap((n) => {
    const v = values[n];
    return v ? [`--${n}`, v] : [];
  });
  return values.activation ? [...flags, '--activation'] : flags;
}

/** The command that continues an interrupted run (shell-quoted). */
function resumeCommand(harness: string[], out: string, cases: string[]): string {
  const q = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const parts = ['npx', 'harness-risk', 'run', ...harness];
  for (const c of cases) parts.push('--cases', c);
  parts.push('--resume', out);
  return parts.map(q).join(' ');
}

/**
 * `harness-risk list cases | head -1`: the reader went away, which is not an error. Without this, the
 * next write throws EPIPE as an unhandled 'error' event with a stack trace.
 */
function quietOnClosedPipe() {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      // A running `run` stops cleanly (its result kept and resumable); anything else just ends.
      if (onOutputClosed) onOutputClosed();
      else process.exit(process.exitCode ?? 0);
    });
  }
}

/** Set by `run`: what a closed stdout/stderr does while trials run. */
let onOutputClosed: (() => void) | undefined;

export async function main(argv: string[]): Promise<number> {
  quietOnClosedPipe();
  try {
    return await dispatch(argv);
  } catch (e) {
    // node:util parseArgs reports flag mistakes as TypeErrors; they are the user's to fix. Either kind
    // points at the command's own help: the global help lists no command's flags.
    if ((e as NodeJS.ErrnoException)?.code?.startsWith('ERR_PARSE_ARGS')) {
      throw new UserError((e as Error).message, helpHint(argv[0]));
    }
    if (e instanceof FlagError) throw new UserError(e.problem, helpHint(argv[0]));
    throw e;
  }
}

/** `run harness-risk CMD --help` for a command with help of its own, else the global help. */
function helpHint(cmd: string | undefined): string {
  const own = cmd !== undefined && (helpFor(cmd) !== undefined || cmd === 'matrix' || cmd === 'compare');
  return `run harness-risk ${own ? `${cmd} ` : ''}--help`;
}

async function dispatch(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  // `harness-risk run --help` is how people ask: that command's flags (matrix and compare have their own).
  if (cmd !== 'matrix' && cmd !== 'compare' && (rest.includes('--help') || rest.includes('-h'))) {
    const help = helpFor(cmd ?? '');
    // A command that does not exist is named as such, not answered with the global help.
    if (help === undefined && cmd && !cmd.startsWith('-') && cmd !== 'help')
      throw new UserError(`unknown command "${cmd}"`, 'run harness-risk --help');
    process.stdout.write(help ?? USAGE);
    return 0;
  }
  switch (cmd) {
    case 'run':
      return cmdRun(rest);
    case 'matrix':
      return cmdMatrix(rest);
    case 'compare':
      return cmdCompare(rest);
    case 'list':
      return cmdList(rest);
    case 'schema':
      return cmdSchema(rest);
    case 'validate':
      return cmdValidate(rest);
    case 'coverage':
      return cmdCoverage(rest);
    case 'new':
      return cmdNew(rest);
    case 'bisect':
      return cmdBisect(rest);
    case 'doctor':
      return cmdDoctor(rest);
    case '--version':
    case '-v':
      process.stdout.write(`${VERSION}\n`);
      return 0;
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(USAGE);
      return cmd === undefined ? 2 : 0;
    default:
      throw new UserError(`unknown command "${cmd}"`, 'run harness-risk --help');
  }
}
