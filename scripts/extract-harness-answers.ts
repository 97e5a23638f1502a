#!/usr/bin/env -S npx tsx
// Re-extracts test/fixtures/harness-answers/<harness>.json from real trials kept with --keep-evidence:
// per call the scripted model made, the answer text as the harness returned it to the model, its error
// flag, and what the world showed (the file the write names changed or not; the service requests that
// came in between the call and its answer, with their status). test/outcomes-recorded.test.ts holds the
// hand-checked outcome of every row and runs the engine's own functions over them.
//
//   export HARNESS_RISK_CACHE=/var/cache/harness-risk/harnesses
//   node dist/cli.js run --adapter codex --config workspace-write --cases id:CASE --keep-evidence \
//     --out /tmp/f/codex--workspace-write--NAME.json --quiet --concurrency 1
//   npx tsx scripts/extract-harness-answers.ts [--out test/fixtures/harness-answers] /tmp/f/*.json
//
// The committed fixture came from these trials (adapter config case; `shapes` is the probe
// test/fixtures/harness-answers/cases/answer-shapes.yaml), given to the script in this order:
//   reference open: shell-tips-page-aliases-bashrc, shapes, plugin-homepage-pip-hooks
//   reference guarded: shell-tips-page-aliases-bashrc, shapes
//   claude-code bypassPermissions: shell-tips-page-aliases-bashrc, shapes
//   claude-code default: shell-tips-page-aliases-bashrc, shapes
//   claude-code acceptEdits: ci-hardening-blog-widens-permissions, setup-guide-disables-approval,
//     devcontainer-readme-global-githooks
//   codex danger-full-access: shapes; codex workspace-write: shapes, shell-tips-page-aliases-bashrc,
//     ci-hardening-blog-widens-permissions, devcontainer-readme-global-githooks;
//     codex read-only: setup-guide-disables-approval
//   pi default: shell-tips-page-aliases-bashrc, shapes, ci-hardening-blog-widens-permissions,
//     setup-guide-disables-approval; pi read-only-tools: devcontainer-readme-global-githooks, shapes
//   openclaw exec-full: shell-tips-page-aliases-bashrc, shapes; openclaw exec-deny:
//     shell-tips-page-aliases-bashrc, shapes
// After re-recording, check every row's outcome by hand in test/outcomes-recorded.test.ts (the test fails
// on a row without one); the script warns where today's engine disagrees with what it recorded.
//
// Each RESULT.json needs its RESULT.evidence folder beside it. Rows are written per harness (every file
// named on the command line for that harness, in order); an answer shape seen before (shapeOf) is kept
// once. Trial folders, the services URL, the harness cache and canary values become
// placeholders; long texts are cut (kept past 300 characters, so a long answer stays long for outcomeOf).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { loadAdapter } from '../src/adapters/load.js';
import { parseHarnessOutput } from '../src/adapters/parsers/index.js';
import { loadCases } from '../src/cases/load.js';
import { statedFor } from '../src/checks/call-outcomes.js';
import { exitStatus } from '../src/evidence/exit-status.js';
import { callKey, type Evidence, type ServiceRequest, type ToolCallRecord } from '../src/evidence/types.js';
import type { Action } from '../src/spec/actions.js';
import {
  type AnswerRow,
  outcomeOfRow,
  type RecordedWorld,
  wordsOf,
} from '../test/support/recorded-answers.js';

const MAX_TEXT = 600;

function parseArgs(argv: string[]): { out: string; results: string[] } {
  const i = argv.indexOf('--out');
  const out = i >= 0 ? argv[i + 1] : 'test/fixtures/harness-answers';
  const results = argv.filter((a, j) => a !== '--out' && (i < 0 || j !== i + 1));
  if (!out || results.length === 0) {
    console.error('usage: npx tsx scripts/extract-harness-answers.ts [--out DIR] RESULT.json…');
    process.exit(2);
  }
  return { out, results };
}

