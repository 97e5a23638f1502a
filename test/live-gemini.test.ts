// Live and replay with Gemini: translation between Gemini and the three other dialects both ways (a
// harness speaking any dialect, a provider speaking any other), Gemini answers read back (JSON, SSE in
// chunks, JSON array, errors), and whole runs through the fake provider: a Gemini harness behind an
// OpenAI provider, an OpenAI harness behind a Gemini provider, Gemini to Gemini, and a replay of it.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAdapter } from '../src/adapters/load.js';
import { loadCases } from '../src/cases/load.js';
import type { RunOptions } from '../src/engine/options.js';
import { runSafetyCases } from '../src/engine/run.js';
import { type Conversation, type Dialect, parseConversation } from '../src/model/conversation.js';
import { encodeResponse } from '../src/model/dialects.js';
import { geminiUrlFacts } from '../src/model/gemini-url.js';
import { providerPath, targetDialect } from '../src/model/live/client.js';
import { requestShape } from '../src/model/live/shape.js';
import { AnswerError, parseProviderAnswer, providerRequest } from '../src/model/live/translate.js';
import type { RunResult } from '../src/spec/run-result.js';
import { DIALECTS } from '../src/spec/vocabulary.js';
import { type FakeProvider, startFakeProvider } from './support/fake-provider.js';

describe('provider routing', () => {
  it.each([
    ['gemini', 'openai-chat', 'gemini'],
    ['gemini', 'anthropic-messages', 'gemini'],
    ['gemini', 'gemini', 'gemini'],
    ['openai-compatible', 'gemini', 'openai-chat'],
    ['anthropic', 'gemini', 'anthropic-messages'],
  ] as const)('%s provider, %s harness → %s', (p, h, t) => expect(targetDialect(p, h)).toBe(t));

  it('puts the model and streaming in the Gemini path', () => {
    expect(providerPath('gemini', 'gemini-2.5-pro', false)).toBe('/models/gemini-2.5-pro:generateContent');
    expect(providerPath('gemini', 'gemini-2.5-pro', true)).toBe(
      '/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    );
    expect(providerPath('openai-chat', 'x', true)).toBe('/chat/completions');
  });
});

// One conversation: system, a user turn, two calls in one turn (one with an error result), a user turn after.
const BASE = parseConversation('openai-chat', {
  model: 'x',
  messages: [
    { role: 'system', content: 'be useful' },
    { role: 'user', content: 'read a.txt and list' },
    {
      role: 'assistant',
      content: 'Reading.',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } },
        { id: 'call_2', type: 'function', function: { name: 'ls', arguments: '{}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'hello' },
    { role: 'tool', tool_call_id: 'call_2', content: 'a.txt' },
    { role: 'user', content: 'thanks' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'read',
        description: 'read a file',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
    },
    { type: 'function', function: { name: 'ls', description: 'list', parameters: { type: 'object' } } },
  ],
});
const SETTINGS = { model: 'm', stream: false, max_tokens: 100, temperature: 0.2 };
const GEMINI_URL = geminiUrlFacts('/v1beta/models/m:generateContent');

/** The conversation as a harness speaking `dialect` sends it. */
function asHarness(dialect: Dialect): Conversation {
  const body = providerRequest(BASE, dialect, SETTINGS);
  return parseConversation(dialect, body, dialect === 'gemini' ? GEMINI_URL : undefined);
}
const strip = (c: Conversation) =>
  c.messages.map((m) => [m.role, m.text, m.toolCalls, m.toolResults.map((r) => [r.callId, r.text])]);

describe('translation with Gemini', () => {
  const pairs = DIALECTS.flatMap((from) =>
    DIALECTS.filter((to) => to !== from && (from === 'gemini' || to === 'gemini')).map(
      (to) => [from, to] as const,
    ),
  );
  it.each(pairs)('a %s harness, a %s provider: the same conversation arrives', (from, to) => {
    const conv = asHarness(from);
    const body = providerRequest(conv, to, SETTINGS);
    const back = parseConversation(to, body, to === 'gemini' ? GEMINI_URL : undefined);
    expect(back.system).toBe('be useful');
    expect(back.tools.map((t) => [t.name, t.description, t.schema])).toEqual(
      BASE.tools.map((t) => [t.name, t.description, t.schema]),
    );
    expect(strip(back)).toEqual(strip(BASE));
  });

  it('builds the generateContent body: functionDeclarations with parametersJsonSchema, generationConfig', () => {
    const body = providerRequest({ ...BASE, outputSchema: { type: 'object' } }, 'gemini', SETTINGS) as Record<
      string,
      any
    >;
    expect(body.model).toBeUndefined();
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'be useful' }] });
    expect(body.tools[0].functionDeclarations[0]).toEqual({
      name: 'read',
      description: 'read a file',
      parametersJsonSchema: { type: 'object', properties: { path: { type: 'string' } } },
    });
    expect(body.generationConfig).toEqual({
      temperature: 0.2,
      maxOutputTokens: 100,
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object' },
    });
    // The results answer their calls by id and by name, as Gemini requires.
    expect(body.contents.map((c: any) => c.role)).toEqual(['user', 'model', 'user']);
    expect(body.contents[2].parts.slice(0, 2)).toEqual([
      { functionResponse: { id: 'call_1', name: 'read', response: { output: 'hello' } } },
      { functionResponse: { id: 'call_2', name: 'ls', response: { output: 'a.txt' } } },
    ]);
  });

  it('an error result goes out as response.error and comes back as an error', () => {
    const conv = parseConversation('anthropic-messages', {
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't1', content: 'denied', is_error: true }],
        },
      ],
    });
    const body = providerRequest(conv, 'gemini', SETTINGS) as Record<string, any>;
    expect(body.contents[1].parts[0].functionResponse.response).toEqual({ error: 'denied' });
    expect(parseConversation('gemini', body, GEMINI_URL).messages[1]!.toolResults[0]).toMatchObject({
      callId: 't1',
      isError: true,
    });
  });

  it('the request shape replay matches on is the same whichever dialect the harness speaks', () => {
    const shapes = DIALECTS.map((d) => requestShape(asHarness(d), []));
    for (const s of shapes) expect(s).toEqual(shapes[0]);
  });
});

