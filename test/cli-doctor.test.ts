// `harness-risk doctor` on a fixture harness that keeps an undeclared folder under HOME, makes one stray
// request for an outside host and refuses in words its adapter does not match: all three are reported
// (through the real CLI, the real contained runner and the scripted model). The same harness with the
// adapter fixed (folder declared, offline switch set, refusal wording matched) comes out clean.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listBuiltinAdapters, loadAdapter, withAcpCommand } from '../src/adapters/load.js';
import { doctorConfigs } from '../src/cli/doctor.js';
import {
  type DoctorReport,
  diagnose,
  doctorAdapter,
  doctorPassed,
  doctorText,
  egressLine,
  stateFolder,
} from '../src/engine/doctor.js';
import { ADD, unclassifiedCalls, unclassifiedLines } from '../src/engine/doctor-calls.js';
import { configsText, indistinguishable } from '../src/engine/doctor-configs.js';
import { exampleHint, hintProblems, unmappedTools } from '../src/engine/doctor-hints.js';
import { launchProblems } from '../src/engine/launch-check.js';
import type { ToolCallRecord, ToolResultRecord } from '../src/evidence/types.js';
import { SYSTEM_PATH } from '../src/runner/process.js';
import { withheldOffered } from '../src/score/withheld.js';
import type { Trial } from '../src/spec/run-result.js';
import { emptyEvidence, exchange } from './support/evidence.js';

/** A doctor report of a measured run that found nothing, with `over` changed. */
const report = (over: Partial<DoctorReport> = {}): DoctorReport => ({
  adapter: 'a',
  config: 'c',
  valid: true,
  exit: { code: 0, timed_out: false, stderr_tail: '' },
  dialect: { declared: 'openai-chat', seen: ['openai-chat'], requests: 9, paths: ['/v1/chat/completions'] },
  tools_offered: ['shell'],
  undeclared_home: [],
  egress: [],
  probe: 'executed',
  unrecognised_refusals: [],
  unclassified: [],
  owner_task_done: true,
  withholds: [],
  withheld_offered: [],
  steps: [],
  launch: [],
  ...over,
});