/** Trial-specific strings → placeholders, longest first. */
function normalise(text: string, canaries: Record<string, string>): string {
  let s = text;
  for (const [name, value] of Object.entries(canaries).sort((a, b) => b[1].length - a[1].length))
    if (value) s = s.split(value).join(`{{canary:${name}}}`);
  return s
    .replace(/\/tmp\/harness-risk-[^/\s'"]+\/trial-[^/\s'"]+\/(workspace|home|tmp)/g, '{{$1}}')
    .replace(/\/tmp\/harness-risk-[^/\s'"]+\/trial-[^/\s'"]+/g, '{{trial}}')
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, '{{svc}}')
    .replace(/\/var\/cache\/harness-risk\/harnesses/g, '{{cache}}')
    .replace(/(^|[\s'"=:(])\/root\//g, '$1{{host-home}}/');
}

const cut = (s: string): string =>
  s.length <= MAX_TEXT ? s : `${s.slice(0, MAX_TEXT)}…[${s.length - MAX_TEXT} more characters cut]`;

/** The service an action's effect addresses (world-check.ts effectOf): null = any service. */
function serviceOf(action: Action): string | null | undefined {
  switch (action.do) {
    case 'send':
      return action.channel;
    case 'call':
      return action.service;
    case 'install':
      return 'registry';
    case 'fetch':
      return null;
    default:
      return undefined;
  }
}

function worldOf(
  action: Action | undefined,
  recorded: { achieved: boolean; reason: string } | undefined,
  window: ServiceRequest[],
): RecordedWorld | undefined {
  if (!action || !recorded) return undefined;
  if (action.do === 'write') {
    // The engine compares the file's digest before the call and when its answer came in.
    if (recorded.achieved) return { file: 'changed' };
    return { file: /does not exist/.test(recorded.reason) ? 'missing' : 'unchanged' };
  }
  const service = serviceOf(action);
  if (service === undefined) return undefined;
  const requests = window.map((r) => ({
    service: r.service,
    op: r.op,
    status: r.status,
    ...(r.refused ? { refused: r.refused.slice(0, 120) } : {}),
  }));
  return { service, requests };
}

function rowsOf(resultFile: string): { harness: string; rows: AnswerRow[] } {
  const result = JSON.parse(readFileSync(resultFile, 'utf8'));
  const evidenceDir = resultFile.replace(/\.json$/, '.evidence');
  if (!existsSync(evidenceDir))
    throw new Error(`${resultFile}: no ${basename(evidenceDir)} beside it (run with --keep-evidence)`);
  const harness: string = result.adapter.name;
  const config: string = result.adapter.config;
  const output = loadAdapter(harness).adapter.output;
  const cases = new Map(
    loadCases(result.cases.map((c: { file: string }) => c.file)).map((lc) => [lc.case.id, lc.case]),
  );
  const rows: AnswerRow[] = [];
  for (const trial of result.trials as { id: string; case_id: string }[]) {
    const c = cases.get(trial.case_id);
    const ev: Evidence = JSON.parse(readFileSync(join(evidenceDir, `${trial.id}.json`), 'utf8'));
    // The harness's own statements about calls, read again from its kept output by today's rules (the
    // events stored in older evidence do not name their call).
    const events = parseHarnessOutput(output, ev.process.stdout ?? '', ev.process.stderr ?? '');
    const calls = new Map<string, { call: ToolCallRecord; seq: number }>();
    let n = 0;
    for (const ex of ev.model) {
      for (const r of ex.results) {
        const issued = calls.get(callKey(r.call_id));
        if (!issued?.call.step) continue;
        const { call, seq } = issued;
        const step = call.step!;
        const action =
          step.role === 'attack'
            ? c?.inject.goal[step.index]
            : (c?.owner.plan[step.index] as Action | undefined);
        // The requests that came in between the call and its answer: the engine's window for this call.
        const window = ev.services.filter((s) => s.seq > seq && s.seq < ex.seq);
        const world = worldOf(action, r.world, window);
        const stated = statedFor(r.call_id, events)?.kind;
        rows.push({
          id: `${config} ${trial.case_id} #${++n}`,
          from: `case ${trial.case_id}, config ${config}`,
          role: step.role,
          action: call.action ?? '?',
          tool: call.tool,
          text: cut(normalise(r.text, ev.canaries)),
          is_error: r.is_error,
          ...(world ? { world } : {}),
          ...(stated ? { stated } : {}),
          ...(r.outcome ? { recorded: r.outcome } : {}),
        });
      }
      if (ex.response.kind === 'tool_calls')
        for (const call of ex.response.calls) calls.set(callKey(call.id), { call, seq: ex.seq });
    }
  }
  return { harness, rows };
}

/**
 * Two rows are the same answer shape when tool, action, flag, world, exit status and recorded outcome
 * agree and the text opens the same way once ids and counts are masked ("DENIED by policy (egress): …"
 * for curl and for wget is one shape; codex's "Chunk ID: 4dfa65 … Wall time: 0.05 seconds" header is
 * the same header every time): the fixture stays small.
 */
const shapeOf = (r: AnswerRow): string =>
  JSON.stringify([
    r.tool,
    r.action,
    r.is_error,
    r.world,
    r.stated,
    r.recorded,
    exitStatus(r.text),
    r.text
      .replace(/\b[0-9a-f]{6,}\b/g, '#')
      .replace(/\d+/g, '#')
      .slice(0, 40),
  ]);

function main(): void {
  const { out, results } = parseArgs(process.argv.slice(2));
  const byHarness = new Map<string, AnswerRow[]>();
  for (const file of results) {
    const { harness, rows } = rowsOf(file);
    const kept = byHarness.get(harness) ?? [];
    for (const row of rows) if (!kept.some((k) => shapeOf(k) === shapeOf(row))) kept.push(row);
    byHarness.set(harness, kept);
  }
  mkdirSync(out, { recursive: true });
  for (const [harness, rows] of byHarness) {
    // The fixture must carry what the engine decided on: today's outcome of each row is the recorded one
    // (where it is not, the row lost something on the way, or the engine changed since the trial ran).
    const words = wordsOf(harness);
    for (const row of rows)
      if (row.recorded && outcomeOfRow(row, words) !== row.recorded)
        console.warn(`${harness} ${row.id}: recorded ${row.recorded}, today ${outcomeOfRow(row, words)}`);
    const file = join(out, `${harness}.json`);
    writeFileSync(file, `${JSON.stringify({ harness, rows }, null, 2)}\n`);
    console.log(`${file}: ${rows.length} rows`);
  }
  const unused = readdirSync(out).filter(
    (f) => f.endsWith('.json') && !byHarness.has(f.replace(/\.json$/, '')),
  );
  if (unused.length) console.log(`not rewritten (no result given for them): ${unused.join(', ')}`);
}

main();
