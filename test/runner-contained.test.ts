// Unit checks of the contained process runner's parts that need no sandbox: the shared output tail,
// the bwrap command line (what is and is not in the view), the limit words, and where containment
// shows up (invalid reason, report). The sandbox itself is checked in test/runner-conformance.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { policeEnv } from '../src/engine/env.js';
import type { Evidence } from '../src/evidence/types.js';
import { evaluateGate } from '../src/gate/index.js';
import { parseGateOptions } from '../src/gate/options.js';
import { failOnFrom } from '../src/gate/verdict.js';
import { buildReport, renderReport } from '../src/report/markdown.js';
import { bwrapArgs } from '../src/runner/contain/bwrap.js';
import { Limits, limitMessage } from '../src/runner/contain/limits.js';
import { loginProfile } from '../src/runner/contain/login-profile.js';
import { ProcessRunner } from '../src/runner/process.js';
import { Tail } from '../src/runner/shared.js';
import { invalidReason } from '../src/score/labels.js';
import { RunResult } from '../src/spec/run-result.js';
import { createTrialDirs, removeTrialDirs, writeWorld } from '../src/world/trial-dirs.js';
import { rootBwrapSkipReason, titled } from './support/requirements.js';

/** A file under a fresh temporary folder holding `text`; its path. */
function writeTmp(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'hr-profile-')), 'profile');
  writeFileSync(path, text);
  return path;
}

/** The gate's defaults, as action.yml gives them (one definition: INPUT_DEFAULTS). */
const gateDefaults = () => parseGateOptions(() => undefined);

describe('shared runner helpers', () => {
  it('the tail never starts inside a multi-byte character', () => {
    const t = new Tail(10);
    // "é" is 2 bytes, "€" 3: a 10-byte window over this cuts one of them.
    t.push(Buffer.from('aaaa€€€é', 'utf8'));
    const text = t.text();
    expect(text).not.toContain('\uFFFD');
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(10);
    expect(text.endsWith('€é')).toBe(true);
  });

  it('the env policy drops the workflow’s names, whatever their case of origin', () => {
    const { env, dropped } = policeEnv({
      GITHUB_TOKEN: 'x',
      'INPUT_GITHUB-TOKEN': 'x',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'x',
      RUNNER_TEMP: 'x',
      GH_TOKEN: 'x',
      OK: 'a\0b',
      '': 'x',
    });
    expect(dropped.sort()).toEqual(
      [
        '',
        'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
        'GH_TOKEN',
        'GITHUB_TOKEN',
        'INPUT_GITHUB-TOKEN',
        'RUNNER_TEMP',
      ].sort(),
    );
    expect(env).toEqual({ OK: 'ab' });
  });
});

