// `harness-risk doctor --adapter X [--config C]`: one harmless trial, then what the adapter still lacks.

import { parseArgs } from 'node:util';
import { doctorAdapter, doctorText } from '../engine/doctor.js';
import { UserError } from '../errors.js';
import { checkOutputPath, writeOutputFile } from '../output-path.js';
import { acpCommandFlag, runnerFlag } from './flags.js';

export async function cmdDoctor(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      adapter: { type: 'string' },
      config: { type: 'string' },
      runner: { type: 'string' },
      image: { type: 'string' },
      json: { type: 'string' },
      'acp-command': { type: 'string' },
    },
  });
  if (!values.adapter)
    throw new UserError(
      'doctor: --adapter is required',
      'harness-risk doctor --adapter ./adapters/NAME --config CONFIG',
    );
  const runner = runnerFlag(values.runner);
  if (values.json) checkOutputPath(values.json, '--json');
  const report = await doctorAdapter({
    adapter: values.adapter,
    ...(values.config ? { config: values.config } : {}),
    runner,
    ...(values.image ? { image: values.image } : {}),
    ...acpCommandFlag(values['acp-command']),
  });
  if (values.json) writeOutputFile(values.json, `${JSON.stringify(report, null, 2)}\n`, '--json');
  process.stdout.write(doctorText(report));
  const clean =
    report.valid &&
    report.dialect.requests > 0 &&
    !report.undeclared_home.length &&
    !report.egress.length &&
    report.probe !== 'refused (not recognised)' &&
    report.owner_task_done;
  return clean ? 0 : 1;
}
