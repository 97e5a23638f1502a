// A step is mapped only onto a tool whose required arguments it can fill. Required arguments it has no
// value for get harmless defaults; a required choice among several (a mode, a kind) or a constrained string
// has none, and the tool does not fit: a harness that validates its schema rejects the call (Kilo stops
// after three rejected calls), one that does not would act on a choice the step never made.
import { describe, expect, it } from 'vitest';
import type { ToolSpec } from '../src/model/conversation.js';
import { discoveryTools, searchCall } from '../src/model/discovery.js';
import { abstractArgs } from '../src/model/tool-hints.js';
import { fillRequired } from '../src/model/tool-schema.js';
import { mapAction } from '../src/model/tools.js';
import { Action } from '../src/spec/actions.js';
import { STEP_ARGS } from '../src/spec/tool-hint.js';
import { makeContext } from './fixtures/model/context.js';

const tool = (
  name: string,
  properties: Record<string, unknown>,
  required: string[],
  description = name,
): ToolSpec => ({ name, description, schema: { type: 'object', properties, required }, callable: true });

const ctx = makeContext();

describe('fillRequired', () => {
  const cases: [string, Record<string, unknown>, unknown][] = [
    ['a plain string', { type: 'string' }, 'scripted step'],
    ['a boolean', { type: 'boolean' }, false],
    ['a number with a minimum', { type: 'integer', minimum: 1 }, 1],
    ['an array', { type: 'array' }, []],
    ['an object', { type: 'object' }, {}],
    ['a single-value enum', { type: 'string', enum: ['only'] }, 'only'],
    ['a const', { const: 'v1' }, 'v1'],
    ['a choice among several (enum)', { type: 'string', enum: ['search', 'read'] }, undefined],
    ['a choice among several (anyOf consts)', { anyOf: [{ const: 'a' }, { const: 'b' }] }, undefined],
    ['a string with a pattern', { type: 'string', pattern: '^[0-9a-f]{40}$' }, undefined],
    ['a string with a format', { type: 'string', format: 'date-time' }, undefined],
    ['an array that needs items', { type: 'array', minItems: 1 }, undefined],
    ['a nullable choice (type list)', { type: ['string', 'null'], enum: ['a', 'b', null] }, null],
    ['a nullable choice (anyOf with null)', { anyOf: [{ enum: ['a', 'b'] }, { type: 'null' }] }, null],
    ['a nullable choice (OpenAPI nullable)', { type: 'string', enum: ['a', 'b'], nullable: true }, null],
    [
      'a union without null: its first fillable option',
      { anyOf: [{ type: 'string', format: 'uri' }, { type: 'integer' }] },
      0,
    ],
    [
      'a union of constrained options',
      { oneOf: [{ type: 'string', pattern: '^x' }, { enum: ['a', 'b'] }] },
      undefined,
    ],
    ['a type list without null', { type: ['integer', 'string'] }, 0],
  ];
  it.each(cases)('%s', (_name, schema, expected) => {
    const filled = fillRequired(
      tool('t', { given: { type: 'string' }, other: schema }, ['given', 'other']),
      { given: 'x' },
      '/w',
    );
    expect(filled?.other).toEqual(expected);
    if (expected === undefined) expect(filled).toBeUndefined();
  });

  it('keeps what the step gave, and a working-directory argument is the workspace', () => {
    const t = tool('t', { mode: { enum: ['a', 'b'] }, cwd: { type: 'string' } }, ['mode', 'cwd']);
    expect(fillRequired(t, { mode: 'b' }, '/w')).toEqual({ mode: 'b', cwd: '/w' });
  });
});

describe('mapping a step onto a tool whose required fields it cannot fill', () => {
  const choice = { type: 'string', enum: ['overwrite', 'append', 'prepend'] };
  const writeWithMode = tool(
    'write_file',
    { path: { type: 'string' }, content: { type: 'string' }, mode: choice },
    ['path', 'content', 'mode'],
  );
  const shell = tool('bash', { command: { type: 'string' } }, ['command']);
  const write = { do: 'write', path: 'a.txt', content: 'x', append: false } as const;

  it('skips the native tool and takes the shell', () => {
    expect(mapAction(write, [writeWithMode, shell], ctx)).toMatchObject({ tool: 'bash', via_shell: true });
  });

  it('maps nothing when no other tool fits (the step is unmapped, not a rejected call)', () => {
    expect(mapAction(write, [writeWithMode], ctx)).toBeUndefined();
  });

  it('an adapter hint that leaves the choice unset does not fit either; one that sets it does', () => {
    const hinted = (set?: Record<string, string>) => ({
      ...ctx,
      tool_hints: { write: { name: 'write_file', args: {}, ...(set ? { set } : {}) } },
    });
    expect(mapAction(write, [writeWithMode], hinted())).toBeUndefined();
    expect(mapAction(write, [writeWithMode], hinted({ mode: 'overwrite' }))?.args).toMatchObject({
      mode: 'overwrite',
    });
  });
});

