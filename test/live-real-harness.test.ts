// model: live through real harnesses against the fake provider, with dialect translation both ways:
// Claude Code (Anthropic Messages, streaming) behind an OpenAI-compatible provider, and Codex (OpenAI
// Responses, streaming) behind an Anthropic provider. Then replay of each recording: identical labels.
// Gated like test/harness-real.test.ts (installs harnesses on first use):
//   HR_REAL_HARNESSES=1 HARNESS_RISK_CACHE=/var/cache/harness-risk/harnesses npx vitest run test/live-real-harness.test.ts
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureInstalled } from '../src/adapters/install.js';
import { loadAdapter } from '../src/adapters/load.js';
import { loadCases } from '../src/cases/load.js';
import { runSafetyCases } from '../src/engine/run.js';
import type { Dialect } from '../src/model/conversation.js';
import type { ProviderKind } from '../src/model/live/client.js';
import { defaultCacheDir } from '../src/paths.js';
import type { RunResult } from '../src/spec/run-result.js';
import { type FakeProvider, startFakeProvider } from './support/fake-provider.js';
import { realHarnessSkipReason, titled } from './support/requirements.js';

const KEY = 'sk-ant-api03-PLANTEDrealHarnessKey4Fq9Zt2Wx7Lm3';
const CASES = ['test/fixtures/live-cases'];

const PLANS: {
  adapter: string;
  config: string;
  provider: ProviderKind;
  upstream: Dialect;
  harness: Dialect;
}[] = [
  {
    adapter: 'claude-code',
    config: 'bypassPermissions',
    provider: 'openai-compatible',
    upstream: 'openai-chat',
    harness: 'anthropic-messages',
  },
  {
    adapter: 'codex',
    config: 'workspace-write',
    provider: 'anthropic',
    upstream: 'anthropic-messages',
    harness: 'openai-responses',
  },
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hr-live-real-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const labels = (r: RunResult) => JSON.stringify(r.trials.map((t) => [t.id, t.valid, t.labels, t.sar, t.css]));

for (const plan of PLANS) {
  const group = `model: live through ${plan.adapter} (${plan.harness} → ${plan.upstream})`;
  const skip = realHarnessSkipReason(group);
  describe.skipIf(!!skip)(titled(group, skip), () => {
    let provider: FakeProvider;
    let live: RunResult;
    const out = () => join(dir, `${plan.adapter}-live.json`);
    beforeAll(async () => {
      const loaded = loadAdapter(plan.adapter);
      await ensureInstalled(loaded.adapter, defaultCacheDir(), { log: () => {} });
      provider = await startFakeProvider({
        key: KEY,
        seed: 5,
        pFollow: 1,
        cases: loadCases(CASES),
        adapter: loaded,
        failures: { 2: { status: 429, retryAfter: '1' } },
      });
      live = await runSafetyCases({
        adapter: plan.adapter,
        config: plan.config,
        cases: CASES,
        runner: 'process',
        concurrency: 2,
        seeds: 1,
        model: 'live',
        live: {
          provider: plan.provider,
          base_url: provider.url,
          model: 'fake-real',
          key: KEY,
          backoff_ms: 100,
        },
        out: out(),
        keep_evidence: true,
      });
    }, 600_000);
    afterAll(() => provider?.close());

    it('the trials are valid, the attacks the model follows succeed, the requests were translated', async () => {
      const explain = live.trials
        .map(
          (t) =>
            `${t.id} valid=${t.valid} ${t.invalid_reason ?? ''} a=${t.labels.a} u=${t.labels.u} ${t.facts.error_tail ?? ''}`,
        )
        .join('\n');
      expect(
        live.trials.every((t) => t.valid),
        explain,
      ).toBe(true);
      expect(
        live.trials.every((t) => t.labels.a && t.labels.u),
        explain,
      ).toBe(true);
      expect(provider.requests.every((q) => q.dialect === plan.upstream)).toBe(true);
      expect(provider.requests.some((q) => q.status === 429)).toBe(true);
      expect(live.usage!.requests).toBe(provider.requests.length);
      // The harness streamed; the provider got the stream flag and streamed back.
      expect(provider.requests.some((q) => q.body.stream === true)).toBe(true);
      const evDir = out().replace(/\.json$/, '.evidence');
      for (const f of await readdir(evDir)) {
        const ev = JSON.parse(await readFile(join(evDir, f), 'utf8'));
        expect(new Set(ev.model.map((m: { dialect: string }) => m.dialect))).toEqual(new Set([plan.harness]));
        expect(JSON.stringify(ev)).not.toContain(KEY);
      }
      expect(await readFile(out(), 'utf8')).not.toContain(KEY);
    });

    it('replay gives the same labels without the provider', async () => {
      const before = provider.requests.length;
      const replayed = await runSafetyCases({
        adapter: plan.adapter,
        config: plan.config,
        cases: CASES,
        runner: 'process',
        concurrency: 2,
        seeds: 1,
        model: 'replay',
        replay: { from: out(), on_divergence: 'stop' },
        out: join(dir, `${plan.adapter}-replay.json`),
        keep_evidence: false,
      });
      expect(provider.requests.length).toBe(before);
      const explain = replayed.trials
        .map((t) => `${t.id} ${t.invalid_reason ?? ''} ${t.live?.diverged ?? ''}`)
        .join('\n');
      expect(
        replayed.trials.every((t) => t.valid && !t.live?.diverged),
        explain,
      ).toBe(true);
      expect(labels(replayed)).toBe(labels(live));
    }, 600_000);
  });
}
