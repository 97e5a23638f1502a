// `harness-risk matrix`: the command-line face of runMatrix. Kept here so the CLI's dispatcher needs one line.
import { parseArgs } from 'node:util';
import type { ProgressEvent } from '../engine/options.js';
import { UserError } from '../errors.js';
import { parseAdapterSpecs, runMatrix } from './index.js';

function parseShard(s: string | undefined): { index: number; total: number } | undefined {
  if (!s) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(s.trim());
  if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2]))
    throw new UserError(`--shard "${s}" is not of the form I/N`, 'for example --shard 1/6');
  return { index: Number(m[1]), total: Number(m[2]) };
}

export const MATRIX_USAGE = `  harness-risk matrix --adapter NAME[:CONFIG,…] [--adapter …]… [--cases SEL]… --out DIR [options]

matrix options (as for run, plus):
  --adapter SPEC     adapter (name or path) and its configurations, e.g. codex:read-only,danger-full-access;
                     no configurations = all of them (repeatable)
  --out DIR          writes DIR/matrix.md, DIR/matrix.json and one run result per cell under DIR/runs/
  --shard I/N        only shard I of N of the selected cases (stable by case id), e.g. to sample a slow harness
  --resume           reuse cells whose run result under DIR/runs/ is already complete
  --no-install       do not install missing harnesses into the cache first
`;

function positiveInt(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UserError(`${name} "${v}" must be a positive whole number`);
  return n;
}

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
      runner: { type: 'string', default: 'process' },
      image: { type: 'string' },
      concurrency: { type: 'string' },
      timeout: { type: 'string' },
      seeds: { type: 'string' },
      resume: { type: 'boolean', default: false },
      shard: { type: 'string' },
      'no-install': { type: 'boolean', default: false },
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
  if (values.runner !== 'process' && values.runner !== 'docker')
    throw new UserError(`--runner "${values.runner}" is unknown`, 'use process or docker');

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
    runner: values.runner,
    image: values.image,
    concurrency: positiveInt('--concurrency', values.concurrency, 2),
    timeout_s: values.timeout ? positiveInt('--timeout', values.timeout, 0) : undefined,
    seeds: positiveInt('--seeds', values.seeds, 1),
    resume: values.resume,
    shard: parseShard(values.shard),
    install: !values['no-install'],
    keep_evidence: values['keep-evidence'],
    command: ['harness-risk', 'matrix', ...argv].map(shellQuote).join(' '),
    on_progress: progress,
    signal: controller.signal,
  });
  const invalid = matrix.cells.reduce((n, c) => n + (c.trials - c.valid), 0);
  process.stdout.write(
    `matrix: ${matrix.cells.length} configuration(s) × ${matrix.cases.ids.length} case(s) → ${values.out}/matrix.md, matrix.json` +
      (invalid ? ` (${invalid} invalid trial(s))` : '') +
      '\n',
  );
  return controller.signal.aborted ? 130 : 0;
}
