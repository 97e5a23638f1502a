// A request that asks for structured output gets JSON of its schema (model/structured-answer.ts), in every
// dialect: a harness's own structured side request (Gemini CLI's model router) otherwise retries on plain
// text. Fails on the model that answered every such request with its plain text.
import { describe, expect, it } from 'vitest';
import { CallLedger } from '../src/model/ids.js';
import { answerRequest } from '../src/model/server.js';
import { schemaInstance, structuredText } from '../src/model/structured-answer.js';
import { makeContext } from './fixtures/model/context.js';
import { readAnswer } from './fixtures/model/harnesses.js';

describe('an instance of the schema, its strings carrying the text', () => {
  it.each<[string, unknown, unknown]>([
    ['string', { type: 'string' }, 'T'],
    [
      'Gemini upper-case types',
      {
        type: 'OBJECT',
        properties: { complexity_reasoning: { type: 'STRING' }, complexity_score: { type: 'INTEGER' } },
        required: ['complexity_reasoning', 'complexity_score'],
      },
      { complexity_reasoning: 'T', complexity_score: 0 },
    ],
    ['enum: its first value', { type: 'string', enum: ['flash', 'pro'] }, 'flash'],
    ['const', { const: 'v1' }, 'v1'],
    ['integer within bounds', { type: 'integer', minimum: 1, maximum: 100 }, 1],
    ['exclusive minimum', { type: 'integer', exclusiveMinimum: 0 }, 1],
    ['negative maximum only', { type: 'number', maximum: -5 }, -5],
    ['boolean', { type: 'boolean' }, false],
    ['type list with null', { type: ['null', 'string'] }, 'T'],
    ['anyOf: the first that is not null', { anyOf: [{ type: 'null' }, { type: 'integer' }] }, 0],
    ['array: the fewest items', { type: 'array', items: { type: 'string' }, minItems: 2 }, ['T', 'T']],
    ['empty array', { type: 'array', items: { type: 'string' } }, []],
    [
      'nested',
      { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'boolean' } } } } },
      { a: { b: false } },
    ],
    ['JSON mode without a schema keeps the text', { type: 'object' }, { text: 'T' }],
  ])('%s', (_name, schema, want) => expect(schemaInstance(schema, 'T')).toEqual(want));

  it('without an output schema the text is the text', () => {
    expect(structuredText({}, 'hello')).toBe('hello');
    expect(JSON.parse(structuredText({ outputSchema: { type: 'string' } }, 'a "b"\nc'))).toBe('a "b"\nc');
  });
});

/** Gemini CLI 0.61.0's router request, as captured from the harness (system prompt shortened). */
const routerBody = {
  contents: [{ role: 'user', parts: [{ text: 'Summarise notes.md' }] }],
  systemInstruction: {
    role: 'user',
    parts: [{ text: 'You are a specialized Task Routing AI. Respond *only* in JSON.' }],
  },
  generationConfig: {
    responseMimeType: 'application/json',
    responseJsonSchema: {
      type: 'OBJECT',
      properties: {
        complexity_reasoning: { type: 'STRING', description: 'Brief explanation for the score.' },
        complexity_score: { type: 'INTEGER', description: 'Complexity score from 1-100.' },
      },
      required: ['complexity_reasoning', 'complexity_score'],
    },
  },
};

describe('the scripted model answers a structured request in its schema, in each dialect', () => {
  const cases: [
    string,
    'gemini' | 'openai-chat' | 'anthropic-messages' | 'openai-responses',
    string,
    unknown,
  ][] = [
    [
      'gemini responseJsonSchema',
      'gemini',
      '/v1beta/models/gemini-3.5-flash-lite:generateContent',
      routerBody,
    ],
    [
      'openai-chat response_format',
      'openai-chat',
      '/v1/chat/completions',
      {
        model: 'm',
        messages: [{ role: 'user', content: 'Summarise notes.md' }],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'route',
            schema: { type: 'object', properties: { score: { type: 'integer' }, why: { type: 'string' } } },
          },
        },
      },
    ],
    [
      'anthropic output_format',
      'anthropic-messages',
      '/v1/messages',
      {
        model: 'm',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Summarise notes.md' }],
        output_format: {
          type: 'json_schema',
          schema: { type: 'object', properties: { score: { type: 'integer' }, why: { type: 'string' } } },
        },
      },
    ],
    [
      'openai-responses text.format',
      'openai-responses',
      '/v1/responses',
      {
        model: 'm',
        input: [{ role: 'user', content: 'Summarise notes.md' }],
        text: {
          format: {
            type: 'json_schema',
            name: 'route',
            schema: { type: 'object', properties: { score: { type: 'integer' }, why: { type: 'string' } } },
          },
        },
      },
    ],
  ];
  it.each(cases)('%s', (_name, dialect, path, body) => {
    const { encoded, entry } = answerRequest(
      dialect,
      path,
      JSON.stringify(body),
      makeContext(),
      new CallLedger('t'),
    );
    const text =
      dialect === 'gemini'
        ? JSON.parse(String(encoded.body))
            .candidates[0].content.parts.map((p: { text?: string }) => p.text ?? '')
            .join('')
        : readAnswer(dialect, encoded.body, false).text;
    const parsed = JSON.parse(text);
    const [num, str] = dialect === 'gemini' ? ['complexity_score', 'complexity_reasoning'] : ['score', 'why'];
    expect(typeof parsed[num]).toBe('number');
    expect(typeof parsed[str]).toBe('string');
    // The evidence keeps what the model said, not its wire form.
    expect(entry.response.kind === 'text' && entry.response.text).toBe(parsed[str]);
  });
});
