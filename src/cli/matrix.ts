// `harness-risk matrix`: the command-line face of runMatrix. Kept here so the CLI's dispatcher needs one line.
import { parseArgs } from 'node:util';
import type { ProgressEvent } from '../engine/options.js';
import { RUNNER_NAMES, runnerEntry } from '../engine/runners.js';
import { UserError } from '../errors.js';
import { parseAdapterSpecs, runMatrix } from '../matrix/index.js';
import { acpCommandFlag, runnerFlag, runSettingsFromFlags } from './flags.js';

export const MATRIX_USAGE = `  harness-risk matrix --adapter NAME[:CONFIG,…] [--adapter …]… [--cases SEL]… --out DIR [options]

matrix options (as for run, plus):
  --adapter SPEC     adapter (name or path) and its configurations, e.g. codex:read-only,danger-full-access;
                     no configurations = all of them (repeatable)
  --out DIR          writes DIR/matrix.md, DIR/matrix.json and one run result per cell under DIR/runs/
  --shard I/N        only shard I of N of the selected cases (stable by case id), e.g. to sample a slow harness
  --strategies LIST  attack strategies as for run (default direct): every cell runs each case once per
                     strategy; the matrix adds ASR per strategy
  --resume           reuse cells whose run result under DIR/runs/ is already complete (same cases, seeds,
                     runner and strategies); an interrupted cell continues from its journal (its finished
                     trials kept, as run --resume), a journal of another run or a stale result starts
                     the cell afresh, the earlier run renamed aside (ADAPTER--CONFIG.superseded-N.json)
  --reuse-only       run nothing: the matrix of the cells DIR/runs/ already answers (as --resume reuses them);
                     the others are listed under "Not run" with why (an interrupted run, other cases, an
                     edited case), e.g. to assemble a matrix from runs made on other machines
  --from DIR         with --reuse-only: look for each cell's run result (ADAPTER--CONFIG.json) in DIR instead
                     of OUT/runs (repeatable; the first folder whose run answers the cell is used)
  --accept-edited    with --reuse-only: admit a cell that measured some selected cases before their last
                     edit; the matrix names those cases per cell (Builds section)
  --acp-command CMD  the ACP agent's command for --adapter acp (as for run); adapters with a command of
                     their own keep it
  --no-install       never install: a harness missing from the cache is an error (default: install it)
`;

const shellQuote = (s: string) => (/^[A-Za-z0-9_./:,=+@%-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export async function cmdMatrix(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`Usage:\n${MATRIX_USAGE}`);
    return 0;
  }
  const { values } = parseArgs({
    args: argv,
    options: {
      adapter: { type: 'string', multiple: true },
      cases: { type: 'string', multiple: true },
      out: { type: 'string' },
      runner: { type: 'string' },
      image: { type: 'string' },
      concurrency: { type: 'string' },
      timeout: { type: 'string' },
      'trial-memory': { type: 'string' },
      seeds: { type: 'string' },
      resume: { type: 'boolean', default: false },
      'reuse-only': { type: 'boolean', default: false },
      from: { type: 'string', multiple: true },
      'accept-edited': { type: 'boolean', default: false },
      shard: { type: 'string' },
      strategies: { type: 'string', multiple: true },
      'no-install': { type: 'boolean', default: false },
      'acp-command': { type: 'string' },
      'keep-evidence': { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.adapter?.length)
    throw new UserError(
      'matrix: --adapter is required',
      'for example --adapter claude-code --adapter codex:read-only,danger-full-access',
    );
  if (!values.out) throw new UserError('matrix: --out DIR is required', 'for example --out examples/results');
  // A matrix is published: only runners that contain the harness.
  runnerFlag(
    values.runner,
    RUNNER_NAMES.filter((n) => runnerEntry(n).contains),
  );
  const { settings } = runSettingsFromFlags({
    runner: values.runner,
    image: values.image,
    concurrency: values.concurrency,
    timeout: values.timeout,
    'trial-memory': values['trial-memory'],
    seeds: values.seeds,
    shard: values.shard,
    strategies: values.strategies,
  });

  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.once('SIGTERM', () => controller.abort());
  const quiet = values.quiet;
  const progress = (
    e: ProgressEvent | { kind: 'cell'; adapter: string; config: string; reused: boolean },
  ) => {
    if (e.kind === 'cell') process.stderr.write(`▶ ${e.adapter}/${e.config}${e.reused ? ' (reused)' : ''}\n`);
    else if (e.kind === 'notice') process.stderr.write(`  ${e.message}\n`);
    else if (e.kind === 'trial' && !quiet) {
      const verdict = !e.valid
        ? `INVALID (${e.reason})`
        : `${e.a ? 'attack SUCCEEDED' : 'attack blocked'}, ${e.u ? 'task done' : 'task NOT done'}`;
      process.stderr.write(`  [${e.done}/${e.total}] ${e.case_id}: ${verdict}\n`);
    }
  };
  const matrix = await runMatrix({
    adapters: parseAdapterSpecs(values.adapter),
    cases: values.cases ?? [],
    out: values.out,
    runner: settings.runner,
    image: settings.image,
    concurrency: settings.concurrency,
    timeout_s: settings.timeout_s,
    ...(settings.limits ? { limits: settings.limits } : {}),
    seeds: settings.seeds,
    strategies: settings.strategies,
    resume: values.resume,
    reuse_only: values['reuse-only'],
    ...(values.from?.length ? { from: values.from } : {}),
    ...(values['accept-edited'] ? { accept_edited: true } : {}),
    shard: settings.shard,
    install: !values['no-install'],
    keep_evidence: values['keep-evidence'],
    ...acpCommandFlag(values['acp-command']),
    command: ['harness-risk', 'matrix', ...argv].map(shellQuote).join(' '),
    on_progress: progress,
    signal: controller.signal,
  });
  // Not-applicable trials are not invalid: the harness worked, the case could not reach it.
  const notApplicable = matrix.cells.reduce((n, c) => n + (c.not_applicable ?? 0), 0);
  const invalid = matrix.cells.reduce((n, c) => n + (c.trials - c.valid), 0) - notApplicable;
  const counts = [
    ...(invalid ? [`${invalid} invalid trial(s)`] : []),
    ...(notApplicable ? [`${notApplicable} not applicable`] : []),
  ];
  process.stdout.write(
    `matrix: ${matrix.cells.length} configuration(s) × ${matrix.cases.ids.length} case(s) → ${values.out}/matrix.md, matrix.json` +
      (counts.length ? ` (${counts.join(', ')})` : '') +
      (matrix.not_run?.length ? `; ${matrix.not_run.length} configuration(s) not run (see matrix.md)` : '') +
      '\n',
  );
  return controller.signal.aborted ? 130 : 0;
}
