// Table tests of the output rule language (src/adapters/parsers/): each feature on small outputs, and the
// errors an adapter author gets for a rule that cannot work (file, field, what to do).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAdapter } from '../src/adapters/load.js';
import { applyRules } from '../src/adapters/parsers/apply.js';
import { parseHarnessOutput } from '../src/adapters/parsers/index.js';
import { OutputRule } from '../src/adapters/parsers/rules.js';
import { render, templateProblem } from '../src/adapters/parsers/template.js';

const j = (...lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n');
const run = (rules: unknown[], stdout: string, stderr = '') =>
  applyRules(
    rules.map((r) => OutputRule.parse(r)),
    stdout,
    stderr,
  ).map((e) => [e.kind, e.tool ?? null, e.text]);

interface Row {
  name: string;
  rules: unknown[];
  stdout: string;
  stderr?: string;
  events: [string, string | null, string][];
}

const rows: Row[] = [
  {
    name: 'each: one event per array element; paths read the element, $.path the line',
    rules: [
      {
        kind: 'tool',
        format: 'json',
        each: 'message.content',
        where: { '$.type': 'assistant', type: 'tool_use' },
        tool: 'name',
        text: '{input.command}',
      },
    ],
    stdout: j(
      {
        type: 'assistant',
        message: {
          content: [
            { type: 'text', text: 'hi' },
            { type: 'tool_use', name: 'Bash', input: { command: 'ls' } },
            { type: 'tool_use', name: 'Bash', input: { command: 'pwd' } },
          ],
        },
      },
      { type: 'user', message: { content: [{ type: 'tool_use', name: 'Nope' }] } },
    ),
    events: [
      ['tool', 'Bash', 'ls'],
      ['tool', 'Bash', 'pwd'],
    ],
  },
  {
    name: 'each over a list of strings: @ is the element',
    rules: [{ kind: 'tool', format: 'json', each: 'tools', tool: '@', text: '' }],
    stdout: j({ tools: ['read', 'exec'] }, { tools: 'not a list' }),
    events: [
      ['tool', 'read', ''],
      ['tool', 'exec', ''],
    ],
  },
  {
    name: 'where: {not}, {in}, {exists}, {match}; a list means any',
    rules: [
      {
        kind: 'denial',
        format: 'json',
        where: { code: { exists: true, not: 0 }, msg: { match: '^denied' } },
      },
      { kind: 'error', format: 'json', where: { code: { in: [2, 3] } }, field: 'msg' },
      {
        kind: 'warning',
        format: 'json',
        where: [{ level: 'warn' }, { note: { exists: true } }],
        field: 'msg',
      },
      { kind: 'tool', format: 'json', where: { code: { exists: false } }, field: 'msg' },
    ],
    stdout: j(
      { code: 1, msg: 'denied: x' },
      { code: 0, msg: 'denied: but exit 0' },
      { code: 2, msg: 'two' },
      { code: 9, msg: 'nine', level: 'warn' },
      { code: 9, msg: 'noted', note: null },
      { code: 9, msg: 'noted', note: 'n' },
      { code: null, msg: 'null code' },
    ),
    events: [
      ['denial', null, '{"code":1,"msg":"denied: x"}'],
      ['error', null, 'two'],
      ['warning', null, 'nine'],
      ['warning', null, 'noted'],
      ['tool', null, 'null code'],
    ],
  },
  {
    name: 'id + unless_seen: a call reported as denied is not also an error; from_id names its tool',
    rules: [
      { kind: 'tool', format: 'json', where: { t: 'call' }, id: 'id', tool: 'name', text: '' },
      { kind: 'denial', format: 'json', where: { t: 'denied' }, id: 'id', tool: 'name', text: 'denied' },
      {
        kind: 'error',
        format: 'json',
        where: { t: 'result', is_error: true },
        id: 'id',
        unless_seen: 'denial',
        tool: { from_id: true },
        field: 'text',
      },
    ],
    stdout: j(
      { t: 'call', id: 'a', name: 'Bash' },
      { t: 'call', id: 'b', name: 'Write' },
      { t: 'denied', id: 'a', name: 'Bash' },
      { t: 'result', id: 'a', is_error: true, text: 'needs approval' },
      { t: 'result', id: 'b', is_error: true, text: 'EACCES' },
      { t: 'result', id: 'zz', is_error: true, text: 'unknown call' },
    ),
    events: [
      ['tool', 'Bash', ''],
      ['tool', 'Write', ''],
      ['denial', 'Bash', 'denied'],
      ['error', 'Write', 'EACCES'],
      ['error', null, 'unknown call'],
    ],
  },
  {
    name: 'unless_seen {same: tool}: any earlier event about the tool (a document comes after the lines)',
    rules: [
      { kind: 'denial', stream: 'stderr', match: '^(?<tool>\\w+) refused' },
      {
        kind: 'error',
        format: 'document',
        each: 'failed',
        tool: '@',
        unless_seen: { kind: ['denial', 'error'], same: 'tool' },
        text: 'unresolved',
      },
    ],
    stdout: JSON.stringify({ failed: ['exec', 'read'] }, null, 2),
    stderr: 'exec refused by policy',
    events: [
      ['denial', 'exec', 'exec refused by policy'],
      ['error', 'read', 'unresolved'],
    ],
  },
  {
    name: 'replaces: a fuller report of the same call takes the first one’s place',
    rules: [
      {
        kind: 'denial',
        format: 'json',
        where: { t: 'result', denied: true },
        id: 'name',
        tool: 'name',
        text: 'denied',
      },
      {
        kind: 'denial',
        format: 'json',
        where: { t: 'denial' },
        id: 'name',
        tool: 'name',
        replaces: 'denial',
        field: 'why',
      },
      { kind: 'tool', format: 'json', where: { t: 'call' }, tool: 'name', text: '' },
    ],
    stdout: j(
      { t: 'result', name: 'shell', denied: true },
      { t: 'denial', name: 'shell', why: 'egress: host not allowed' },
      { t: 'call', name: 'read' },
      { t: 'denial', name: 'mail', why: 'alone' },
    ),
    events: [
      ['denial', 'shell', 'egress: host not allowed'],
      ['tool', 'read', ''],
      ['denial', 'mail', 'alone'],
    ],
  },
  {
    name: 'document: the last top-level JSON object of the stream, after the lines; other lines ignored',
    rules: [
      { kind: 'error', format: 'document', stream: 'stdout', where: { ok: false }, text: 'ended: {status}' },
      { kind: 'denial', stream: 'stderr', match: 'denied' },
    ],
    stdout: `[boot] starting\n{ "ok": true }\n${JSON.stringify({ ok: false, status: 'aborted', nested: { a: [1, 2] } }, null, 2)}\n`,
    stderr: 'exec denied',
    events: [
      ['denial', null, 'exec denied'],
      ['error', null, 'ended: aborted'],
    ],
  },
  {
    name: 'document: truncated or absent → nothing',
    rules: [{ kind: 'error', format: 'document', where: { ok: false } }],
    stdout: '{\n  "ok": false,\n  "status": "err',
    events: [],
  },
  {
    name: 'continue: a later rule sees the same line; without it the first match wins',
    rules: [
      {
        kind: 'tool',
        format: 'json',
        where: { type: 'cmd' },
        tool: { text: 'exec' },
        field: 'cmd',
        continue: true,
      },
      {
        kind: 'error',
        format: 'json',
        where: { type: 'cmd', exit: { not: 0 } },
        tool: { text: 'exec' },
        text: '{cmd} (exit {exit})',
      },
      { kind: 'warning', format: 'json', where: { type: 'cmd' }, field: 'cmd' },
    ],
    stdout: j({ type: 'cmd', cmd: 'false', exit: 1 }, { type: 'cmd', cmd: 'true', exit: 0 }),
    events: [
      ['tool', 'exec', 'false'],
      ['error', 'exec', 'false (exit 1)'],
      ['tool', 'exec', 'true'],
      ['warning', null, 'true'],
    ],
  },
  {
    name: 'lines: where and text read the regex’s named groups; $ is the line',
    rules: [
      {
        kind: 'denial',
        stream: 'stderr',
        match: '\\[tools\\] (?<tool>\\S+) failed: (?<msg>.*?)(?: raw=.*)?$',
        where: { msg: { match: 'denied' } },
        text: '{msg}',
      },
      {
        kind: 'error',
        stream: 'stderr',
        match: '\\[tools\\] (?<name>\\S+) failed',
        tool: 'name',
        text: '{$}',
      },
    ],
    stdout: '',
    stderr: '[tools] exec failed: exec denied: mode=deny raw={"c":1}\n[tools] read failed: ENOENT raw={}',
    events: [
      ['denial', 'exec', 'exec denied: mode=deny'],
      ['error', 'read', '[tools] read failed: ENOENT raw={}'],
    ],
  },
  {
    name: 'case_sensitive: ERROR as a level, not the word error',
    rules: [{ kind: 'error', match: '\\bERROR\\b', case_sensitive: true }],
    stdout: '',
    stderr: 'INFO no error here\nZ ERROR boom',
    events: [['error', null, 'Z ERROR boom']],
  },
  {
    name: 'hostile output: long texts are capped, junk lines skipped',
    rules: [{ kind: 'tool', format: 'json', field: 'x' }],
    stdout: `not json\n{"x":\n${j({ x: 'y'.repeat(3000) })}`,
    events: [['tool', null, `${'y'.repeat(1000)}…`]],
  },
];

describe('output rules', () => {
  it.each(rows)('$name', (row) => {
    expect(run(row.rules, row.stdout, row.stderr ?? '')).toEqual(row.events);
  });
});

describe('text templates', () => {
  const scope = (item: unknown) => ({ root: item, item });
  it.each([
    ['{a} and {b.c}', { a: 'x', b: { c: 2 } }, 'x and 2'],
    ['{out|last:2}', { out: 'one\ntwo\nthree\n' }, 'two | three'],
    ['{out|cap:3}', { out: 'abcdef' }, 'abc…'],
    ['{missing|or:none}', {}, 'none'],
    ['{empty|or:none}', { empty: '' }, 'none'],
    ['{list|json}', { list: ['a', 'b'] }, '["a","b"]'],
    ['{obj}', { obj: { k: 1 } }, '{"k":1}'],
    ['{blocks}', { blocks: [{ type: 'text', text: 'hi' }] }, 'hi'],
    ['{n} {nil}', { n: 0, nil: null }, '0 '],
    ['{list|json|cap:4}', { list: ['abc'] }, '["ab…'],
  ])('%s', (t, item, want) => {
    expect(templateProblem(t)).toBeUndefined();
    expect(render(t, scope(item))).toBe(want);
  });
  it.each([
    ['{a|upper}', /unknown filter "upper".*last:N, cap:N, or:TEXT, json/],
    ['{a|last}', /last needs a positive whole number/],
    ['{a|cap:0}', /cap needs a positive whole number/],
    ['{}', /empty placeholder/],
    ['{a', /unmatched/],
  ])('refuses %s', (t, msg) => {
    expect(templateProblem(t)).toMatch(msg);
  });
});

describe('a rule that cannot work is refused when the adapter loads, naming file and field', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hr-rules-'));
  const load = (name: string, rule: string) => {
    const d = join(dir, name);
    const file = join(d, 'adapter.yaml');
    mkdirSync(d, { recursive: true });
    writeFileSync(
      file,
      `name: ${name}\ndialect: openai-chat\nlaunch:\n  command: [x]\noutput:\n  rules:\n    - ${rule}\nconfigs:\n  a: {}\n`,
    );
    try {
      loadAdapter(d);
    } catch (e) {
      return (e as Error).message;
    }
    return 'loaded';
  };
  it.each([
    [
      'unless-no-id',
      '{kind: error, format: json, unless_seen: denial}',
      /:7: output\.rules\[0\]\.unless_seen: .*give `id`/,
    ],
    [
      'from-id-no-id',
      '{kind: error, format: json, tool: {from_id: true}}',
      /output\.rules\[0\]\.tool: .*give `id`/,
    ],
    [
      'bad-filter',
      '{kind: error, format: json, text: "{a|shout}"}',
      /output\.rules\[0\]\.text: unknown filter "shout"/,
    ],
    ['each-on-lines', '{kind: error, match: x, each: list}', /output\.rules\[0\]\.each: .*format: json/],
    [
      'group-missing',
      "{kind: error, match: 'x(?<t>y)', where: {msg: {match: z}}}",
      /output\.rules\[0\]\.where: "msg" is not a named group/,
    ],
    [
      'empty-test',
      '{kind: error, format: json, where: {a: {}}}',
      /output\.rules\[0\]\.where\.a: a test needs one of not, in, exists, match/,
    ],
    ['bad-op', '{kind: error, format: json, where: {a: {nope: 1}}}', /output\.rules\[0\]\.where\.a/],
    ['bad-format', '{kind: error, format: xml}', /output\.rules\[0\]\.format/],
    [
      'bad-regex',
      "{kind: error, format: json, where: {a: {match: '('}}}",
      /output\.rules\[0\]\.where\.a.*regular expression/,
    ],
  ])('%s', (name, rule, msg) => {
    const got = load(name, rule);
    expect(got).toContain(join(dir, name, 'adapter.yaml'));
    expect(got).toMatch(msg);
  });
  it('an unknown parser name says which names there are', () => {
    const d = join(dir, 'unknown-parser');
    mkdirSync(d, { recursive: true });
    writeFileSync(
      join(d, 'adapter.yaml'),
      'name: u\ndialect: openai-chat\nlaunch:\n  command: [x]\noutput: claude\nconfigs:\n  a: {}\n',
    );
    expect(() => loadAdapter(d)).toThrow(
      /adapter\.yaml:5: output.*not a built-in adapter: use one of none, claude-code, codex, copilot, openclaw, pi, qwen-code, reference/s,
    );
  });
});

describe('built-in rules by name', () => {
  it('`output: NAME` reads like that adapter; `{parser, rules}` adds rules after its own', () => {
    const out = j(
      { type: 'tool_call', name: 'shell', args: { command: 'ls' } },
      { type: 'bye', why: 'done' },
    );
    expect(parseHarnessOutput('reference', out, '').map((e) => e.kind)).toEqual(['tool']);
    const more = OutputRule.parse({
      kind: 'session_end',
      format: 'json',
      where: { type: 'bye' },
      field: 'why',
    });
    expect(parseHarnessOutput({ parser: 'reference', rules: [more] }, out, '')).toEqual([
      { kind: 'tool', tool: 'shell', text: '{"command":"ls"}' },
      { kind: 'session_end', text: 'done' },
    ]);
    expect(parseHarnessOutput('none', out, '')).toEqual([]);
  });
});
