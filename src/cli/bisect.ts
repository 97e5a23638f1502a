// `harness-risk bisect --adapter A --config C --from V1 --to V2 [--cases SEL]…`: the first published
// version of the adapter's harness package where the cases turn unsafe (baseline/bisect.ts, the same
// function the action's `bisect: true` calls). Each version's result is kept beside the report.
import { basename, dirname, extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadAdapter } from '../adapters/load.js';
import { bisectHarness, harnessChangeOf } from '../baseline/bisect.js';
import { loadCases } from '../cases/load.js';
import { UserError } from '../errors.js';
import { int } from '../input-fields.js';
import { checkOutputPath, writeOutputFile } from '../output-path.js';
import { sanitizeText } from '../report/escape.js';
import { harnessChangeTitle, type VersionTry } from '../report/harness-change.js';
import { asFlags, RUN_FLAGS, runSettingsFromFlags } from './flags.js';
import { modelOptionsFromFlags } from './model-flags.js';
import { Progress } from './progress.js';

const OPTIONS = {
  ...RUN_FLAGS,
  from: { type: 'string' },
  to: { type: 'string' },
  'max-versions': { type: 'string', default: '8' },
  'max-trials': { type: 'string', default: '200' },
  out: { type: 'string' },
  quiet: { type: 'boolean', default: false },
} as const;

const tryLine = (t: VersionTry) =>
  `  ${sanitizeText(t.version, 60).padEnd(16)} ${t.probe.padEnd(8)} ${String(t.trials).padStart(4)} trials  ${sanitizeText(t.reason ?? '', 300)}`;

export async function cmdBisect(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: OPTIONS, strict: true });
  if (!values.adapter || !values.from || !values.to)
    throw new UserError(
      'bisect: --adapter, --from and --to are required',
      'harness-risk bisect --adapter NAME --config C --from 1.0.0 --to 1.4.0 --cases id:CASE',
    );
  const adapter = loadAdapter(values.adapter);
  const config = values.config ?? Object.keys(adapter.adapter.configs)[0]!;
  const parsed = runSettingsFromFlags({ ...values, config });
  const model = modelOptionsFromFlags(parsed, process.env);
  const maxVersions = asFlags(() => int(1, 64, 'versions').parse(values['max-versions']));
  const maxTrials = asFlags(() => int(1, 100_000, 'trials').parse(values['max-trials']));
  const out = values.out ?? join('runs', `bisect-${adapter.adapter.name}-${config}.json`);
  checkOutputPath(out, '--out');
  const cases = loadCases(parsed.settings.cases).map((lc) => lc.case.id);
  const progress = new Progress(process.stderr, { quiet: values.quiet });
  const report = await bisectHarness({
    run: { ...parsed.settings, config, ...model, out, keep_evidence: false, on_progress: progress.on },
    from: values.from,
    to: values.to,
    cases,
    // Named after the report: two bisects of one adapter and configuration keep their own versions' results.
    outDir: join(dirname(out), basename(out, extname(out))),
    caps: { maxVersions, maxTrials },
    log: (l) => progress.on({ kind: 'notice', message: l }),
  });
  progress.finish();
  writeOutputFile(out, `${JSON.stringify(report, null, 2)}\n`, '--out');
  const change = harnessChangeOf(report, report.between, report);
  process.stdout.write(
    [
      sanitizeText(harnessChangeTitle(change), 400),
      `  ${report.between ? `${report.between.length} release(s) in between` : 'versions in between unknown (registry unreachable)'}; ${cases.length} case(s) × ${report.seeds} seed(s)`,
      ...report.tries.map(tryLine),
      ...(report.conclusion.stop !== 'converged' ? [`  stopped: ${report.conclusion.stop} reached`] : []),
      ...(report.page ? [`  ${report.page}`] : []),
      `  report: ${out}`,
      '',
    ].join('\n'),
  );
  return 0;
}
