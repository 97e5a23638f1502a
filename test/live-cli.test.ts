// The CLI as users run it (the bundled dist/cli.js in a child process) with --model live against the fake
// provider, then --model replay of what it recorded: the terminal and the markdown report say it is a
// live run, name the model, show Wilson intervals and usage, and never the key.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAdapter } from '../src/adapters/load.js';
import { loadCases } from '../src/cases/load.js';
import { RunResult } from '../src/spec/run-result.js';
import { type FakeProvider, startFakeProvider } from './support/fake-provider.js';

const KEY = 'sk-cli-PLANTED-0a1b2c3d4e5f6a7b8c9d';
let dir: string;
let provider: FakeProvider;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hr-live-cli-'));
  provider = await startFakeProvider({
    key: KEY,
    seed: 3,
    pFollow: 0.6,
    pRefuse: 0.2,
    cases: loadCases(['test/fixtures/live-cases']),
    adapter: loadAdapter('reference'),
    failures: { 1: { status: 429, retryAfter: '1' } },
  });
});
afterAll(async () => {
  await provider.close();
  await rm(dir, { recursive: true, force: true });
});

function cli(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((ok) => {
    const child = spawn(process.execPath, ['dist/cli.js', ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => ok({ status, stdout, stderr }));
  });
}

describe('harness-risk run --model live', () => {
  it('runs against the provider, retries the 429, reports live with intervals and replays it', async () => {
    const out = join(dir, 'live.json');
    const md = join(dir, 'live.md');
    const base = ['run', '--adapter', 'reference', '--config', 'open', '--cases', 'test/fixtures/live-cases'];
    const live = await cli(
      [
        ...base,
        '--seeds',
        '3',
        '--out',
        out,
        '--markdown',
        md,
        '--model',
        'live',
        '--provider',
        'openai-compatible',
        '--base-url',
        provider.url,
        '--model-name',
        'fake',
        '--temperature',
        '0.7',
        '--max-tokens',
        '512',
        '--quiet',
      ],
      { HARNESS_RISK_MODEL_KEY: KEY },
    );
    expect(live.stderr).not.toContain('Error');
    expect([0, 1]).toContain(live.status);
    expect(live.stdout).toMatch(
      /live run: model fake \(openai-compatible\), 3 seed\(s\) per case; \d+ provider requests/,
    );
    expect(live.stdout).toMatch(/ASR 95% CI/);
    expect(live.stdout).toMatch(/runtime .* \d+%–\d+%/);
    const result = RunResult.parse(JSON.parse(await readFile(out, 'utf8')));
    expect(result.trials.every((t) => t.valid)).toBe(true);
    expect(provider.requests[0]!.status).toBe(429);
    const first = provider.requests[0]!;
    const retry = provider.requests.find(
      (r) => r.n > 1 && JSON.stringify(r.body) === JSON.stringify(first.body),
    )!;
    expect(retry.status).toBe(200);
    expect(retry.at - first.at).toBeGreaterThanOrEqual(950);
    expect(
      provider.requests.every(
        (r) => r.body.model === 'fake' && r.body.temperature === 0.7 && r.body.max_tokens === 512,
      ),
    ).toBe(true);
    const report = await readFile(md, 'utf8');
    expect(report).toContain('**Live run** with `fake` (openai-compatible), 3 seeds per case');
    expect(report).toMatch(/ASR with 95% Wilson intervals: configuration \d/);
    expect(report).toMatch(/Usage: \d+ provider requests/);
    for (const text of [live.stdout, live.stderr, report, await readFile(out, 'utf8')])
      expect(text).not.toContain(KEY);

    const before = provider.requests.length;
    const replayOut = join(dir, 'replay.json');
    const replay = await cli([
      ...base,
      '--seeds',
      '3',
      '--out',
      replayOut,
      '--model',
      'replay',
      '--replay-from',
      out,
      '--quiet',
    ]);
    expect(replay.stdout).toMatch(/replay of a live run: model fake/);
    expect(provider.requests.length).toBe(before);
    const replayed = RunResult.parse(JSON.parse(await readFile(replayOut, 'utf8')));
    const labels = (r: RunResult) => JSON.stringify(r.trials.map((t) => [t.id, t.valid, t.labels]));
    expect(labels(replayed)).toBe(labels(result));
  }, 240_000);

  it('without the key it says where the key goes, before running anything', async () => {
    const r = await cli(
      [
        'run',
        '--adapter',
        'reference',
        '--config',
        'open',
        '--model',
        'live',
        '--base-url',
        provider.url,
        '--model-name',
        'x',
      ],
      {
        HARNESS_RISK_MODEL_KEY: '',
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--model live needs the provider key in HARNESS_RISK_MODEL_KEY/);
  });

  it('a bad --model value names the valid ones', async () => {
    const r = await cli(['run', '--adapter', 'reference', '--config', 'open', '--model', 'gpt']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--model "gpt" is not one of "scripted", "live", "replay"/);
  });
});
