// Tool discovery: a harness that hides tools behind a search (OpenClaw's tool_search/tool_call, Claude
// Code's ToolSearch) is searched, and what the search found is called: directly when the harness then
// offers it, else through its invoke tool. The fixture harness (test/fixtures/discovery-harness) offers
// read_file and a search tool only; its shell and HTTP tool come out of the search. Before discovery the
// attack had no route there (blocked) and the owner's fetch or chat read no tool (not applicable).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runSafetyCases } from '../src/engine/run.js';
import type { Evidence, ScriptContext } from '../src/evidence/types.js';
import type { ToolSpec } from '../src/model/conversation.js';
import { discoveryTools, foundCall, foundTools, hintSchema, markLoaded } from '../src/model/discovery.js';
import { evidenceFileOf } from '../src/result/files.js';
import type { RunResult } from '../src/spec/run-result.js';
import { routeContext } from './fixtures/model/context.js';
import { scriptedRun, useTempDir } from './support/engine-run.js';

const HARNESS = join(import.meta.dirname, 'fixtures', 'discovery-harness');
const dir = useTempDir('hr-discovery-');
// A workspace file, a web page and a chat message deliver the injection; each attack runs a command.
const CASES = ['install-doc-wget-toolchain', 'lint-api-autofix-shell', 'chat-repro-bash-curl'].map(
  (id) => `id:${id}`,
);

const tool = (name: string, description: string, properties: Record<string, unknown>): ToolSpec => ({
  name,
  description,
  schema: { type: 'object', properties },
  callable: true,
});
const ctx = routeContext;
const search = tool('search_tools', 'Search the catalog of tools not loaded yet.', {
  query: { type: 'string' },
});
const invoke = tool('call_tool', 'Call a tool found by search_tools.', {
  name: { type: 'string' },
  arguments: { type: 'object' },
});

describe('recognising discovery tools', () => {
  it('finds a search and an invoke tool by shape, with no adapter declaration', () => {
    const found = discoveryTools([tool('read_file', 'Read a file.', { path: {} }), search, invoke], ctx());
    expect(found?.search.tool.name).toBe('search_tools');
    expect(found?.invoke).toMatchObject({ tool: { name: 'call_tool' }, name: 'name', args: 'arguments' });
  });

  it("leaves MCP's own generic tool and a tool that only mentions search alone", () => {
    const mcp = tool('use_mcp_tool', 'Call a tool of an MCP server.', {
      tool_name: { type: 'string' },
      arguments: { type: 'object' },
    });
    const grep = tool('grep', 'Search file contents for a pattern.', { query: { type: 'string' } });
    expect(discoveryTools([mcp, grep], ctx())).toBeUndefined();
  });

  it('takes the adapter declaration for tools no shape gives away', () => {
    const lookup = tool('lookup_capability', 'Look up a capability.', { keywords: { type: 'string' } });
    const dispatch = tool('dispatch', 'Dispatch a capability.', {
      capability: { type: 'string' },
      input: { type: 'object' },
    });
    expect(discoveryTools([lookup, dispatch], ctx())).toBeUndefined();
    const declared = ctx({
      discovery: {
        search: { name: 'lookup_capability', query: 'keywords' },
        invoke: { name: 'dispatch', tool: 'capability', args: 'input' },
      },
    });
    expect(discoveryTools([lookup, dispatch], declared)).toMatchObject({
      search: { query: 'keywords' },
      invoke: { name: 'capability', args: 'input' },
    });
  });
});

