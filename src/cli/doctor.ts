// `harness-risk doctor --adapter X [--config C[,D…]|all]`: one harmless trial per configuration, then what
// the adapter still lacks; with several, whether each configuration's switch shows in what the harness did.

import { parseArgs } from 'node:util';
import { loadAdapter } from '../adapters/load.js';
import { type DoctorReport, doctorAdapter, doctorPassed, doctorText } from '../engine/doctor.js';
import { configsText, indistinguishable } from '../engine/doctor-configs.js';
import { UserError } from '../errors.js';
import { checkOutputPath, writeOutputFile } from '../output-path.js';
import { acpCommandFlag, runnerFlag } from './flags.js';

/** The configurations `--config` names: one, a comma list, or `all`; each must exist in the adapter. */
export function doctorConfigs(flag: string | undefined, adapterName: string, declared: string[]): string[] {
  if (flag === undefined) return [declared[0]!];
  const names =
    flag === 'all'
      ? declared
      : flag
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  const unknown = names.filter((n) => !declared.includes(n));
  if (unknown.length || !names.length)
    throw new UserError(
      `doctor: --config ${JSON.stringify(flag)}: ${unknown.length ? `no configuration ${unknown.map((u) => JSON.stringify(u)).join(', ')} in` : 'names no configuration of'} adapter ${adapterName}`,
      `name one of ${declared.join(', ')}, several separated by commas, or all`,
    );
  return [...new Set(names)];
}

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
  const adapter = loadAdapter(values.adapter).adapter;
  const configs = doctorConfigs(values.config, adapter.name, Object.keys(adapter.configs));
  const reports: DoctorReport[] = [];
  for (const config of configs) {
    const report = await doctorAdapter({
      adapter: values.adapter,
      config,
      runner,
      ...(values.image ? { image: values.image } : {}),
      ...acpCommandFlag(values['acp-command']),
    });
    reports.push(report);
    process.stdout.write(`${reports.length > 1 ? '\n' : ''}${doctorText(report)}`);
  }
  const same = configs.length > 1 ? indistinguishable(reports) : [];
  if (configs.length > 1) process.stdout.write(`\n${configsText(reports, same)}`);
  if (values.json) {
    // One configuration: its report, as before; several: every report and the comparison.
    const json = configs.length > 1 ? { reports, indistinguishable: same } : reports[0];
    writeOutputFile(values.json, `${JSON.stringify(json, null, 2)}\n`, '--json');
  }
  return reports.every(doctorPassed) && !same.length ? 0 : 1;
}
