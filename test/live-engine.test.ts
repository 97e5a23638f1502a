// model: live against a fake provider (a real HTTP server speaking the three dialects): the reference
// harness speaks Chat Completions; the provider is OpenAI-compatible (same dialect) or Anthropic
// (translated both ways). Retries on a 429/500 schedule, the budget cap, replay and divergence.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAdapter } from '../src/adapters/load.js';
import { loadCases } from '../src/cases/load.js';
import type { RunOptions } from '../src/engine/options.js';
import { runSafetyCases } from '../src/engine/run.js';
import { evaluateGate } from '../src/gate/index.js';
import { parseGateOptions } from '../src/gate/options.js';
import { evidenceFileOf } from '../src/result/files.js';
import { RunResult } from '../src/spec/run-result.js';
import { type FakeProvider, startFakeProvider } from './support/fake-provider.js';

const KEY = 'sk-live-test-PLANTED-9f8e7d6c5b4a39281706';
const CASES = ['test/fixtures/live-cases'];
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hr-live-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fake = (p: Partial<Parameters<typeof startFakeProvider>[0]> = {}) =>
  startFakeProvider({
    key: KEY,
    seed: 7,
    pFollow: 0.5,
    pRefuse: 0.2,
    cases: loadCases(CASES),
    adapter: loadAdapter('reference'),
    ...p,
  });

const opts = (provider: FakeProvider, p: Partial<RunOptions> = {}): RunOptions => ({
  adapter: 'reference',
  config: 'open',
  cases: CASES,
  runner: 'process',
  concurrency: 2,
  seeds: 4,
  model: 'live',
  live: { provider: 'openai-compatible', base_url: provider.url, model: 'fake-1', key: KEY, backoff_ms: 50 },
  out: join(dir, `${Math.random().toString(36).slice(2)}.json`),
  keep_evidence: false,
  ...p,
});

const labels = (r: RunResult) =>
  JSON.stringify(r.trials.map((t) => [t.id, t.valid, t.labels, t.sar, t.css, t.violations]));

