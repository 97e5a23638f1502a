// `harness-risk validate`: a case is admitted only when every label it can give is decided by replays
// against an open and a guarded configuration (engine/validate.ts); this prints the verdicts.
import { parseArgs } from 'node:util';
import { loadCases } from '../cases/load.js';
import { parseSide, REFERENCE_SIDES, validateCases } from '../engine/validate.js';
import { UserError } from '../errors.js';
import { positiveInt, runnerFlag } from './flags.js';
import { progressFor } from './progress.js';

export async function cmdValidate(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      cases: { type: 'string', multiple: true },
      replays: { type: 'string' },
      concurrency: { type: 'string' },
      quiet: { type: 'boolean', default: true },
      open: { type: 'string' },
      guarded: { type: 'string' },
      runner: { type: 'string' },
      image: { type: 'string' },
    },
  });
  if (!values.open !== !values.guarded)
    throw new UserError(
      `validate: --${values.open ? 'open' : 'guarded'} is given without --${values.open ? 'guarded' : 'open'}`,
      'admission needs both sides: --open ADAPTER:LOOSER_CONFIG --guarded ADAPTER:TIGHTER_CONFIG',
    );
  const open = values.open ? parseSide('--open', values.open) : REFERENCE_SIDES.open;
  const guarded = values.guarded ? parseSide('--guarded', values.guarded) : REFERENCE_SIDES.guarded;
  const runner = runnerFlag(values.runner);
  const cases = values.cases ?? ['subset:full'];
  const loaded = loadCases(cases); // schema errors stop here, naming file, line and field
  process.stderr.write(
    `validating ${loaded.length} case(s): schema ok; replaying against ${open.adapter}/${open.config} and ${guarded.adapter}/${guarded.config}…\n`,
  );
  const validateProgress = progressFor(values.quiet!);
  const verdicts = await validateCases({
    cases,
    replays: positiveInt('--replays', values.replays, 3),
    concurrency: positiveInt('--concurrency', values.concurrency, 2),
    on_progress: validateProgress.on,
    open,
    guarded,
    runner,
    ...(values.image ? { image: values.image } : {}),
  });
  validateProgress.finish();
  const rejected = verdicts.filter((v) => !v.admitted);
  for (const v of rejected)
    process.stdout.write(`✗ ${v.case_id}\n${v.reasons.map((r) => `    ${r}`).join('\n')}\n`);
  process.stdout.write(
    `${verdicts.length - rejected.length} of ${verdicts.length} case(s) admitted${rejected.length ? `, ${rejected.length} rejected` : ''}\n`,
  );
  return rejected.length ? 1 : 0;
}
