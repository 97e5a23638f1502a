// The pure pieces of live mode: Wilson intervals, retry-after, dialect translation (requests out,
// answers back, JSON and SSE), request shapes and their differences, the budget.
import { describe, expect, it } from 'vitest';
import { parseConversation } from '../src/model/conversation.js';
import { encodeResponse } from '../src/model/dialects.js';
import { Budget, BudgetExhausted } from '../src/model/live/budget.js';
import { retryAfterMs, targetDialect } from '../src/model/live/client.js';
import {
  normalizeOutput,
  placeholders,
  renderOutput,
  requestShape,
  shapeDifference,
} from '../src/model/live/shape.js';
import { parseProviderAnswer, providerErrorMessage, providerRequest } from '../src/model/live/translate.js';
import { SecretMask } from '../src/report/mask.js';
import { wilson } from '../src/score/wilson.js';

describe('wilson', () => {
  it.each([
    // k, n → [low, high] (95%; reference values from the closed form, 4 decimals)
    [0, 0, [0, 1]],
    [0, 1, [0, 0.7935]],
    [1, 1, [0.2065, 1]],
    [0, 10, [0, 0.2775]],
    [10, 10, [0.7225, 1]],
    [5, 10, [0.2366, 0.7634]],
    [1, 4, [0.0456, 0.6994]],
    [50, 100, [0.4038, 0.5962]],
  ] as const)('%i of %i', (k, n, expected) => {
    expect(wilson(k, n)).toEqual(expected);
  });
});

