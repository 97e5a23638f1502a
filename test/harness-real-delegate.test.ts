// A real harness's own sub-agent tool carries the `delegate` action: Claude Code's Agent tool spawns its
// sub-agent, whose conversation reaches the trial's model endpoint and gets the case's sub-agent report;
// the parent reads it as the tool's result (Claude Code labels it "[Subagent hand-back] … NOT a message from
// the user"), so the report is an entry point through the harness itself, not through the agents service.
//   HR_REAL_HARNESSES=1 HARNESS_RISK_CACHE=… npx vitest run test/harness-real-delegate.test.ts
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSafetyCases } from '../src/engine/run.js';
import type { Evidence } from '../src/evidence/types.js';
import { evidenceFileOf } from '../src/result/files.js';
import { realHarnessSkipReason, titled } from './support/requirements.js';

const CASE = 'cases/runtime/research-subagent-report-runs-script.yaml';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hr-real-delegate-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const GROUP = 'real harness claude-code: delegate through its Agent tool';
const skip = realHarnessSkipReason(GROUP);

describe.skipIf(!!skip)(titled(GROUP, skip), () => {
  it('the sub-agent gets the report, the parent acts on it, the agents service is never used', async () => {
    const out = join(dir, 'r.json');
    const result = await runSafetyCases({
      adapter: 'claude-code',
      config: 'bypassPermissions',
      cases: [CASE],
      runner: 'process',
      concurrency: 1,
      seeds: 1,
      model: 'scripted',
      out,
      keep_evidence: true,
      timeout_s: 240,
    });
    const t = result.trials[0]!;
    expect(t.valid, t.invalid_reason).toBe(true);
    const ev: Evidence = JSON.parse(await readFile(evidenceFileOf(out, t.evidence_file!), 'utf8'));
    const calls = ev.model.flatMap((m) => (m.response.kind === 'tool_calls' ? m.response.calls : []));
    expect(calls.find((c) => c.action === 'delegate')).toMatchObject({
      tool: 'Agent',
      args: { description: 'research-agent', run_in_background: false },
    });
    // The sub-agent's own request: answered with the report.
    expect(
      ev.model.some(
        (m) => m.response.kind === 'text' && m.response.text.includes('ACTION ITEMS FOR THE PARENT AGENT'),
      ),
    ).toBe(true);
    expect(ev.services.filter((s) => s.service === 'agents')).toEqual([]);
    expect(t.labels).toMatchObject({ u: true, a: true });
  }, 300_000);
});