describe('model: live, reference harness', () => {
  let provider: FakeProvider;
  let live: RunResult;
  let liveFile: string;
  beforeAll(async () => {
    provider = await fake({ failures: { 2: { status: 429, retryAfter: '1' }, 5: { status: 500 } } });
    const o = opts(provider, { keep_evidence: true });
    liveFile = o.out;
    live = await runSafetyCases(o);
  }, 240_000);
  afterAll(() => provider.close());

  it('gives valid trials, per-phase ASR with Wilson intervals, usage and the model in the result', async () => {
    expect(live.trials).toHaveLength(8);
    expect(live.trials.filter((t) => !t.valid).map((t) => t.invalid_reason)).toEqual([]);
    expect(live.model).toMatchObject({ mode: 'live', provider: 'openai-compatible', name: 'fake-1' });
    for (const phase of ['runtime', 'configuration'] as const) {
      const s = live.summary.phases[phase]!;
      const [lo, hi] = s.asr_interval!;
      expect(lo).toBeLessThanOrEqual(s.asr);
      expect(hi).toBeGreaterThanOrEqual(s.asr);
      expect(hi - lo).toBeGreaterThan(0.2); // 4 seeds: a wide interval, whatever the rate
    }
    // Stochastic: the draws differ between conversations, and the labels follow them.
    expect(new Set(provider.draws).size).toBeGreaterThan(1);
    const a = live.trials.filter((t) => t.labels.a).length;
    expect(a).toBe(provider.draws.filter((d) => d === 'follow').length);
    expect(live.usage!.requests).toBe(provider.requests.length);
    expect(live.usage!.input_tokens).toBe(provider.tokens.input);
    expect(live.usage!.output_tokens).toBe(provider.tokens.output);
    for (const t of live.trials) expect(t.live!.usage.requests).toBeGreaterThan(0);
    // On disk too.
    expect(RunResult.parse(JSON.parse(await readFile(liveFile, 'utf8'))).usage).toEqual(live.usage);
  });

  it('retried the 429 after its retry-after and the 500 with backoff', () => {
    const [r1, r2, r3] = provider.requests.slice(1, 4);
    expect(r1!.status).toBe(429);
    // The retry of request 2 is the next request carrying the same body.
    const retry = provider.requests.find(
      (r) => r.n > 2 && JSON.stringify(r.body) === JSON.stringify(r1!.body),
    );
    expect(retry!.at - r1!.at).toBeGreaterThanOrEqual(950);
    expect(provider.requests.find((r) => r.n === 5)!.status).toBe(500);
    expect([r2, r3].length).toBe(2);
    expect(live.trials.reduce((n, t) => n + t.live!.usage.requests, 0)).toBe(provider.requests.length);
  });

  it('the key reached the provider only: never the result nor the evidence', async () => {
    expect(provider.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(await readFile(liveFile, 'utf8')).not.toContain(KEY);
    const evDir = liveFile.replace(/\.json$/, '.evidence');
    const files = await readdir(evDir);
    expect(files.length).toBe(8);
    for (const f of files) {
      const text = await readFile(join(evDir, f), 'utf8');
      expect(text).toMatch(/"source": ?"provider"/);
      expect(text).not.toContain(KEY);
    }
  });

  it('replay reproduces the labels byte for byte without calling the provider', async () => {
    const before = provider.requests.length;
    const replayed = await runSafetyCases(
      opts(provider, { model: 'replay', live: undefined, replay: { from: liveFile, on_divergence: 'stop' } }),
    );
    expect(provider.requests.length).toBe(before);
    expect(replayed.model).toMatchObject({ mode: 'replay', name: 'fake-1', replay_of: liveFile });
    expect(replayed.trials.every((t) => t.valid && !t.live?.diverged)).toBe(true);
    expect(labels(replayed)).toBe(labels(live));
  }, 240_000);

  it('a harness with another tool set diverges; diverged trials are invalid, never safe', async () => {
    // The guarded policy is the same harness with other settings: same tools, other tool results.
    // A custom adapter that drops a tool changes the tools offered.
    const replayed = await runSafetyCases(
      opts(provider, {
        adapter: 'test/fixtures/adapters/reference-no-remember',
        model: 'replay',
        live: undefined,
        replay: { from: liveFile, on_divergence: 'stop' },
      }),
    );
    expect(replayed.trials.length).toBe(8);
    for (const t of replayed.trials) {
      expect(t.valid).toBe(false);
      expect(t.live!.diverged).toMatch(/request 1: the tools offered differ \(gone: remember\)/);
      expect(t.invalid_reason).toMatch(/^diverged from the recording/);
    }
    expect(replayed.summary.overall.valid).toBe(0);
    const g = evaluateGate({
      heads: [{ result: replayed, name: 'replay.json' }],
      options: gateDefaults(),
      scope: 'merge',
    });
    expect(g.verdict.verdict).not.toBe('pass');
  }, 240_000);

  it('replay-diverged: scripted lets the scripted model go on: labels to read, the trial still invalid', async () => {
    const replayed = await runSafetyCases(
      opts(provider, {
        adapter: 'test/fixtures/adapters/reference-no-remember',
        seeds: 1,
        model: 'replay',
        live: undefined,
        replay: { from: liveFile, on_divergence: 'scripted' },
      }),
    );
    for (const t of replayed.trials) {
      expect(t.valid).toBe(false);
      expect(t.live!.diverged).toMatch(/^request 1: /);
      // The scripted worst-case model carried the owner's task and the attack out on the open policy.
      expect(t.labels).toMatchObject({ u: true, a: true });
    }
    expect(replayed.summary.overall.valid).toBe(0);
  }, 240_000);
});

const gateDefaults = () => parseGateOptions(() => undefined);

describe('model: live, other providers and limits', () => {
  it('an Anthropic provider behind an OpenAI-speaking harness: translated both ways, key in x-api-key', async () => {
    const provider = await fake({ pFollow: 1, pRefuse: 0 });
    try {
      const r = await runSafetyCases(
        opts(provider, {
          seeds: 1,
          live: {
            provider: 'anthropic',
            base_url: provider.url,
            model: 'claude-fake',
            key: KEY,
            backoff_ms: 50,
          },
        }),
      );
      expect(r.trials.map((t) => [t.id, t.valid, t.labels.a, t.labels.u])).toEqual([
        ['live-config-hook.s0', true, true, true],
        ['live-notes-summary.s0', true, true, true],
      ]);
      expect(provider.requests.every((q) => q.dialect === 'anthropic-messages')).toBe(true);
      expect(provider.requests.every((q) => q.headers['x-api-key'] === KEY && !q.headers.authorization)).toBe(
        true,
      );
      // Tool results went back as Anthropic tool_result blocks paired with the provider's tool_use ids.
      const withResult = provider.requests.find((q) =>
        JSON.stringify(q.body.messages).includes('"type":"tool_result"'),
      )!;
      const msgs = withResult.body.messages as {
        role: string;
        content: { type: string; id?: string; tool_use_id?: string }[];
      }[];
      const use = msgs.flatMap((m) => m.content).find((b) => b.type === 'tool_use')!;
      const result = msgs.flatMap((m) => m.content).find((b) => b.type === 'tool_result')!;
      expect(result.tool_use_id).toBe(use.id);
      expect(withResult.body.model).toBe('claude-fake');
      expect(withResult.body.max_tokens).toBeGreaterThan(0);
    } finally {
      await provider.close();
    }
  }, 120_000);

  it('stops at the request budget: the trial that hit it and the unrun ones are invalid, the gate does not pass', async () => {
    const provider = await fake({ pFollow: 1, pRefuse: 0 });
    try {
      const r = await runSafetyCases(
        opts(provider, {
          concurrency: 1,
          seeds: 3,
          live: {
            provider: 'openai-compatible',
            base_url: provider.url,
            model: 'fake-1',
            key: KEY,
            budget_requests: 7,
          },
        }),
      );
      expect(provider.requests.length).toBe(7);
      expect(r.status).toBe('complete');
      const invalid = r.trials.filter((t) => !t.valid);
      expect(invalid.length).toBeGreaterThanOrEqual(4);
      for (const t of invalid) {
        expect(t.invalid_reason).toMatch(/^budget exhausted: 7 of 7 provider requests used/);
        expect(t.labels.a).toBe(false);
      }
      expect(
        invalid.filter((t) => /the trial was not run/.test(t.invalid_reason!)).length,
      ).toBeGreaterThanOrEqual(3);
      expect(r.summary.overall.valid).toBe(r.trials.length - invalid.length);
      expect(r.usage!.requests).toBe(7);
      const g = evaluateGate({
        heads: [{ result: r, name: 'live.json' }],
        options: gateDefaults(),
        scope: 'merge',
      });
      expect(g.verdict.verdict).not.toBe('pass');
    } finally {
      await provider.close();
    }
  }, 120_000);

  it('a provider that keeps failing makes the trial invalid with its message', async () => {
    const failures = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [i + 1, { status: 503 as const }]),
    );
    const provider = await fake({ failures });
    try {
      const r = await runSafetyCases(
        opts(provider, {
          seeds: 1,
          cases: ['test/fixtures/live-cases/notes-summary.yaml'],
          live: {
            provider: 'openai-compatible',
            base_url: provider.url,
            model: 'fake-1',
            key: KEY,
            attempts: 3,
            backoff_ms: 20,
          },
        }),
      );
      expect(provider.requests.length).toBe(3);
      expect(r.trials[0]!.valid).toBe(false);
      expect(r.trials[0]!.invalid_reason).toBe(
        'provider error: provider failed after 3 attempts: 503: upstream overloaded',
      );
    } finally {
      await provider.close();
    }
  }, 120_000);

  it('the harness environment never holds the key (a harness that dumps its environment)', async () => {
    process.env.HARNESS_RISK_MODEL_KEY = KEY;
    const provider = await fake();
    try {
      const r = await runSafetyCases(
        opts(provider, {
          adapter: 'test/fixtures/adapters/envdump',
          config: 'default',
          seeds: 1,
          cases: ['test/fixtures/live-cases/notes-summary.yaml'],
          keep_evidence: true,
        }),
      );
      const evidence = await readFile(
        evidenceFileOf(join(dir, 'r.json'), r.trials[0]!.evidence_file!),
        'utf8',
      );
      const env: string = JSON.parse(evidence).after['ws/env.json'].text;
      expect(env).toContain('"HOME"');
      expect(env).not.toContain(KEY);
      expect(evidence).not.toContain(KEY);
      expect(provider.requests.length).toBe(1);
    } finally {
      delete process.env.HARNESS_RISK_MODEL_KEY;
      await provider.close();
    }
  }, 120_000);
});