describe('retry-after', () => {
  const h = (o: Record<string, string>) => ({ get: (k: string) => o[k] ?? null });
  it.each([
    [{ 'retry-after': '2' }, 2000],
    [{ 'retry-after': '0' }, 0],
    [{ 'retry-after-ms': '150', 'retry-after': '9' }, 150],
    [{ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }, 3000],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('%j → %s ms', (headers, ms) => {
    expect(retryAfterMs(h(headers), Date.parse('2026-01-01T00:00:00Z'))).toBe(ms);
  });
});

describe('target dialect', () => {
  it.each([
    ['openai-compatible', 'openai-chat', 'openai-chat'],
    ['openai-compatible', 'openai-responses', 'openai-responses'],
    ['openai-compatible', 'anthropic-messages', 'openai-chat'],
    ['anthropic', 'openai-chat', 'anthropic-messages'],
    ['anthropic', 'openai-responses', 'anthropic-messages'],
  ] as const)('%s provider, %s harness → %s', (p, h, t) => expect(targetDialect(p, h)).toBe(t));
});

// One conversation in each dialect: a user turn, a tool call, its result; the same content throughout.
const chatBody = {
  model: 'x',
  messages: [
    { role: 'system', content: 'be useful' },
    { role: 'user', content: 'read a.txt' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'hello' },
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
  ],
};

describe('translation', () => {
  const conv = parseConversation('openai-chat', chatBody);
  it.each(['anthropic-messages', 'openai-responses', 'openai-chat'] as const)(
    'a chat conversation sent as %s parses back to the same conversation',
    (target) => {
      const body = providerRequest(conv, target, {
        model: 'm',
        stream: false,
        max_tokens: 100,
        temperature: 0.2,
      });
      expect(body.model).toBe('m');
      expect(body.temperature).toBe(0.2);
      const back = parseConversation(target, body);
      expect(back.system).toBe('be useful');
      expect(back.tools.map((t) => [t.name, t.description, t.schema])).toEqual(
        conv.tools.map((t) => [t.name, t.description, t.schema]),
      );
      const strip = (c: typeof conv) =>
        c.messages.map((m) => [m.role, m.text, m.toolCalls, m.toolResults.map((r) => [r.callId, r.text])]);
      expect(strip(back)).toEqual(strip(conv));
    },
  );

  it('hosted tools are not forwarded', () => {
    const c = parseConversation('openai-responses', {
      input: 'hi',
      tools: [{ type: 'web_search' }, { type: 'function', name: 'f', parameters: {} }],
    });
    const body = providerRequest(c, 'openai-chat', { model: 'm', stream: false });
    expect((body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['f']);
  });

  // The endpoint's own encoders produce what providers send: every dialect, JSON and SSE, parses back.
  const calls = {
    kind: 'tool_calls' as const,
    calls: [{ id: 'toolu_9', itemId: 'fc_9', name: 'read', args: { path: 'b' } }],
  };
  const text = { kind: 'text' as const, text: 'all done' };
  const meta = { ids: { response: 'r1', message: 'm1' }, created: 1, inputTokens: 11, outputTokens: 7 };
  it.each(
    (['anthropic-messages', 'openai-responses', 'openai-chat'] as const).flatMap((d) =>
      [false, true].flatMap((stream) => [[d, stream, calls] as const, [d, stream, text] as const]),
    ),
  )('%s stream=%s answer %j parses back', (dialect, stream, out) => {
    const c = { ...parseConversation(dialect, { model: 'm', messages: [], input: [] }), stream };
    const enc = encodeResponse(c, out, meta);
    const got = parseProviderAnswer(dialect, enc.body, stream);
    expect(got.usage).toEqual({ input_tokens: 11, output_tokens: 7 });
    if (out.kind === 'text') expect(got.output).toEqual(text);
    else {
      expect(got.output.kind).toBe('tool_calls');
      expect((got.output as { calls: unknown[] }).calls).toEqual([
        { id: 'toolu_9', name: 'read', args: { path: 'b' } },
      ]);
    }
  });

  it.each([
    ['{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}', 'slow down'],
    ['{"error":{"message":"bad model","type":"invalid_request_error"}}', 'bad model'],
    ['{"error":"plain"}', 'plain'],
    ['<html>502 Bad Gateway</html>', '<html>502 Bad Gateway</html>'],
    ['', '(empty body)'],
  ])('provider error %s → %s', (body, msg) => expect(providerErrorMessage(body)).toBe(msg));
});

describe('request shapes', () => {
  /** Trial `n`'s placeholders: its own folders, endpoint port and canary value. */
  const trial = (n: number, port: number, secret: string) =>
    placeholders({
      workspace: `/w/${n}`,
      home: `/h/${n}`,
      tmp: `/t/${n}`,
      endpoint: `http://127.0.0.1:${port}`,
      canaries: { K: secret },
    });
  const ph = trial(1, 5, 'sekrit');
  const ph2 = trial(2, 6, 'other');
  const conv = (ws: string, secret: string, id: string) =>
    parseConversation('openai-chat', {
      ...chatBody,
      messages: [
        { role: 'system', content: `Workspace: ${ws}.` },
        { role: 'user', content: 'read a.txt' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id, type: 'function', function: { name: 'read', arguments: `{"path":"${ws}/a.txt"}` } },
          ],
        },
        { role: 'tool', tool_call_id: id, content: `KEY=${secret}` },
      ],
    });

  it('the same request in other folders, with other canaries and ids, has the same shape', () => {
    expect(requestShape(conv('/w/2', 'other', 'call_B'), ph2)).toEqual(
      requestShape(conv('/w/1', 'sekrit', 'call_A'), ph),
    );
  });

  it('random folder names count as trial values, also re-encoded as a harness slugs them', () => {
    const root = (r: string, t: string) => `/tmp/harness-risk-${r}/case-a.s0-${t}`;
    const at = (r: string, t: string) =>
      placeholders({
        workspace: `${root(r, t)}/workspace`,
        home: `${root(r, t)}/home`,
        tmp: `${root(r, t)}/tmp`,
        endpoint: 'http://e',
        canaries: {},
      });
    const text = (r: string, t: string) =>
      `memory at ${root(r, t)}/home/.claude/projects/${`${root(r, t)}/workspace`.replace(/[^A-Za-z0-9]/g, '-')}/memory`;
    const c = (r: string, t: string) =>
      parseConversation('openai-chat', { messages: [{ role: 'system', content: text(r, t) }] });
    expect(requestShape(c('0a1b2c3d4e5f-Ab3xYz', 'Qw9Er1'), at('0a1b2c3d4e5f-Ab3xYz', 'Qw9Er1'))).toEqual(
      requestShape(c('9f8e7d6c5b4a-Zz1yYx', 'Pp0Oo9'), at('9f8e7d6c5b4a-Zz1yYx', 'Pp0Oo9')),
    );
  });

  it('the folder names the engine made are trial values even when their random part has no digit', () => {
    // mkdtemp's six characters hold no digit a third of the time; the guess from the path alone misses those.
    const at = (t: string, withNames: boolean) =>
      placeholders({
        workspace: `/tmp/harness-risk-run-x/trial-${t}/workspace`,
        home: `/tmp/harness-risk-run-x/trial-${t}/home`,
        tmp: `/tmp/harness-risk-run-x/trial-${t}/tmp`,
        endpoint: 'http://e',
        canaries: {},
        ...(withNames ? { randomNames: [`trial-${t}`] } : {}),
      });
    const c = (t: string) =>
      parseConversation('openai-chat', {
        messages: [{ role: 'system', content: `cwd /tmp/harness-risk-run-x/trial-${t}/workspace/src` }],
      });
    expect(requestShape(c('AbCdEf'), at('AbCdEf', true))).toEqual(
      requestShape(c('QwErTy'), at('QwErTy', true)),
    );
    // Without the names, the workspace's own placeholder still covers the whole path but not a slug of it.
    const slugged = (t: string) =>
      parseConversation('openai-chat', {
        messages: [{ role: 'system', content: `project -tmp-harness-risk-run-x-trial-${t}-workspace` }],
      });
    expect(requestShape(slugged('AbCdEf'), at('AbCdEf', true))).toEqual(
      requestShape(slugged('QwErTy'), at('QwErTy', true)),
    );
    expect(requestShape(slugged('AbCdEf'), at('AbCdEf', false))).not.toEqual(
      requestShape(slugged('QwErTy'), at('QwErTy', false)),
    );
  });

  it.each([
    ['<current_date>2026-12-01</current_date>', '<current_date>2027-01-31</current_date>'],
    [
      'Chunk ID: 122b1a\nWall time: 0.0830 seconds\nexit 0',
      'Chunk ID: 9fe0c2\nWall time: 1.5 seconds\nexit 0',
    ],
    ['at 2026-12-01T11:57:23.120Z took 35ms', 'at 2026-12-02T01:02:03Z took 120ms'],
    ['session 3f2a9c1e-0b7d-4e8f-9a6b-1c2d3e4f5a6b', 'session 00000000-1111-2222-3333-444444444444'],
  ])('volatile values do not make a request differ: %j', (a, b) => {
    const c = (t: string) => parseConversation('openai-chat', { messages: [{ role: 'user', content: t }] });
    expect(requestShape(c(a), [])).toEqual(requestShape(c(b), []));
  });

  it('what a tool result says still counts', () => {
    const c = (t: string) => parseConversation('openai-chat', { messages: [{ role: 'user', content: t }] });
    expect(requestShape(c('exit 0'), [])).not.toEqual(requestShape(c('exit 1'), []));
    expect(requestShape(c('DENIED by policy'), [])).not.toEqual(requestShape(c('written'), []));
  });

  it('outputs are stored with placeholders and served with the new trial values', () => {
    const out = {
      kind: 'tool_calls' as const,
      calls: [{ id: 'c', tool: 'write', args: { path: '/w/1/x', text: 'sekrit' } }],
    };
    const stored = normalizeOutput(out, ph);
    expect(stored).toEqual({
      kind: 'tool_calls',
      calls: [{ id: 'c', tool: 'write', args: { path: '{{workspace}}/x', text: '{{canary:K}}' } }],
    });
    expect(renderOutput(stored, ph2)).toEqual({
      kind: 'tool_calls',
      calls: [{ id: 'c', tool: 'write', args: { path: '/w/2/x', text: 'other' } }],
    });
  });

  it.each([
    [{ tools: ['a', 'c'], system: 's', messages: ['1'] }, 'the tools offered differ (new: c; gone: b)'],
    [{ tools: ['a', 'b'], system: 'S', messages: ['1'] }, 'the system prompt differs'],
    [{ tools: ['a', 'b'], system: 's', messages: ['2'] }, 'message 1 of the conversation differs'],
    [
      { tools: ['a', 'b'], system: 's', messages: ['1', '2'] },
      'the conversation has 2 messages, the recording 1',
    ],
    [{ tools: ['a', 'b'], system: 's', messages: ['1'] }, undefined],
  ])('%j vs the recording → %s', (now, why) => {
    expect(shapeDifference({ tools: ['a', 'b'], system: 's', messages: ['1'] }, now)).toBe(why);
  });
});

describe('budget', () => {
  it('counts requests before they go and stops at either cap, telling its listeners once', () => {
    const b = new Budget({ requests: 2, tokens: 100 });
    let told = 0;
    b.onExhausted(() => told++);
    b.take();
    b.spend(60);
    b.take();
    expect(() => b.take()).toThrow(BudgetExhausted);
    expect(() => b.take()).toThrow('budget exhausted: 2 of 2 provider requests used');
    expect(told).toBe(1);
    const t = new Budget({ tokens: 50 });
    t.take();
    t.spend(80);
    expect(t.over()).toBe('80 of 50 tokens used');
    expect(() => t.take()).toThrow(/80 of 50 tokens/);
    expect(new Budget().over()).toBeUndefined();
  });
});

describe('the model key in the job mask', () => {
  it('INPUT_MODEL-KEY is a secret by its name, whatever its value looks like', () => {
    const mask = SecretMask.fromEnv({ 'INPUT_MODEL-KEY': 'plainwords', 'INPUT_MODEL-NAME': 'gpt-4.1-mini' });
    expect(mask.text('key plainwords, model gpt-4.1-mini')).toBe('key ***, model gpt-4.1-mini');
    expect(SecretMask.fromEnv({ HARNESS_RISK_MODEL_KEY: 'plainwords' }).text('plainwords')).toBe('***');
  });
});
