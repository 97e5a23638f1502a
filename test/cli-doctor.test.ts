// `harness-risk doctor` on a fixture harness that keeps an undeclared folder under HOME, makes one stray
// request for an outside host and refuses in words its adapter does not match: all three are reported
// (through the real CLI, the real contained runner and the scripted model). The same harness with the
// adapter fixed (folder declared, offline switch set, refusal wording matched) comes out clean.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listBuiltinAdapters, loadAdapter, withAcpCommand } from '../src/adapters/load.js';
import { doctorAdapter, doctorText, stateFolder } from '../src/engine/doctor.js';
import { launchProblems } from '../src/engine/launch-check.js';
import { SYSTEM_PATH } from '../src/runner/process.js';

const ROOT = join(import.meta.dirname, '..');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'doctor-harness');
const tmp = mkdtempSync(join(tmpdir(), 'hr-doctor-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

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

  it('with the adapter fixed, the same harness comes out clean', { timeout: 120_000 }, async () => {
    const dir = join(tmp, 'fixed');
    cpSync(FIXTURE, dir, { recursive: true });
    const file = join(dir, 'adapter.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
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
  const broken = (name: string, from: string, to: string) => {
    const dir = join(tmp, name);
    cpSync(FIXTURE, dir, { recursive: true });
    const file = join(dir, 'adapter.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
    return dir;
  };
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
    const text = doctorText({
      adapter: 'a',
      config: 'c',
      valid: false,
      invalid_reason: 'harness exited 1',
      exit: { code: 1, timed_out: false, stderr_tail: "Error: Cannot find module '/x/main.js'" },
      dialect: { declared: 'openai-chat', seen: [], requests: 0, paths: [] },
      tools_offered: [],
      undeclared_home: [],
      egress: [],
      probe: 'not attempted',
      unrecognised_refusals: [],
      owner_task_done: false,
      launch: [],
    });
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