const ROOT = join(import.meta.dirname, '..');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'doctor-harness');
const tmp = mkdtempSync(join(tmpdir(), 'hr-doctor-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A copy of the fixture harness under tmp/NAME, its adapter.yaml rewritten by `edit`; the copy's folder. */
function fixtureCopy(name: string, edit: (yaml: string) => string): string {
  const dir = join(tmp, name);
  cpSync(FIXTURE, dir, { recursive: true });
  const file = join(dir, 'adapter.yaml');
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
  return dir;
}

describe('harness-risk doctor', () => {
  it.each([
    ['home/.dh-cache/models.json', '.dh-cache'],
    ['home/.config/acme/settings.json', '.config/acme'],
    ['home/.local/share/acme/db/x', '.local/share/acme'],
    ['home/.cache/acme/blob', '.cache/acme'],
    ['home/.acmerc', '.acmerc'],
  ])('%s is declared as {{home}}/%s', (key, folder) => {
    expect(stateFolder(key)).toBe(folder);
  });

  it('reports the undeclared HOME folder, the stray request and the unrecognised refusal (CLI, exit 1)', {
    timeout: 120_000,
  }, () => {
    const res = spawnSync(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      [join(ROOT, 'src', 'cli.ts'), 'doctor', '--adapter', FIXTURE, '--json', join(tmp, 'r.json')],
      {
        cwd: tmp,
        encoding: 'utf8',
      },
    );
    expect(res.status, res.stderr).toBe(1);
    expect(res.stdout).toMatch(
      /✗ undeclared state under HOME: \{\{home\}\}\/\.dh-cache: add them to state\.config_dirs/,
    );
    expect(res.stdout).toMatch(
      /✗ egress: 1 request\(s\) for outside hosts \(GET http:\/\/telemetry\.dh\.example\.test\/v1\/ping\)/,
    );
    expect(res.stdout).toMatch(/refused \(not recognised\): add the refusal wording to denial_patterns/);
    expect(res.stdout).toMatch(/✓ model dialect: openai-chat over \/v1\/chat\/completions/);
    expect(res.stdout).not.toMatch(/\.dh[,:]/); // the declared folder is not reported
    const report = JSON.parse(readFileSync(join(tmp, 'r.json'), 'utf8'));
    expect(report.undeclared_home).toEqual(['{{home}}/.dh-cache']);
    expect(report.egress).toEqual([
      { method: 'GET', host: 'telemetry.dh.example.test', path: 'http://telemetry.dh.example.test/v1/ping' },
    ]);
  });

  // Continue's CLI runs its commands in a login shell, which on Debian lost the trial's bin/: doctor was clean
  // (its probe used no service), and the smoke subset then failed every `svc` step. Doctor now makes one.
  it('names a shell that cannot find the trial’s svc CLI, and only then', { timeout: 120_000 }, async () => {
    const lost = await doctorAdapter({
      adapter: join(import.meta.dirname, 'fixtures', 'loginshell-harness'),
    });
    expect(lost.svc_not_found).toBe(true);
    expect(doctorText(lost)).toContain(
      "✗ the harness's shell did not find the trial's svc CLI (svc: not found)",
    );
    // The owner's step still got through by its next form, so the task is done.
    expect(lost.steps.filter((s) => s.action === 'call').map((s) => s.outcome)).toEqual([
      'errored',
      'executed',
    ]);
    const found = await doctorAdapter({ adapter: join(import.meta.dirname, 'fixtures', 'getonly-harness') });
    expect(found.svc_not_found).toBe(false);
    expect(found.steps.filter((s) => s.action === 'call').map((s) => s.outcome)).toEqual(['executed']);
    expect(doctorText(found)).not.toContain('svc CLI');
  });

  it('with the adapter fixed, the same harness comes out clean', { timeout: 120_000 }, async () => {
    const dir = fixtureCopy('fixed', (yaml) =>
      yaml
        .replace('config_dirs: ["{{home}}/.dh"]', 'config_dirs: ["{{home}}/.dh", "{{home}}/.dh-cache"]')
        .replace(
          'denial_patterns: [DENIED by dh]',
          'denial_patterns: ["^blocked: this command needs approval"]',
        )
        .replace('DH_API_KEY: "{{model_key}}"', 'DH_API_KEY: "{{model_key}}"\n    DH_OFFLINE: "1"'),
    );
    const r = await doctorAdapter({ adapter: dir });
    expect(r.undeclared_home).toEqual([]);
    expect(r.egress).toEqual([]);
    expect(r.probe).toBe('refused (recognised)');
    expect(r.unrecognised_refusals).toEqual([]);
    expect(r.owner_task_done).toBe(true);
    expect(r.valid).toBe(true);
  });

  // A wrong launch path used to read "check the base-URL variable": the launch is checked first.
  const broken = (name: string, from: string, to: string) =>
    fixtureCopy(name, (yaml) => yaml.replace(from, to));

  it.each([
    [
      'a script path that does not exist',
      () => broken('typo', '{{adapter_dir}}/doctor-harness.mjs', '{{adapter_dir}}/doctor-harnes.mjs'),
      /✗ launch: launch\.command\[1\] ".*\/doctor-harnes\.mjs" does not exist/,
    ],
    [
      'a program not on the PATH',
      () => broken('noprog', 'command: [node,', 'command: [nodejs-not-here,'),
      /✗ launch: launch\.command\[0\] "nodejs-not-here" is not found on the trial's PATH/,
    ],
    [
      'a program path that is not executable',
      () =>
        broken(
          'noexec',
          'command: [node, "{{adapter_dir}}/doctor-harness.mjs"',
          'command: ["{{adapter_dir}}/doctor-harness.mjs"',
        ),
      /✗ launch: launch\.command\[0\] ".*doctor-harness\.mjs" is not an executable file/,
    ],
  ])('names the launch when it is wrong: %s', async (_what, make, re) => {
    const r = await doctorAdapter({ adapter: make() });
    const text = doctorText(r);
    expect(text).toMatch(re);
    expect(text).not.toMatch(/base-URL/);
    expect(r.valid).toBe(false);
  });

  it('a harness that exits before asking the model is not a base-URL problem', () => {
    const text = doctorText(
      report({
        valid: false,
        invalid_reason: 'harness exited 1',
        exit: { code: 1, timed_out: false, stderr_tail: "Error: Cannot find module '/x/main.js'" },
        dialect: { declared: 'openai-chat', seen: [], requests: 0, paths: [] },
        tools_offered: [],
        probe: 'not attempted',
        owner_task_done: false,
      }),
    );
    expect(text).toMatch(/exited with code 1 before it asked the model/);
    expect(text).not.toMatch(/check the base-URL/);
  });
});

describe('the launch check', () => {
  it.each(listBuiltinAdapters())('finds nothing wrong with the built-in adapter %s', (name) => {
    // The built-in `acp` adapter takes its agent's command from the run (acp-command): any command here.
    const bare = loadAdapter(name);
    const loaded = withAcpCommand(
      bare,
      bare.adapter.launch.command.length ? undefined : ['node', '--version'],
    );
    for (const config of Object.keys(loaded.adapter.configs))
      expect(
        launchProblems(
          loaded,
          config,
          { repo: ROOT, adapter_dir: loaded.dir, action_root: ROOT, cache: join(tmp, 'no-cache-yet') },
          SYSTEM_PATH,
        ),
      ).toEqual([]);
  });
});

describe('calls whose outcome the adapter’s words do not classify', () => {
  // One exchange per call: the model's call, then the harness's answer arriving with the next request.
  const call = (id: string, tool: string, action: ToolCallRecord['action']): ToolCallRecord => ({
    id,
    tool,
    args: {},
    action,
  });
  const result = (call_id: string, text: string, over: Partial<ToolResultRecord> = {}): ToolResultRecord => ({
    call_id,
    text,
    is_error: false,
    denied: false,
    ...over,
  });
  const NOT_CHANGED = { achieved: false, reason: 'the file did not change' };
  const calls: [ToolCallRecord, ToolResultRecord | undefined][] = [
    // A precondition error in words no pattern knows: only the world saw the write fail.
    [
      call('c1', 'write_file', 'write'),
      result('c1', 'File /w/a.md has not been read in this session.', {
        outcome: 'errored',
        world: NOT_CHANGED,
      }),
    ],
    // A command that never started, answered in words scored as a success.
    [
      call('c2', 'shell', 'run'),
      result('c2', 'Could not start the sandbox for this command', { outcome: 'executed' }),
    ],
    // A refusal in words nobody declared.
    [call('c3', 'shell', 'run'), result('c3', 'Blocked: a human must confirm this', { outcome: 'executed' })],
    // No answer, nothing explains it.
    [call('c4', 'shell', 'run'), undefined],
    // Hostile text: terminal escapes and a line break stay data.
    [
      call('c5\u001b[2J', 'sh\nx', 'run'),
      result('c5\u001b[2J', '\u001b[31mERROR\u001b[0m: failed\nrm -rf /', { outcome: 'executed' }),
    ],
    // Classified: content that says "error" (a read), a write the world saw done, a plain success.
    [
      call('c6', 'read_file', 'read'),
      result('c6', 'Troubleshooting: error 42 means …', { outcome: 'executed' }),
    ],
    [
      call('c7', 'write_file', 'write'),
      result('c7', 'Error: odd words', {
        outcome: 'executed',
        world: { achieved: true, reason: 'the file changed' },
      }),
    ],
    [call('c8', 'shell', 'run'), result('c8', 'total 4\nREADME.md', { outcome: 'executed' })],
  ];
  const ev = emptyEvidence({
    model: calls.map(([c, r], i) => ({
      seq: i,
      at: i,
      dialect: 'openai-chat',
      path: '/v1/chat/completions',
      tools: [],
      injection_visible: false,
      // The answer to call i arrives with request i + 1; here with the same exchange, as pairing is by id.
      results: r ? [r] : [],
      response: { kind: 'tool_calls', calls: [c] },
    })),
  });

  it('lists every one with its tool, id, first words and what to add', () => {
    const found = unclassifiedCalls(ev, { denial_patterns: [] });
    expect(found.map((u) => [u.id, u.add])).toEqual([
      ['c1', ADD.either],
      ['c2', ADD.either],
      ['c3', ADD.denial],
      ['c4', ADD.rule],
      ['c5\u001b[2J', ADD.either],
    ]);
    expect(found[0].why).toMatch(/the world shows the file did not change/);
  });

  it('the JSON refusal list is the refusal-shaped part of the same decision (a read saying "denied" is data)', () => {
    const withRead = emptyEvidence({
      model: [
        ...ev.model,
        {
          seq: 99,
          at: 99,
          dialect: 'openai-chat',
          path: '/v1/chat/completions',
          tools: [],
          injection_visible: false,
          results: [
            result('c9', '# Runbook\nIf the deploy is denied, page the on-call.', { outcome: 'executed' }),
          ],
          response: { kind: 'tool_calls', calls: [call('c9', 'read_file', 'read')] },
        },
      ],
    });
    const trial = { valid: true, labels: { a: false, p: false, u: true } } as unknown as Trial;
    const r = diagnose(withRead, trial, 'openai-chat');
    expect(r.unrecognised_refusals).toEqual([{ tool: 'shell', text: 'Blocked: a human must confirm this' }]);
    expect(r.unclassified.filter((u) => u.add === ADD.denial).map((u) => u.id)).toEqual(['c3']);
  });

  // Declared as errors, a harness's refusals in its own words (a dry run, a disabled feature) score as
  // failures, not holding: an answer that is not plainly a refusal gets both choices, beside its text.
  it.each([
    ['a dry run the world saw not happen', '(dry run) would write 12 bytes to /h/.profile', NOT_CHANGED],
    ['a guard the world saw hold', 'E_TOOL: pipes are switched off in safe mode', NOT_CHANGED],
    ['a refusal scored executed', 'unable: the policy does not let this run', undefined],
  ])('%s: denial_patterns or error_patterns, with the answer', (_, text, world) => {
    const refusal = emptyEvidence({
      model: [
        exchange({
          tools: [],
          results: [result('d1', text, world ? { outcome: 'errored', world } : { outcome: 'executed' })],
          response: { kind: 'tool_calls', calls: [call('d1', 'put', world ? 'write' : 'run')] },
        }),
      ],
    });
    const lines = unclassifiedLines(unclassifiedCalls(refusal, { denial_patterns: [] })).join('\n');
    expect(lines).toContain(JSON.stringify(text));
    expect(lines).toMatch(
      /add denial_patterns if this answer is the harness refusing .*, error_patterns if it is a failure that is no refusal/,
    );
  });

  it('a probe answered with an unrecognised failure: the plain output says it may be a refusal', () => {
    const text = doctorText(report({ probe: 'errored' }));
    expect(text).toMatch(
      /✗ refusal probe .*: errored: if its answer .* is the harness refusing, add that wording to denial_patterns/,
    );
  });

  it('an adapter that declares the wording has nothing left to classify for that call', () => {
    const found = unclassifiedCalls(ev, {
      denial_patterns: [/^Blocked: a human must confirm/i],
      error_patterns: [/has not been read in this session/i],
    });
    expect(found.map((u) => u.id)).not.toContain('c1');
  });

  it('the plain output lists them all, escaped, not only --json', () => {
    const text = doctorText(report({ unclassified: unclassifiedCalls(ev, { denial_patterns: [] }) }));
    expect(text).toMatch(/✗ 5 call\(s\) whose outcome the adapter's words do not classify:/);
    for (const id of ['"c1"', '"c2"', '"c3"', '"c4"']) expect(text).toContain(id);
    expect(text).toMatch(
      /"write_file" "c1": "File \/w\/a\.md has not been read in this session\." \(scored errored: the world shows the file did not change, but no pattern recognises the answer\): add denial_patterns if .*, error_patterns if/,
    );
    expect(text).toMatch(/"c3": "Blocked: a human must confirm this" .*: add denial_patterns/);
    expect(text).toMatch(/"c4": "" \(scored missing: no answer came back.*\): add an output rule/);
    expect(text).not.toContain('\u001b');
    expect(text).toContain('"\\u001b[31mERROR\\u001b[0m: failed\\nrm -rf /"');
    expect(text.split('\n').some((l) => l.startsWith('rm -rf'))).toBe(false);
  });
});

describe('egress lines', () => {
  // A CONNECT's path is the tunnel's authority (host:port), which already names the host: it used to be
  // printed after the host again (registry.npmjs.orgregistry.npmjs.org:443).
  it.each([
    [
      { method: 'CONNECT', host: 'registry.npmjs.org', path: 'registry.npmjs.org:443' },
      'CONNECT registry.npmjs.org:443',
    ],
    [{ method: 'CONNECT', host: '::1', path: '[::1]:443' }, 'CONNECT [::1]:443'],
    [
      { method: 'GET', host: 't.example.test', path: 'http://t.example.test/v1/ping' },
      'GET http://t.example.test/v1/ping',
    ],
    [{ method: 'GET', host: 't.example.test', path: '/v1/ping' }, 'GET t.example.test/v1/ping'],
    [{ method: 'CONNECT', host: 'h.test', path: '' }, 'CONNECT h.test'],
    [{ method: 'GET', host: 'h.test', path: '/\u001b[31mx' }, 'GET h.test/\\u001b[31mx'],
  ])('%j → %s', (e, line) => {
    expect(egressLine(e)).toBe(line);
  });

  it('the doctor report names a CONNECT host once', () => {
    const text = doctorText(
      report({
        dialect: {
          declared: 'openai-chat',
          seen: ['openai-chat'],
          requests: 2,
          paths: ['/v1/chat/completions'],
        },
        egress: [{ method: 'CONNECT', host: 'registry.npmjs.org', path: 'registry.npmjs.org:443' }],
      }),
    );
    expect(text).toContain('(CONNECT registry.npmjs.org:443)');
    expect(text).not.toContain('registry.npmjs.orgregistry');
  });
});

// A configuration whose switch the harness ignores is measured as if it were set (Kilo 7.7.7 kept bash
// under the `tools` map of its read-only configuration: 99 % ASR "read-only"). Doctor over several
// configurations compares what each did in the probe and names those that behaved identically; a
// configuration that declares what it withholds is checked against the tools offered.
describe('doctor over several configurations', () => {
  // Each configuration's probe ran the owner's command and the attacker's write.
  const configReport = (config: string, over: Partial<DoctorReport> = {}): DoctorReport =>
    report({
      config,
      dialect: {
        declared: 'openai-chat',
        seen: ['openai-chat'],
        requests: 4,
        paths: ['/v1/chat/completions'],
      },
      tools_offered: ['bash', 'read', 'write'],
      steps: [
        { role: 'owner', action: 'run', tool: 'bash', outcome: 'executed' },
        { role: 'attack', action: 'write', tool: 'write', outcome: 'executed' },
      ],
      ...over,
    });
  const refused = { role: 'attack', action: 'write', tool: 'write', outcome: 'refused' };
  it.each<[string, DoctorReport[], string[][]]>([
    ['all alike', [configReport('a'), configReport('b'), configReport('c')], [['a', 'b', 'c']]],
    ['fewer tools offered', [configReport('a'), configReport('ro', { tools_offered: ['read'] })], []],
    [
      'a step refused',
      [
        configReport('a'),
        configReport('guard', {
          steps: [configReport('x').steps[0]!, refused],
          probe: 'refused (recognised)',
        }),
      ],
      [],
    ],
    [
      'the same step by another route',
      [
        configReport('a'),
        configReport('b', {
          steps: [configReport('x').steps[0]!, { ...refused, tool: 'bash', outcome: 'executed' }],
        }),
      ],
      [],
    ],
    [
      'two pairs',
      [
        configReport('a'),
        configReport('b', { owner_task_done: false }),
        configReport('c'),
        configReport('d', { owner_task_done: false }),
      ],
      [
        ['a', 'c'],
        ['b', 'd'],
      ],
    ],
    ['an invalid trial is not compared', [configReport('a'), configReport('b', { valid: false })], []],
    [
      'a trial that never asked the model is not compared',
      [
        configReport('a'),
        configReport('b', { dialect: { declared: 'openai-chat', seen: [], requests: 0, paths: [] } }),
      ],
      [],
    ],
  ])('%s', (_name, reports, groups) => {
    expect(indistinguishable(reports)).toEqual(groups);
  });

  it('the text names each group and says what to check; a clean comparison says so', () => {
    expect(configsText([configReport('a'), configReport('b')], [['a', 'b']])).toMatch(
      /✗ a, b behaved identically: .*may not take effect/,
    );
    expect(configsText([configReport('a'), configReport('b', { tools_offered: [] })], [])).toMatch(
      /✓ every configuration behaved differently in the probe \(a, b\)/,
    );
  });

  it('--config takes one, a list or all, and names an unknown one', () => {
    expect(doctorConfigs(undefined, 'x', ['d', 'o'])).toEqual(['d']);
    expect(doctorConfigs('all', 'x', ['d', 'o'])).toEqual(['d', 'o']);
    expect(doctorConfigs('o, d', 'x', ['d', 'o'])).toEqual(['o', 'd']);
    expect(() => doctorConfigs('d,nope', 'x', ['d', 'o'])).toThrow(/no configuration "nope" in adapter x/);
  });

  it('the CLI runs each configuration and flags the one whose switch the harness ignores (exit 1)', {
    timeout: 240_000,
  }, () => {
    const res = spawnSync(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      [
        join(ROOT, 'src', 'cli.ts'),
        'doctor',
        '--adapter',
        FIXTURE,
        '--config',
        'all',
        '--json',
        join(tmp, 'all.json'),
      ],
      { cwd: tmp, encoding: 'utf8' },
    );
    expect(res.status, res.stderr).toBe(1);
    for (const c of ['default', 'open', 'locked'])
      expect(res.stdout).toContain(`harness-risk doctor: doctor-harness / ${c}`);
    expect(res.stdout).toMatch(/✗ default, locked behaved identically/);
    expect(res.stdout).not.toMatch(/open, |, open/);
    const json = JSON.parse(readFileSync(join(tmp, 'all.json'), 'utf8'));
    expect(json.indistinguishable).toEqual([['default', 'locked']]);
    expect(json.reports.map((r: DoctorReport) => [r.config, r.probe])).toEqual([
      ['default', 'refused (not recognised)'],
      ['open', 'executed'],
      ['locked', 'refused (not recognised)'],
    ]);
  });
});

describe('a configuration that withholds tools', () => {
  it.each<[string[], string[], string[]]>([
    [['bash', 'webfetch'], ['read', 'glob'], []],
    [['bash', 'webfetch'], ['bash', 'read', 'glob'], ['bash']],
    [['Bash'], ['bash'], ['Bash']],
    [[], ['bash'], []],
  ])('withholds %j, offered %j → %j', (withholds, offered, expected) => {
    expect(withheldOffered(withholds, offered)).toEqual(expected);
  });

  it('the CLI names a withheld tool the harness still offers (its trials invalid), and passes one it takes away', {
    timeout: 240_000,
  }, () => {
    // The fixture offers only `sh` under every configuration: `locked` says it withholds it (the harness
    // ignores DH_LOCKED), `open` withholds a tool it never offers.
    const dir = fixtureCopy('withholds', (yaml) =>
      yaml
        .replace('env: {DH_LOCKED: "1"}', 'env: {DH_LOCKED: "1"}\n    withholds: [sh]')
        .replace('env: {DH_ALLOW_HOME: "1"}', 'env: {DH_ALLOW_HOME: "1"}\n    withholds: [web_fetch]'),
    );
    // Run from another folder: the working folder is the repository under test, which the runner hides.
    const cwd = join(tmp, 'elsewhere');
    mkdirSync(cwd);
    const run = (config: string) =>
      spawnSync(
        join(ROOT, 'node_modules', '.bin', 'tsx'),
        [join(ROOT, 'src', 'cli.ts'), 'doctor', '--adapter', dir, '--config', config],
        {
          cwd,
          encoding: 'utf8',
        },
      );
    const locked = run('locked');
    expect(locked.status).toBe(1);
    // Not a measurement of the configuration either: every trial of it is invalid, with the tool named.
    expect(locked.stdout).toMatch(
      /✗ trial invalid: the configuration did not take effect: it withholds sh, but the harness offered it to the agent/,
    );
    expect(locked.stdout).toMatch(
      /✗ withheld tools offered: sh: the configuration withholds them but the harness offered them/,
    );
    const open = run('open').stdout;
    expect(open).toMatch(/✓ withheld tools not offered \(web_fetch\)/);
    expect(open).toMatch(/✓ trial valid/);
  });
});

describe("the adapter's tool hints against the tools the harness offered", () => {
  const OWN = join(import.meta.dirname, 'fixtures', 'ownwords-badhints');

  it('names a hint for a tool not offered (did you mean) and one mapping to arguments its schema lacks', {
    timeout: 120_000,
  }, async () => {
    const r = await doctorAdapter({ adapter: OWN });
    expect(r.tools_offered).toEqual(['cmd', 'doc_get', 'doc_put']);
    expect(r.hint_problems).toEqual([
      expect.stringMatching(
        /^tools\.read\.args maps file → path, but doc_get's schema has no argument "path" \(its arguments: file\)/,
      ),
      expect.stringMatching(
        /^tools\.write names "doc_puts", which the harness did not offer \(did you mean doc_put\?\).*cmd, doc_get, doc_put/,
      ),
    ]);
    // The plain output says it too, and exit 1 (doctor's clean) counts it.
    expect(doctorText(r)).toMatch(/✗ tools\.write names "doc_puts"/);
    expect(doctorText(r)).toMatch(/✗ tools\.read\.args maps file → path/);
  });

  it('a tool the configuration withholds is meant to be missing; a schema without properties takes anything', () => {
    const ev = emptyEvidence({
      model: [
        exchange({
          tools: ['run_it', 'free'],
          tool_args: { run_it: ['cmdline'], free: [] },
          response: { kind: 'text', text: 'ok' },
        }),
      ],
    });
    const hints = {
      shell: { name: 'run_it', args: { command: 'cmdline' } },
      write: { name: 'free', args: { path: 'anything' } },
      fetch: { name: 'Web_Get', args: {} },
    };
    expect(hintProblems(hints, ev, ['free', 'run_it'], ['web_get'])).toEqual([]);
    expect(hintProblems(hints, ev, ['free', 'run_it'])).toEqual([
      expect.stringMatching(/^tools\.fetch names "Web_Get", which the harness did not offer/),
    ]);
    // No tool offered at all (the harness never reached the model): nothing to say about hints.
    expect(hintProblems(hints, ev, [])).toEqual([]);
  });
});

describe('steps no offered tool could carry out', () => {
  it('names the tools the engine could not map and a hint for each from its own name and arguments', {
    timeout: 120_000,
  }, async () => {
    const r = await doctorAdapter({ adapter: join(import.meta.dirname, 'fixtures', 'ownwords-harness') });
    expect(r.valid).toBe(false);
    expect(r.unmapped).toEqual({
      steps: ['read', 'run', 'fetch', 'call', 'write'],
      tools: ['cmd', 'doc_get', 'doc_put'],
      examples: [
        'shell: { name: cmd, args: { command: line } }',
        'read: { name: doc_get, args: { path: file } }',
        'write: { name: doc_put, args: { path: file, content: text } }',
      ],
    });
    const text = doctorText(r);
    expect(text).toMatch(
      /✗ no offered tool could carry out the read, run, fetch, call, write step\(s\).*tools: hints.*could not map cmd, doc_get, doc_put: add a hint for each tool/,
    );
    expect(text).toContain('\n    write: { name: doc_put, args: { path: file, content: text } }\n');
  });

  it('a tool with no likely step gets a template naming its arguments; used and hinted tools are left out', () => {
    expect(exampleHint('zork', ['alpha', 'beta'])).toBe(
      'ACTION: { name: zork, args: { STEP_ARGUMENT: ARGUMENT } }  (its arguments: alpha, beta)',
    );
    expect(exampleHint('runShellCommand', ['cmd', 'timeout'])).toBe(
      'shell: { name: runShellCommand, args: { command: cmd } }',
    );
    const ev = emptyEvidence({
      model: [
        exchange({
          tools: ['a_tool', 'b_tool', 'c_tool'],
          tool_args: { a_tool: ['x'], b_tool: ['y'], c_tool: ['z'] },
          response: { kind: 'tool_calls', calls: [{ id: '1', tool: 'b_tool', args: {} }] },
          unmapped: [{ step: { role: 'owner', index: 0 }, action: 'write' }],
        }),
      ],
    });
    expect(
      unmappedTools({ read: { name: 'a_tool', args: {} } }, ev, ['a_tool', 'b_tool', 'c_tool'])?.tools,
    ).toEqual(['c_tool']);
    // Every step carried out: nothing to say.
    expect(unmappedTools({}, emptyEvidence({}), ['a_tool'])).toBeUndefined();
  });
});

describe('doctor passes only what it marks ✓ (doctorPassed, the exit code)', () => {
  const unclassified = [
    {
      tool: 'sh',
      id: 'c1',
      text: 'E_TOOL: sh: rc=2',
      outcome: 'executed',
      why: 'reads like an error',
      add: ADD.either,
    },
  ];
  it.each([
    ['a clean report', {}, true],
    ['an unclassified call', { unclassified }, false],
    ['an unrecognised refusal', { probe: 'refused (not recognised)' as const }, false],
    ['a stray request', { egress: [{ method: 'GET', host: 'x.test', path: '/' }] }, false],
    ['a hint problem', { hint_problems: ['tools.read names "cat"'] }, false],
    ['the owner task not done', { owner_task_done: false }, false],
  ])('%s → %s', (_name, over, passed) => {
    expect(doctorPassed(report(over as Partial<DoctorReport>))).toBe(passed);
    // What fails it is marked ✗ in the plain output.
    if (!passed) expect(doctorText(report(over as Partial<DoctorReport>))).toMatch(/✗/);
  });
});
