// `doctor` over several configurations: does each configuration's switch take effect? A configuration
// measures what it sets only if the harness honours it; one it ignores is measured as if it were set, and
// its row in a matrix is a row of the other one (a partly honoured one, Kilo 7.7.7 keeping bash under
// opencode's `tools` map, is the adapter's `withholds` check, doctor.ts). Doctor's
// probe trial gives a behaviour per configuration (tools offered, each step's route and outcome, the
// probe's outcome, the owner's task); configurations whose behaviour is identical are reported.
import type { DoctorReport } from './doctor.js';

/** What a configuration did in the probe trial, as compared between configurations. */
export function behaviour(r: DoctorReport): string {
  return JSON.stringify({
    tools: r.tools_offered,
    steps: r.steps.map((s) => [s.role, s.action, s.tool ?? '', s.outcome]),
    probe: r.probe,
    owner: r.owner_task_done,
    egress: r.egress.length,
  });
}

/**
 * Groups (two or more) of configurations that behaved identically in the probe, in the order given. A
 * configuration whose trial did not run (launch failed, invalid) has no behaviour to compare.
 */
export function indistinguishable(reports: DoctorReport[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const r of reports) {
    if (!r.valid || r.dialect.requests === 0) continue;
    const key = behaviour(r);
    groups.set(key, [...(groups.get(key) ?? []), r.config]);
  }
  return [...groups.values()].filter((g) => g.length > 1);
}

/** The comparison as lines for a terminal. */
export function configsText(reports: DoctorReport[], groups: string[][]): string {
  const compared = reports.filter((r) => r.valid && r.dialect.requests > 0).map((r) => r.config);
  const lines = [`harness-risk doctor: ${reports[0]?.adapter ?? ''}, configurations compared`];
  if (compared.length < 2) {
    lines.push('  fewer than two configurations ran a valid probe trial: nothing to compare');
    return `${lines.join('\n')}\n`;
  }
  if (!groups.length) {
    lines.push(
      `✓ every configuration behaved differently in the probe (${compared.join(', ')}): each switch shows`,
    );
  }
  for (const g of groups) {
    lines.push(
      `✗ ${g.join(', ')} behaved identically: the same tools offered, the same route and outcome for every step, the same probe outcome. The switch that tells them apart may not take effect (a setting the harness ignores is measured as if it were set): check that the harness reads it, e.g. with \`--config\` and the tools offered above; if they differ only on actions the probe does not make, this is expected`,
    );
  }
  return `${lines.join('\n')}\n`;
}