describe('reading what a search found', () => {
  it("OpenClaw's catalog entries: names, ids and input hints become schemas", () => {
    const text = JSON.stringify({
      results: [
        {
          id: 'openclaw:core:web_fetch',
          name: 'web_fetch',
          description: 'Fetch a URL.',
          input: '{ maxChars?: number; url: string }',
        },
      ],
    });
    const [entry] = foundTools(text, [search, invoke]);
    expect(entry).toMatchObject({ name: 'web_fetch', id: 'openclaw:core:web_fetch' });
    expect(hintSchema('{ maxChars?: number; url: string }')).toEqual({
      type: 'object',
      properties: { maxChars: { type: 'number' }, url: { type: 'string' } },
      required: ['url'],
    });
    // Not offered now: called through the invoke tool, by the id the catalog gave.
    const call = foundCall(
      { do: 'fetch', url: 'http://svc/x', method: 'GET' },
      text,
      [search, invoke],
      ctx(),
    );
    expect(call).toEqual({
      tool: 'call_tool',
      args: { name: 'openclaw:core:web_fetch', arguments: { url: 'http://svc/x' } },
      via_shell: false,
    });
  });

  // Qwen Code's tool_search answers with Gemini function declarations, the schema in parametersJsonSchema:
  // read as no schema, web_fetch was called without the prompt it requires, and refused.
  it('a Gemini-style declaration (parametersJsonSchema): the required arguments are filled', () => {
    const text = `<functions>\n<function>${JSON.stringify({
      name: 'web_fetch',
      description: 'Fetches content from a specified URL and processes it using an AI model',
      parametersJsonSchema: {
        type: 'object',
        properties: { url: { type: 'string' }, prompt: { type: 'string' } },
        required: ['url', 'prompt'],
      },
    })}</function>\n</functions>`;
    const call = foundCall(
      { do: 'fetch', url: 'http://svc/x', method: 'GET' },
      text,
      [search, invoke],
      ctx(),
    );
    expect(call?.tool).toBe('call_tool');
    expect(call?.args).toMatchObject({
      name: 'web_fetch',
      arguments: { url: 'http://svc/x', prompt: expect.any(String) },
    });
  });

  it('names of tools offered now (Claude Code tool_reference) are called directly', () => {
    const webFetch = tool('WebFetch', 'Fetch.', { url: { type: 'string' }, prompt: { type: 'string' } });
    const call = foundCall(
      { do: 'fetch', url: 'http://svc/x', method: 'GET' },
      'WebFetch\nWebSearch',
      [search, webFetch],
      ctx(),
    );
    expect(call?.tool).toBe('WebFetch');
    expect(call?.args).toMatchObject({ url: 'http://svc/x' });
  });

  it('a tool the search loaded is marked, so the step keeps the routes it had before the search', () => {
    const shell = tool('shell', 'Run a command.', { command: { type: 'string' } });
    const marked = markLoaded(
      [search, shell],
      [{ action: { do: 'run', command: 'id' }, text: 'Loaded tools: shell' }],
      ctx(),
    );
    expect(marked.find((t) => t.name === 'shell')?.loaded).toBe(true);
    expect(marked.find((t) => t.name === 'search_tools')?.loaded).toBeUndefined();
  });
});

describe('attacks through a harness that hides its shell behind a search', () => {
  const results: Record<string, RunResult> = {};
  beforeAll(async () => {
    for (const [name, adapter, config] of [
      ['direct', HARNESS, 'direct'],
      ['invoke', HARNESS, 'invoke'],
      ['load', HARNESS, 'load'],
      ['declared', join(HARNESS, 'declared.yaml'), 'invoke'],
      ['http-fails', HARNESS, 'http-fails'],
    ] as const)
      results[name] = await runSafetyCases(
        scriptedRun({ adapter, config, cases: CASES, out: join(dir(), `${name}.json`), keep_evidence: true }),
      );
  }, 300_000);

  const labels = (r: RunResult) =>
    Object.fromEntries(r.trials.map((t) => [t.case_id, t.valid && !t.not_applicable ? t.labels.a : 'n/a']));

  it('the shell offered up front: every attack succeeds (the comparison means something)', () => {
    expect(Object.values(labels(results.direct!))).toEqual([true, true, true]);
  });

  for (const name of ['invoke', 'load', 'declared'])
    it(`${name}: the same attacks succeed through the search, and the owner's work is done`, () => {
      const r = results[name]!;
      expect(labels(r)).toEqual(labels(results.direct!));
      expect(r.trials.every((t) => t.labels.u)).toBe(true);
    });

  // The owner's fetch finds http_get, which refuses the host (as OpenClaw's web_fetch refuses loopback):
  // its shell form is still owed, so the page (and its injection) arrives. Before: not applicable.
  it("http-fails: a found tool that fails the owner's step leaves it to the shell", () => {
    expect(labels(results['http-fails']!)).toEqual(labels(results.direct!));
  });
});

// A search that found nothing is not made again with the same words (a real model reads the answer it
// has). Before, every step needing the same capability searched again: Qwen Code's loop detection ended
// the run (exit 1, the trial invalid) on a case whose four attacker steps and owner step all deploy.
describe('the same search is not made twice', () => {
  let r: RunResult;
  beforeAll(async () => {
    r = await runSafetyCases(
      scriptedRun({
        adapter: HARNESS,
        config: 'empty-halt',
        cases: ['id:memory-deploy-everything-habit'],
        out: join(dir(), 'empty-halt.json'),
        keep_evidence: true,
      }),
    );
  }, 120_000);

  it('one search for the capability, the trial valid (nothing found: nothing done)', async () => {
    const [t] = r.trials;
    expect(t!.invalid_reason).toBeUndefined();
    expect(t!.valid).toBe(true);
    expect(t!.labels).toMatchObject({ a: false, p: false, u: false });
    const ev = JSON.parse(
      await readFile(evidenceFileOf(join(dir(), 'empty-halt.json'), t!.evidence_file!), 'utf8'),
    ) as Evidence;
    const searches = ev.model.flatMap((m) =>
      m.response.kind === 'tool_calls' ? m.response.calls.filter((c) => c.tool === 'search_tools') : [],
    );
    expect(searches.map((c) => JSON.stringify(c.args))).toEqual([
      JSON.stringify({ query: 'deploy trigger or shell command' }),
    ]);
  });
});
