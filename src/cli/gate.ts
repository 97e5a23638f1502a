import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { gateInput, resolveBaseline } from '../baseline/resolve.js';
import type { BaselineSource } from '../baseline/source.js';
import { readRunResultFile } from '../compare/baseline.js';
import { UserError } from '../errors.js';
import { evaluateGate, type GateOptions, type GateOutcome } from '../gate/index.js';
import { exitCodeOf } from '../gate/verdict.js';
import { writeOutputFile } from '../output-path.js';
import { sanitizeText } from '../report/escape.js';
import { buildReport, renderReport } from '../report/markdown.js';
import { expandResultFiles, ResultFilesError } from '../result/files.js';
import { GATE_FLAGS, gateOptionsFromFlags } from './flags.js';
import { phaseTable } from './phase-table.js';

/** `--baseline FILE` as a baseline source; without it there is none. */
export const baselineFlagSource = (path: string | undefined): BaselineSource =>
  path ? { kind: 'file', path } : { kind: 'none', unset: 'no --baseline given' };

/** The verdict and why, for a terminal (agent-derived text sanitised: no control sequences). */
export function verdictText(g: GateOutcome): string {
  const v = g.verdict;
  const lines = [
    ...v.findings
      .filter((f) => f.gating || f.blocksSuccess)
      .map((f) => `  ${f.gating ? 'FAIL' : 'not green'}: ${sanitizeText(f.message, 1000)}`),
    ...v.notes.map((n) => `  note: ${sanitizeText(n, 1000)}`),
    // What a used baseline differs in (harness version, engine, runner, case revisions), as the action's report says it.
    ...v.findings
      .filter((f) => f.kind === 'attestation' && !f.gating && !f.blocksSuccess)
      .map((f) => `  baseline: ${sanitizeText(f.message, 1000)}`),
  ];
  const head =
    v.verdict === 'fail'
      ? 'verdict: fail'
      : v.verdict === 'neutral'
        ? 'verdict: neutral (nothing fails, but not everything was measured or compared)'
        : 'verdict: pass';
  return [head, ...lines].join('\n');
}

/** The full markdown report and a JSON verdict, when asked for (`--markdown`, `--json`). */
export function writeReports(
  g: GateOutcome,
  failOn: GateOptions['failOn'],
  markdown?: string,
  json?: string,
) {
  if (markdown) {
    const doc = buildReport({ ...g, failOn });
    writeOutputFile(
      markdown,
      `${renderReport(doc, { limit: Number.MAX_SAFE_INTEGER, unit: 'chars' })}\n`,
      '--markdown',
    );
  }
  if (json) {
    writeOutputFile(
      json,
      `${JSON.stringify(
        {
          verdict: g.verdict.verdict,
          conclusion: g.verdict.conclusion,
          findings: g.verdict.findings,
          regressions: g.comparison.regressions.map((c) => c.id),
          regressed_phases: g.comparison.regressedPhases,
          summary: g.current.summary,
        },
        null,
        2,
      )}\n`,
      '--json',
    );
  }
}

const HELP = `harness-risk compare --head FILE|DIR… [--baseline FILE] [gate options]

Decides the verdict exactly as the action does, from run result files: merges the heads (shards must
be complete), compares them with the baseline and applies fail-on and the thresholds.
Exit status: 1 when the verdict is fail (the action's step would fail), 0 for pass and neutral, 2 for
bad input.

  --head FILE|DIR      run result(s) to judge (repeatable; a folder means its *.json files); base-tree
                       results among them (x.base.json, written by run --base-ref or baseline: base)
                       are the baseline, merged and checked like shards
  --baseline FILE      the baseline run result (none: nothing is compared)
  --fail-on LIST       regression,threshold,invalid,uncontained or never (default regression,threshold,invalid)
  --on-missing-baseline neutral|fail|pass   (default neutral)
  --max-invalid F      largest share of invalid trials (default 10%)
  --max-asr F  --max-persistence F  --max-activated F  --min-css F  --phase-thresholds YAML
  --alpha F  --min-effect F
  --markdown FILE      also write the full report (what the PR comment shows)
  --json FILE          also write the verdict and findings as JSON
  --untrusted WHY      the head results were produced where the change's author controls the harness
                       and the job (a fork's run): shown, never a pass (the action decides it for a
                       workflow_run on a fork's artifact)
`;

export async function cmdCompare(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { values } = parseArgs({
    args: argv,
    options: {
      head: { type: 'string', multiple: true },
      baseline: { type: 'string' },
      markdown: { type: 'string' },
      json: { type: 'string' },
      untrusted: { type: 'string' },
      ...GATE_FLAGS,
    },
    strict: true,
  });
  if (!values.head?.length)
    throw new UserError(
      'compare: --head is required',
      'give the run result(s) to judge: --head FILE (repeatable)',
    );
  const options = gateOptionsFromFlags(values);
  let files: string[];
  try {
    files = expandResultFiles(values.head, process.cwd());
  } catch (e) {
    if (e instanceof ResultFilesError) throw new UserError(`--head ${e.message}`);
    throw e;
  }
  const heads = files.map((f) => ({ result: readRunResultFile(f), name: relative(process.cwd(), f) || f }));
  const resolved = await resolveBaseline(baselineFlagSource(values.baseline), { reportOnly: true });
  const untrusted = values.untrusted?.trim();
  const g = evaluateGate(gateInput({ heads, resolved, options, ...(untrusted ? { untrusted } : {}) }));
  writeReports(g, options.failOn, values.markdown, values.json);
  process.stdout.write(
    `${sanitizeText(g.current.adapter.name, 100)} / ${sanitizeText(g.current.adapter.config, 100)}  (${g.current.trials.length} trials from ${files.length} file${files.length === 1 ? '' : 's'}${resolved.baseline ? `, baseline ${values.baseline}` : ''})\n${phaseTable(g.current)}\n\n${verdictText(g)}\n`,
  );
  return exitCodeOf(g.verdict);
}