describe('Gemini answers read back', () => {
  const meta = { ids: { response: 'r1', message: '' }, created: 1, inputTokens: 11, outputTokens: 7 };
  const calls = {
    kind: 'tool_calls' as const,
    calls: [
      { id: 'a1', name: 'read', args: { path: 'b' } },
      { id: 'a2', name: 'ls', args: {} },
    ],
  };
  const text = { kind: 'text' as const, text: 'all done' };
  it.each(
    [
      '/v1beta/models/m:generateContent',
      '/v1beta/models/m:streamGenerateContent?alt=sse',
      '/v1beta/models/m:streamGenerateContent',
    ].flatMap((url) => [[url, calls] as const, [url, text] as const]),
  )('%s answer %j', (url, out) => {
    const enc = encodeResponse(parseConversation('gemini', { contents: [] }, geminiUrlFacts(url)), out, meta);
    const got = parseProviderAnswer(
      'gemini',
      enc.body,
      enc.headers['content-type']!.includes('event-stream'),
    );
    expect(got.usage).toEqual({ input_tokens: 11, output_tokens: 7 });
    expect(got.output).toEqual(out.kind === 'text' ? text : { kind: 'tool_calls', calls: calls.calls });
  });

  it('adds up a stream in chunks: text pieces, calls without ids, thoughts left out, last usage', () => {
    const chunk = (parts: unknown[], usage?: unknown) =>
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts } }], ...(usage ? { usageMetadata: usage } : {}) })}\r\n\r\n`;
    const body =
      chunk([{ text: 'pondering', thought: true }]) +
      chunk([{ text: 'Let me ' }]) +
      chunk([{ text: 'look.' }, { functionCall: { name: 'read', args: { path: 'x' } } }], {
        promptTokenCount: 5,
        candidatesTokenCount: 4,
        thoughtsTokenCount: 2,
      });
    expect(parseProviderAnswer('gemini', body, true)).toEqual({
      output: {
        kind: 'tool_calls',
        text: 'Let me look.',
        calls: [{ id: '', name: 'read', args: { path: 'x' } }],
      },
      usage: { input_tokens: 5, output_tokens: 6 },
    });
  });

  it('an error event in the stream is the provider failing', () => {
    const body = `data: ${JSON.stringify({ error: { code: 500, message: 'Internal error', status: 'INTERNAL' } })}\n\n`;
    expect(() => parseProviderAnswer('gemini', body, true)).toThrow(AnswerError);
    expect(() => parseProviderAnswer('gemini', body, true)).toThrow(/Internal error/);
  });
});

// ---- whole runs through the fake provider ----

const KEY = 'AIza-live-test-PLANTED-0123456789abcdef';
const CASES = ['test/fixtures/live-cases'];
const GMINI = join(import.meta.dirname, 'fixtures', 'gemini-harness');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hr-live-gemini-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fake = (adapter: string) =>
  startFakeProvider({
    key: KEY,
    seed: 7,
    pFollow: 1,
    pRefuse: 0,
    cases: loadCases(CASES),
    adapter: loadAdapter(adapter),
  });

const opts = (
  provider: FakeProvider,
  adapter: string,
  kind: 'gemini' | 'openai-compatible',
  p: Partial<RunOptions> = {},
): RunOptions => ({
  adapter,
  config: 'open',
  cases: CASES,
  runner: 'process',
  concurrency: 2,
  seeds: 1,
  model: 'live',
  live: { provider: kind, base_url: provider.url, model: 'gemini-fake', key: KEY, backoff_ms: 50 },
  out: join(dir, `${Math.random().toString(36).slice(2)}.json`),
  keep_evidence: true,
  ...p,
});

const outcome = (r: RunResult) => r.trials.map((t) => [t.id, t.valid, t.labels.a, t.labels.u]);
const EXPECTED = [
  ['live-config-hook.s0', true, true, true],
  ['live-notes-summary.s0', true, true, true],
];

describe('model: live and replay with Gemini', () => {
  it('a Gemini harness behind an OpenAI-compatible provider: translated both ways', async () => {
    const provider = await fake(GMINI);
    try {
      const r = await runSafetyCases(opts(provider, GMINI, 'openai-compatible'));
      expect(outcome(r)).toEqual(EXPECTED);
      expect(provider.requests.every((q) => q.dialect === 'openai-chat')).toBe(true);
      expect(provider.requests.every((q) => q.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    } finally {
      await provider.close();
    }
  }, 180_000);

  it('an OpenAI harness behind a Gemini provider: key in x-goog-api-key, model and streaming in the path', async () => {
    const provider = await fake('reference');
    try {
      const r = await runSafetyCases(opts(provider, 'reference', 'gemini'));
      expect(outcome(r)).toEqual(EXPECTED);
      expect(provider.requests.length).toBeGreaterThan(2);
      for (const q of provider.requests) {
        expect(q.dialect).toBe('gemini');
        // The reference harness streams: the provider is asked for SSE (?alt=sse, not in the recorded path).
        expect(q.path).toBe('/v1/models/gemini-fake:streamGenerateContent');
        expect(q.headers['x-goog-api-key']).toBe(KEY);
        expect(q.headers.authorization).toBeUndefined();
      }
      // Results went back as functionResponse parts naming the call they answer, with its id.
      const withResult = provider.requests.find((q) => JSON.stringify(q.body).includes('functionResponse'))!;
      const parts = (withResult.body.contents as { parts: Record<string, any>[] }[]).flatMap((c) => c.parts);
      const fc = parts.find((p) => p.functionCall)!.functionCall;
      const fr = parts.find((p) => p.functionResponse)!.functionResponse;
      expect([fr.id, fr.name]).toEqual([fc.id, fc.name]);
    } finally {
      await provider.close();
    }
  }, 180_000);

  it('Gemini to Gemini, then replay: the same labels without calling the provider, the key nowhere', async () => {
    const provider = await fake(GMINI);
    try {
      const o = opts(provider, GMINI, 'gemini');
      const live = await runSafetyCases(o);
      expect(outcome(live)).toEqual(EXPECTED);
      expect(provider.requests.every((q) => q.dialect === 'gemini')).toBe(true);
      expect(await readFile(o.out, 'utf8')).not.toContain(KEY);
      const before = provider.requests.length;
      const replayed = await runSafetyCases(
        opts(provider, GMINI, 'gemini', {
          model: 'replay',
          live: undefined,
          replay: { from: o.out, on_divergence: 'stop' },
        }),
      );
      expect(provider.requests.length).toBe(before);
      expect(replayed.trials.every((t) => t.valid && !t.live?.diverged)).toBe(true);
      const labels = (r: RunResult) =>
        JSON.stringify(r.trials.map((t) => [t.id, t.valid, t.labels, t.violations]));
      expect(labels(replayed)).toBe(labels(live));
      // The same recording replays for the harness in another streaming shape (JSON array, no ids).
      const other = await runSafetyCases(
        opts(provider, GMINI, 'gemini', {
          config: 'open-array',
          model: 'replay',
          live: undefined,
          replay: { from: o.out, on_divergence: 'stop' },
        }),
      );
      expect(other.trials.every((t) => t.valid && !t.live?.diverged)).toBe(true);
      expect(labels(other)).toBe(labels(live));
    } finally {
      await provider.close();
    }
  }, 240_000);
});
