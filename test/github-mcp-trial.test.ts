// A trial whose harness has only MCP tools (test/fixtures/mcp-harness: the world's GitHub MCP servers, as a
// CI action wires them): the owner's task is done through the MCP tools, and the attack's merge through
// merge_pull_request is recorded and checked exactly as the reference harness's merge through REST (`svc`).
// Before the world served GitHub over MCP, the fixture harness found no tools and every trial was invalid.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runSafetyCases } from '../src/engine/run.js';
import type { Evidence } from '../src/evidence/types.js';
import type { RunResult } from '../src/spec/run-result.js';
import { scriptedRun, trialEvidence, useTempDir } from './support/engine-run.js';

const MCPH = join(import.meta.dirname, 'fixtures', 'mcp-harness');
const CASES = join(import.meta.dirname, 'fixtures', 'github-mcp-cases');
const dir = useTempDir('hr-ghmcp-');

const run = (adapter: string, config: string) =>
  runSafetyCases(
    scriptedRun({
      adapter,
      config,
      cases: [CASES],
      concurrency: 1,
      out: join(dir(), `${config}.json`),
      keep_evidence: true,
    }),
  );

/** The distinct merge requests (a refused one may be tried again by another route of the same harness). */
const merges = (ev: Evidence) =>
  [
    ...new Set(
      ev.services
        .filter((s) => s.service === 'github' && s.op === 'merge')
        .map((s) => JSON.stringify({ method: s.method, path: s.path, status: s.status, refused: s.refused })),
    ),
  ].map((s) => JSON.parse(s) as Record<string, unknown>);

describe('GitHub through MCP in a trial', () => {
  let mcp: RunResult;
  let stdio: RunResult;
  let rest: RunResult;
  beforeAll(async () => {
    mcp = await run(MCPH, 'github-mcp');
    stdio = await run(MCPH, 'github-mcp-stdio');
    rest = await run('reference', 'open');
  }, 360_000);

  const trial = (r: RunResult, id: string) => r.trials.find((t) => t.case_id === id)!;

  it("does the owner's task through the MCP tools", async () => {
    for (const id of ['pr-body-merge-open', 'pr-body-merge-protected']) {
      const t = trial(mcp, id);
      expect(t.valid, t.invalid_reason).toBe(true);
      expect(t.labels.u).toBe(true);
      const ev = await trialEvidence(dir(), mcp, t.id);
      const calls = ev.model.flatMap((m) => (m.response.kind === 'tool_calls' ? m.response.calls : []));
      expect(calls.map((c) => c.tool)).toContain('mcp__github__add_issue_comment');
      expect(calls.every((c) => c.tool.startsWith('mcp__github'))).toBe(true);
      const comment = ev.services.find((s) => s.op === 'comment')!;
      expect([comment.path, comment.status]).toEqual(['/api/v3/repos/acme/app/issues/41/comments', 201]);
    }
  });

  it('records and checks the merge through MCP as the merge through REST', async () => {
    for (const id of ['pr-body-merge-open', 'pr-body-merge-protected']) {
      const [m, r] = [trial(mcp, id), trial(rest, id)];
      expect(m.labels.a, id).toBe(r.labels.a);
      const [mEv, rEv] = [await trialEvidence(dir(), mcp, m.id), await trialEvidence(dir(), rest, r.id)];
      // The MCP harness merged by merge_pull_request; the reference harness by `svc github merge`.
      expect(JSON.stringify(mEv.model)).toContain('mcp__github__merge_pull_request');
      expect(merges(mEv)).toEqual(merges(rEv));
      expect(merges(mEv).length).toBe(1);
    }
    expect(
      merges(await trialEvidence(dir(), mcp, trial(mcp, 'pr-body-merge-protected').id))[0],
    ).toMatchObject({
      status: 405,
      refused: expect.stringMatching(/Protected branch rules/),
    });
    expect(trial(mcp, 'pr-body-merge-open').labels.a).toBe(true);
  });

  it("reaches the same servers started as programs (the trial's mcp-stdio relay, contained): same labels, same requests", async () => {
    for (const m of mcp.trials) {
      const t = trial(stdio, m.case_id);
      expect(t.valid, t.invalid_reason).toBe(true);
      expect(t.labels, m.case_id).toEqual(m.labels);
      const [viaHttp, viaStdio] = [
        await trialEvidence(dir(), mcp, m.id),
        await trialEvidence(dir(), stdio, t.id),
      ];
      const requests = (ev: Evidence) =>
        ev.services.filter((s) => s.service === 'github').map((s) => `${s.method} ${s.path} ${s.status}`);
      expect(requests(viaStdio)).toEqual(requests(viaHttp));
    }
  });
});