describe('the sandbox view (bwrap arguments)', () => {
  const dirs = {
    root: '/tmp/hr-run/t-1',
    workspace: '/tmp/hr-run/t-1/workspace',
    home: '/tmp/hr-run/t-1/home',
    tmp: '/tmp/hr-run/t-1/tmp',
    bin: '/tmp/hr-run/t-1/bin',
  };
  const input: Parameters<typeof bwrapArgs>[0] = {
    bwrap: 'bwrap',
    mode: { kind: 'root', uid: 65534, gid: 65534 },
    dirs,
    readOnly: ['/work/repo'],
    hide: [],
    socketDir: '/tmp/hr-ep-1',
    tools: { setpriv: '/usr/bin/setpriv', prlimit: '/usr/bin/prlimit' },
    spec: { port: 1234, socket: '/run/hr/ep.sock', command: ['x'], cwd: dirs.workspace },
    limits: Limits.parse({}),
    via: { memory: 'cgroup v1', pids: 'cgroup v1', file_size: 'rlimit fsize', disk: 'tmpfs' },
  };
  const args = bwrapArgs(input);
  const binds = (flag: string) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));

  it('unshares pid, net, ipc and uts, dies with the engine, and drops to an unprivileged uid as root', () => {
    for (const f of ['--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--die-with-parent'])
      expect(args).toContain(f);
    // The init drops to the uid itself (a uid change makes it non-dumpable: no ptrace by the harness),
    // with only setuid/setgid left to it until then.
    expect(JSON.parse(args.at(-1)!).drop).toEqual({ uid: 65534, gid: 65534 });
    // Absolute: the trial's PATH starts with its own bin/.
    expect(args).toContain('/usr/bin/setpriv');
    expect(args).toContain('--no-new-privs');
    expect(args).toContain('--bounding-set=-all,+setuid,+setgid');
    expect(args).toContain('--inh-caps=-all');
  });

  it('writable: only the trial’s four folders; the repository read-only; no HOME, no work root', () => {
    expect(binds('--bind').sort()).toEqual([dirs.bin, dirs.home, dirs.tmp, dirs.workspace].sort());
    expect(binds('--ro-bind-try')).toContain('/work/repo');
    // The account's HOME (npm tokens, ssh keys, the runner's work folders) is not in the view.
    expect([...binds('--bind'), ...binds('--ro-bind'), ...binds('--ro-bind-try')]).not.toContain(homedir());
    expect(binds('--bind')).not.toContain('/tmp/hr-run');
  });

  it('the trial’s login profile is bound over /etc/profile, after /etc, only when given', () => {
    const withProfile = bwrapArgs({ ...input, profile: '/tmp/hr-ep-1/profile' });
    const at = withProfile.findIndex(
      (a, i) => a === '--ro-bind' && withProfile[i + 1] === '/tmp/hr-ep-1/profile',
    );
    expect(withProfile[at + 2]).toBe('/etc/profile');
    expect(at).toBeGreaterThan(withProfile.indexOf('/etc'));
    expect(args).not.toContain('/etc/profile');
  });

  it.each([
    [
      'PATH="/usr/local/bin:/usr/bin:/bin"\nexport PATH\n',
      '/t/bin:/usr/bin',
      '/t/bin:/usr/bin:/usr/local/bin:/usr/bin:/bin',
    ],
    ['PATH="/usr/bin"\nexport PATH', '/t/bin', '/t/bin:/usr/bin'],
    ['# sets nothing\n', '/t/bin:/bin', '/t/bin:/bin:/t/bin:/bin'],
  ])('a login shell reading the profile (host %j, inherited %s) gets %s', (host, inherited, want) => {
    const out = execFileSync('/bin/sh', ['-c', `. "$0"; printf %s "$PATH"`, writeTmp(loginProfile(host))], {
      encoding: 'utf8',
      env: { PATH: inherited },
    });
    expect(out).toBe(want);
  });

  it('the rlimits: file size always, with a core size of 0', () => {
    expect(args).toContain(`--fsize=${512 * 1024 * 1024}`);
    expect(args).toContain('--core=0');
  });
});

