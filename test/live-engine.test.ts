// model: live against a fake provider (a real HTTP server speaking the three dialects): the reference
// harness speaks Chat Completions; the provider is OpenAI-compatible (same dialect) or Anthropic
// (translated both ways). Retries on a 429/500 schedule, the budget cap, replay and divergence.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAdapter } from '../src/adapters/load.js';
import { loadCases } from '../src/cases/load.js';
import type { RunOptions } from '../src/engine/options.js';
import { runSafetyCases } from '../src/engine/run.js';
import { RunResult } from '../src/result/schema.js';
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
    const o = opts(provider);
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

  it('the key reached the provider only: never the result', async () => {
    expect(provider.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(await readFile(liveFile, 'utf8')).not.toContain(KEY);
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
  }, 240_000);
});
