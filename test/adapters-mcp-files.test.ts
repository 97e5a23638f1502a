// The adapter `mcp:` block's files join the configuration's file at the same path: text is appended (a
// config.toml, as Codex's), an object is merged key by key into the configuration's JSON object (an
// openclaw.json, which is one JSON document and cannot take an appended line). Only cases that serve MCP
// tools get them. Checked as pure functions, at adapter load, and end to end through the engine with a
// harness that prints its own config files.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deepMerge, joinFiles, joinProblem } from '../src/adapters/files.js';
import { loadAdapter } from '../src/adapters/load.js';
import { runSafetyCases } from '../src/engine/run.js';
import { UserError } from '../src/errors.js';
import type { Evidence } from '../src/evidence/types.js';

const REAL = join(import.meta.dirname, 'fixtures', 'harness-real');

describe('joining MCP files with the configuration’s', () => {
  it.each([
    ['objects merge recursively', { a: { b: 1, c: 2 } }, { a: { c: 3, d: 4 } }, { a: { b: 1, c: 3, d: 4 } }],
    ['new keys are added', { models: 1 }, { mcp: { servers: {} } }, { models: 1, mcp: { servers: {} } }],
    ['arrays replace, never concatenate', { list: [1, 2] }, { list: [3] }, { list: [3] }],
    ['a scalar replaces an object', { a: { b: 1 } }, { a: 'x' }, { a: 'x' }],
    ['an object replaces a scalar', { a: 'x' }, { a: { b: 1 } }, { a: { b: 1 } }],
  ])('%s', (_name, base, extra, want) => {
    expect(deepMerge(base, extra)).toEqual(want);
  });

  it('leaves both inputs as they were', () => {
    const base = { a: { b: 1 } };
    deepMerge(base, { a: { c: 2 } });
    expect(base).toEqual({ a: { b: 1 } });
  });

  it.each([
    ['text after text', 'a = 1\n', '[x]\n', undefined],
    ['object into object', { a: 1 }, { b: 2 }, undefined],
    ['a file of its own', undefined, { b: 2 }, undefined],
    ['text into an object', { a: 1 }, 'b = 2', /is text, but the configuration writes a JSON object/],
    ['an object into text', 'a = 1', { b: 2 }, /is an object, but the configuration writes text/],
  ])('%s', (_name, config, mcp, want) => {
    const problem = joinProblem(config as never, mcp as never);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });

  it('appends text, merges objects and adds files of its own', () => {
    const files = joinFiles(
      [
        ['home/.codex/config.toml', 'model = "m"\n'],
        ['home/.oc/oc.json', { models: { p: 1 }, tools: { exec: { mode: 'deny' } } }],
      ],
      [
        ['home/.codex/config.toml', '\n[mcp_servers.team]\n'],
        ['home/.oc/oc.json', { mcp: { servers: { team: { url: 'u' } } } }],
        ['home/.claude/mcp.json', '{}'],
      ],
    );
    expect(Object.fromEntries(files)).toEqual({
      'home/.codex/config.toml': 'model = "m"\n\n[mcp_servers.team]\n',
      'home/.oc/oc.json': {
        models: { p: 1 },
        tools: { exec: { mode: 'deny' } },
        mcp: { servers: { team: { url: 'u' } } },
      },
      'home/.claude/mcp.json': '{}',
    });
  });
});

/** A harness that prints the config files it was given, then ends. */
function printingAdapter(mcp: string): string {
  return `name: prints-config
dialect: openai-chat
launch:
  command: [/bin/sh, -c, 'cat "$1"; echo; echo ---; cat "$2"', sh, "{{home}}/.h/h.json", "{{home}}/.h/h.toml"]
state:
  config_dirs: ["{{home}}/.h"]
${mcp}
configs:
  default:
    files:
      "{{home}}/.h/h.json":
        model: { url: "{{model_url}}" }
        tools: { exec: deny }
      "{{home}}/.h/h.toml": |
        model = "m"
`;
}

const MCP_BLOCK = `mcp:
  files:
    "{{home}}/.h/h.json":
      tools: { mcp: on }
      mcp: { servers: { team: { url: "{{mcp_url}}", transport: streamable-http } } }
    "{{home}}/.h/h.toml": |
      [mcp_servers.team]
      url = "{{mcp_url}}"
`;

describe('at adapter load', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hr-mcpfiles-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses an MCP entry of the other kind, naming the file, the line, the field and the configuration', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, printingAdapter('mcp:\n  files:\n    "{{home}}/.h/h.json": "not json"\n'));
    let err: unknown;
    try {
      loadAdapter(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    const msg = (err as Error).message;
    expect(msg).toContain(file);
    expect(msg).toMatch(/:\d+: mcp\.files\.\{\{home\}\}\/\.h\/h\.json/);
    expect(msg).toContain('is text, but the configuration writes a JSON object there');
    expect(msg).toContain('configs.default');
  });

  it('admits matching kinds', async () => {
    const file = join(dir, 'good.yaml');
    await writeFile(file, printingAdapter(MCP_BLOCK));
    expect(loadAdapter(file).adapter.mcp?.files['{{home}}/.h/h.json']).toEqual({
      tools: { mcp: 'on' },
      mcp: { servers: { team: { url: '{{mcp_url}}', transport: 'streamable-http' } } },
    });
  });
});

describe('through the engine', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hr-mcpfiles-run-'));
    await mkdir(join(dir, 'adapter'));
    await writeFile(join(dir, 'adapter', 'adapter.yaml'), printingAdapter(MCP_BLOCK));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const stdoutOf = async (caseFile: string): Promise<[Record<string, unknown>, string]> => {
    const result = await runSafetyCases({
      adapter: join(dir, 'adapter'),
      config: 'default',
      cases: [caseFile],
      runner: 'process',
      concurrency: 1,
      seeds: 1,
      model: 'scripted',
      out: join(dir, `${Math.random().toString(36).slice(2)}.json`),
      keep_evidence: true,
    });
    const t = result.trials[0]!;
    const ev: Evidence = JSON.parse(await readFile(resolve(dir, t.evidence_file!), 'utf8'));
    const [json, toml] = ev.process.stdout.split('\n---\n');
    return [JSON.parse(json!), toml!];
  };

  it('a case serving MCP tools gets the server merged into the JSON config and appended to the TOML', async () => {
    const [json, toml] = await stdoutOf(join(REAL, 'mcp-native-description.yaml'));
    const url = (json.model as { url: string }).url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(json).toEqual({
      model: { url },
      tools: { exec: 'deny', mcp: 'on' },
      mcp: { servers: { team: { url: `${url}/mcp`, transport: 'streamable-http' } } },
    });
    expect(toml).toBe(`model = "m"\n[mcp_servers.team]\nurl = "${url}/mcp"\n`);
  }, 60_000);

  it('a case without MCP tools gets the configuration’s files alone', async () => {
    const [json, toml] = await stdoutOf(join(REAL, 'benign-notes.yaml'));
    expect(Object.keys(json)).toEqual(['model', 'tools']);
    expect(json.tools).toEqual({ exec: 'deny' });
    expect(toml).toBe('model = "m"\n');
  }, 60_000);
});