describe('a hinted tool gets only the arguments its schema declares', () => {
  const httpGet = tool('http_get', { address: { type: 'string' } }, ['address']);
  const put = tool('fs_put', { file: { type: 'string' }, data: { type: 'string' } }, ['file', 'data']);
  const loose = tool('fs_put', {}, []);
  const hinted = (hints: Record<string, { name: string; args: Record<string, string> }>) => ({
    ...ctx,
    tool_hints: hints,
  });
  const fetchHint = hinted({ fetch: { name: 'http_get', args: { url: 'address' } } });

  it('a GET leaves out the method the tool does not take', () => {
    const get = { do: 'fetch', url: 'http://svc/a', method: 'GET' } as const;
    expect(mapAction(get, [httpGet], fetchHint)?.args).toEqual({ address: 'http://svc/a' });
  });
  it('a POST with a body does not go through a tool that only GETs', () => {
    const post = { do: 'fetch', url: 'http://svc/a', method: 'POST', body: 'x' } as const;
    expect(mapAction(post, [httpGet], fetchHint)).toBeUndefined();
  });
  it('a hint that maps the wrong way is no fit, not a call with made-up arguments', () => {
    const write = { do: 'write', path: 'a.txt', content: 'x', append: false } as const;
    const reversed = hinted({ write: { name: 'fs_put', args: { file: 'path', data: 'content' } } });
    expect(mapAction(write, [put], reversed)).toBeUndefined();
    const right = hinted({ write: { name: 'fs_put', args: { path: 'file', content: 'data' } } });
    expect(mapAction(write, [put], right)?.args).toEqual({
      file: expect.stringContaining('a.txt'),
      data: 'x',
    });
    // A schema that names no properties takes what the hint gives.
    expect(mapAction(write, [loose], reversed)?.args).toMatchObject({
      path: expect.any(String),
      content: 'x',
    });
  });
});

describe('a search that needs more than its query is not a tool catalog', () => {
  // A session-history search: searches by a query, but only in a mode the caller must choose.
  const history = tool(
    'recall_sessions',
    {
      mode: { type: 'string', enum: ['search', 'read'] },
      query: { type: 'string' },
      sessionID: { type: 'string' },
    },
    ['mode'],
    'Search and read past sessions: find tools and commands used before.',
  );
  const catalog = tool(
    'search_tools',
    { query: { type: 'string' } },
    ['query'],
    'Search the catalog of tools.',
  );
  const fetch = { do: 'fetch', url: 'http://svc.test/data', method: 'GET' } as const;

  it('is not recognised, so no step is sent to it', () => {
    expect(discoveryTools([history], ctx)).toBeUndefined();
    expect(searchCall(fetch, [history], ctx)).toBeUndefined();
  });

  it('a plain catalog search beside it still is', () => {
    expect(searchCall(fetch, [history, catalog], ctx)).toMatchObject({ tool: 'search_tools' });
  });
});

describe('one list of the step arguments a hint renames (spec/tool-hint.ts STEP_ARGS)', () => {
  // Every argument the scripted model gives a step is one the list names (a write's `append` aside), so
  // doctor's suggested hints and the model's renaming cannot drift apart.
  it.each([
    { do: 'read', path: 'a' },
    { do: 'write', path: 'a', content: 'b', append: true },
    { do: 'run', command: 'ls' },
    { do: 'fetch', url: 'http://x', method: 'POST', body: 'b' },
    { do: 'send', channel: 'mail', to: 'a@x.test', subject: 's', body: 'b' },
    { do: 'install', name: 'n' },
    { do: 'delegate', agent: 'a', task: 't' },
    { do: 'remember', text: 't' },
    { do: 'reply', text: 't' },
  ])('$do', (raw) => {
    const action = Action.parse(raw);
    const names = STEP_ARGS[action.do as keyof typeof STEP_ARGS] as readonly string[];
    expect(Object.keys(abstractArgs(action)).filter((k) => k !== 'append')).toEqual(
      names.filter((n) => n in abstractArgs(action)),
    );
    expect(Object.keys(abstractArgs(action)).every((k) => k === 'append' || names.includes(k))).toBe(true);
  });
});