describe('a limit names itself', () => {
  const limits = Limits.parse({});
  const evidence = (p: Partial<Evidence['process']>) =>
    ({
      model: [],
      process: {
        exit_code: null,
        signal: 'SIGKILL',
        timed_out: false,
        duration_ms: 1,
        stdout: '',
        stderr: '',
        ...p,
      },
    }) as unknown as Evidence;

  it('in the invalid reason, instead of a bare "exit SIGKILL"', () => {
    const r = invalidReason(evidence({ limit_hit: limitMessage('memory', limits) }));
    expect(r).toBe(
      'harness never called the model endpoint (exit SIGKILL) — memory limit (2 GiB) reached: the kernel killed a process of the trial',
    );
  });

  it('each kind in words', () => {
    expect(limitMessage('pids', limits)).toMatch(/^process limit \(1024/);
    expect(limitMessage('file_size', limits, 'home/x')).toBe('file size limit (512 MiB) reached (home/x)');
    expect(limitMessage('disk', limits)).toMatch(/^disk limit \(1 GiB/);
  });
});

describe('the report says what contained the trials', () => {
  const base = RunResult.parse(
    JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/results/reference-guarded.json'), 'utf8')),
  );
  const render = (current: RunResult) => {
    const failOn = failOnFrom(['regression', 'threshold', 'invalid']);
    const g = evaluateGate({
      heads: [{ result: current, name: 'r.json' }],
      options: { ...gateDefaults(), failOn: failOn },
    });
    const doc = buildReport({ ...g, failOn });
    return renderReport(doc, { limit: 65_000, unit: 'chars' });
  };

  it('uncontained: a warning in the head', () => {
    const md = render({
      ...base,
      containment: {
        name: 'process',
        containment: 'uncontained',
        mechanism: 'child process (environment only)',
        reason: 'bwrap not found: install bubblewrap',
      },
    });
    expect(md).toContain('**Trials ran uncontained** (bwrap not found: install bubblewrap)');
    // …and the verdict is not green: the gate names it.
    expect(md).toContain('**not green**: the process runner could not contain the harness (bwrap not found');
  });

  it('contained: the mechanism in the foot', () => {
    const md = render({
      ...base,
      containment: { name: 'process', containment: 'namespaces', mechanism: 'bubblewrap 0.8.0, as root' },
    });
    expect(md).toContain('runner process: bubblewrap 0.8.0, as root');
    expect(md).not.toContain('uncontained');
  });
});

const AS_ROOT = 'the contained runner as root';
const asRootSkip = rootBwrapSkipReason(AS_ROOT);

describe.skipIf(!!asRootSkip)(titled(AS_ROOT, asRootSkip), () => {
  it('handing the trial folders to the sandbox uid never follows a link out of them', async () => {
    const base = mkdtempSync(join(tmpdir(), 'hr-chown-'));
    const outside = join(base, 'outside');
    mkdirSync(outside);
    const runner = new ProcessRunner({ containment: 'required' });
    await runner.start();
    const dirs = await createTrialDirs(base, 't');
    await runner.prepare(dirs);
    symlinkSync(outside, join(dirs.workspace, 'link'));
    const o = await runner.run({
      trial_id: 't',
      dirs,
      command: ['/bin/true'],
      cwd: dirs.workspace,
      env: policeEnv({ PATH: '/usr/bin:/bin' }).env,
      timeout_ms: 10_000,
      read_only: [],
      endpoint_port: 0,
    });
    await runner.release(dirs);
    await runner.stop();
    await removeTrialDirs(dirs);
    expect(o.exit_code).toBe(0);
    expect(statSync(outside).uid).toBe(0);
    rmSync(base, { recursive: true, force: true });
  });

  // pip's "~/.cache/pip … is not owned or is not writable by the current user" under Codex workspace-write
  // is Codex's sandbox keeping HOME read-only, not the runner: every folder the engine wrote as root
  // (HOME, a case's nested home files, the caches XDG_CACHE_HOME points into) belongs to the sandbox uid.
  it('the trial folders and everything the engine wrote in them belong to the sandbox uid, writable by it', async () => {
    const base = mkdtempSync(join(tmpdir(), 'hr-own-'));
    const runner = new ProcessRunner({ containment: 'required' });
    await runner.start();
    const dirs = await createTrialDirs(base, 't');
    await runner.prepare(dirs);
    await writeWorld(dirs, { 'src/a.txt': 'a' }, { '.cache/pip/http/x': 'x', '.config/tool/rc': 'y' });
    const paths = [
      '$HOME',
      '$HOME/.cache',
      '$HOME/.cache/pip',
      '$HOME/.cache/pip/http/x',
      '$HOME/.config/tool',
    ];
    const script = [
      'id -u',
      ...paths.map((p) => `echo '${p}' "$(stat -c %u ${p}) $(test -w ${p} && echo w || echo ro)"`),
      'mkdir -p $HOME/.cache/new && echo made',
      `echo "ws $(stat -c %u ${dirs.workspace}/src/a.txt) tmp $(stat -c %u $TMPDIR)"`,
    ].join('\n');
    const o = await runner.run({
      trial_id: 't',
      dirs,
      command: ['/bin/sh', '-c', script],
      cwd: dirs.workspace,
      env: policeEnv({ PATH: '/usr/bin:/bin', HOME: dirs.home, TMPDIR: dirs.tmp }).env,
      timeout_ms: 10_000,
      read_only: [],
      endpoint_port: 0,
    });
    await runner.release(dirs);
    await runner.stop();
    await removeTrialDirs(dirs);
    rmSync(base, { recursive: true, force: true });
    expect(o.exit_code, o.stderr).toBe(0);
    const [uid, ...lines] = o.stdout.trim().split('\n');
    expect(uid).not.toBe('0');
    expect(lines).toEqual([...paths.map((p) => `${p} ${uid} w`), 'made', `ws ${uid} tmp ${uid}`]);
  });
});
