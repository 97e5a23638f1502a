// The docker runner against a real daemon and the local image (scripts/docker-setup.sh + docker-image.sh).
// Skipped with the reason when Docker or the image is missing, unless HR_REQUIRE_DOCKER=1 (CI), where
// a missing Docker fails the run instead.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policeEnv } from '../src/engine/env.js';
import { sweepRun, sweepStale } from '../src/runner/docker/cleanup.js';
import { RUN_LABEL } from '../src/runner/docker/options.js';
import { DockerRunner } from '../src/runner/docker/runner.js';
import type { SandboxView, TrialLaunch } from '../src/runner/types.js';
import type { TrialDirs } from '../src/world/trial-dirs.js';
import { dockerSkipReason, IMAGE, trialDirsAt } from './support/docker.js';

const pexec = promisify(execFile);
const SOCKET = '/var/run/docker.sock';

const reason = await dockerSkipReason('docker-runner');

const docker = new Docker({ socketPath: SOCKET });
const tmpRoots: string[] = [];

function trialDirs(): TrialDirs {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hr-docker-test-'));
  tmpRoots.push(root);
  return trialDirsAt(root);
}

function baseEnv(view: SandboxView, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: [view.bin, ...view.systemPath].join(':'),
    HOME: view.home,
    TMPDIR: view.tmp,
    LANG: 'C.UTF-8',
    ...extra,
  };
}

function launchOf(
  runner: DockerRunner,
  script: string,
  opts: Partial<TrialLaunch> & { extraEnv?: Record<string, string>; dirs?: TrialDirs } = {},
): { launch: TrialLaunch; view: SandboxView; dirs: TrialDirs } {
  const dirs = opts.dirs ?? trialDirs();
  const view = runner.view(dirs);
  const launch: TrialLaunch = {
    trial_id: opts.trial_id ?? `t-${randomBytes(3).toString('hex')}`,
    dirs,
    command: opts.command ?? ['node', '-e', script],
    cwd: opts.cwd ?? view.workspace,
    env: opts.env ?? policeEnv(baseEnv(view, opts.extraEnv)).env,
    stdin: opts.stdin,
    timeout_ms: opts.timeout_ms ?? 30_000,
    read_only: opts.read_only ?? [],
    // No endpoint unless the test names its own: the relay listens on a port nobody uses.
    endpoint_port: opts.endpoint_port ?? 0,
    signal: opts.signal,
  };
  return { launch, view, dirs };
}

async function leftovers(runId: string): Promise<{ containers: string; networks: string }> {
  const ps = await pexec('docker', ['ps', '-aq', '--filter', `label=${RUN_LABEL}=${runId}`]);
  const nets = await pexec('docker', ['network', 'ls', '-q', '--filter', `label=${RUN_LABEL}=${runId}`]);
  return { containers: ps.stdout.trim(), networks: nets.stdout.trim() };
}

async function eventually(fn: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return fn();
}

function listen(server: http.Server | net.Server, host: string, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as net.AddressInfo).port));
  });
}

// Fetches each URL from inside the container; prints {url: 'ok:<body>' | 'fail:<code>'}.
const PROBE = `
let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', async () => {
  const urls = JSON.parse(input);
  const out = {};
  for (const u of urls) {
    try {
      const r = await fetch(u, { signal: AbortSignal.timeout(3000) });
      out[u] = 'ok:' + (await r.text());
    } catch (e) { out[u] = 'fail:' + (e.cause?.code || e.name); }
  }
  console.log(JSON.stringify(out));
});
`;

it('start() names the fix when Docker is not reachable', async () => {
  const r = new DockerRunner({
    runId: 'unreachable',
    socketPath: '/nonexistent/docker.sock',
    signalHandlers: false,
  });
  await expect(r.start()).rejects.toThrow(
    /Docker is not reachable at \/nonexistent\/docker\.sock.*start Docker.*`runner: process`/is,
  );
  await r.stop();
});

// The copy back reads a tar stream the harness controls (its files): nothing may land outside the trial
// folders, through a link, or beyond the budget.
describe('docker runner: the copy-back tar reader', () => {
  const block = (name: string, type: string, size: number, link = '') => {
    const h = Buffer.alloc(512);
    h.write(name, 0);
    h.write('0000644\0', 100);
    h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
    h.write(type, 156);
    h.write(link, 157);
    h.write('ustar\u000000', 257, 'binary');
    h.write('        ', 148);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    return h;
  };
  const file = (name: string, text: string) => [
    block(name, '0', text.length),
    Buffer.concat([Buffer.from(text), Buffer.alloc((512 - (text.length % 512)) % 512)]),
  ];
  async function* chunks(parts: Buffer[]) {
    yield Buffer.concat([...parts, Buffer.alloc(1024)]);
  }

  it('refuses traversal, writes through planted links and unknown top folders; keeps links as links', async () => {
    const { extractTree } = await import('../src/runner/docker/tar.js');
    const root = mkdtempSync(path.join(os.tmpdir(), 'hr-tar-'));
    tmpRoots.push(root);
    const outside = mkdtempSync(path.join(os.tmpdir(), 'hr-tar-outside-'));
    tmpRoots.push(outside);
    const ws = path.join(root, 'workspace');
    mkdirSync(ws);
    const r = await extractTree(
      chunks([
        ...file('workspace/ok.txt', 'ok'),
        ...file('workspace/../escaped.txt', 'x'),
        ...file('/etc/abs.txt', 'x'),
        ...file('other/top.txt', 'x'),
        block('workspace/link', '2', 0, outside),
        ...file('workspace/link/through.txt', 'x'),
        block('workspace/hard', '1', 0, '../../etc/passwd'),
      ]),
      { workspace: ws },
      { maxBytes: 1024 * 1024, maxEntries: 100 },
    );
    expect(readFileSync(path.join(ws, 'ok.txt'), 'utf8')).toBe('ok');
    expect(readlinkSync(path.join(ws, 'link'))).toBe(outside);
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(path.join(root, 'escaped.txt'))).toBe(false);
    expect(existsSync(path.join(ws, 'hard'))).toBe(false);
    expect(r.skipped).toBe(5);
    await expect(
      extractTree(
        chunks(file('workspace/big', 'y'.repeat(5000))),
        { workspace: mkdtempSync(path.join(root, 'b-')) },
        { maxBytes: 2048, maxEntries: 10 },
      ),
    ).rejects.toThrow(/more than/);
  });
});

// Both modes: the warm pool (harness exec'd in a pre-started container, folders copied in and out) and one
// container per trial (the harness is the container's process, folders bind-mounted).
const MODES = [
  { mode: 'warm', warm: 1 },
  { mode: 'direct', warm: 0 },
];

(reason === undefined ? describe : describe.skip).each(MODES)(
  'docker runner, $mode mode (real daemon)',
  ({ mode, warm }) => {
    const runId = `test-${process.pid}-${mode}-${randomBytes(3).toString('hex')}`;
    const warnings: string[] = [];
    let runner: DockerRunner;

    beforeAll(async () => {
      runner = new DockerRunner({ runId, image: IMAGE, warm, onWarning: (m) => warnings.push(m) });
      await runner.start();
    });

    afterAll(async () => {
      await runner?.stop();
      for (const r of tmpRoots) rmSync(r, { recursive: true, force: true });
    });

    it('runs every trial without a network: the endpoint is its own loopback, read-only folders at their host path', async () => {
      // No network of the run: trials reach nothing but what is relayed into their own loopback.
      const nets = await docker.listNetworks({
        filters: JSON.stringify({ label: [`${RUN_LABEL}=${runId}`] }),
      });
      expect(nets).toHaveLength(0);
      const dirs = trialDirs();
      const view = runner.view(dirs);
      expect(view.bindHost).toBe('127.0.0.1');
      expect(view.endpointHost).toBe('127.0.0.1');
      expect(view.workspace).toBe('/trial/workspace');
      expect(view.systemPath).toContain('/usr/local/bin');
      expect(view.mapReadOnly(path.join(dirs.workspace, 'a.txt'))).toBe('/trial/workspace/a.txt');
      const ro = mkdtempSync(path.join(os.tmpdir(), 'hr-ro-'));
      tmpRoots.push(ro);
      const mapped = view.mapReadOnly(ro);
      expect(mapped).toBe(`/opt/hr/ro${ro}`);
      expect(view.mapReadOnly(path.join(ro, 'x', 'y.js'))).toBe(`${mapped}/x/y.js`);
    });

    it('a staged trial runs from its staged container; one released unrun leaves no container behind', async () => {
      const containersOfRun = async () =>
        (
          await docker.listContainers({
            all: true,
            filters: JSON.stringify({ label: [`${RUN_LABEL}=${runId}`] }),
          })
        ).map((c) => c.Id);
      const { launch, dirs } = launchOf(
        runner,
        "const fs=require('fs'); console.log(fs.readFileSync('/trial/workspace/in.txt','utf8')); fs.writeFileSync('/trial/workspace/out.txt','back')",
      );
      writeFileSync(path.join(dirs.workspace, 'in.txt'), 'staged-in');
      await runner.stage(launch);
      // Staged: copied in already, so a change on the host now is not what the harness sees.
      writeFileSync(path.join(dirs.workspace, 'in.txt'), 'changed-after-staging');
      let exited = 0;
      const outcome = await runner.run({ ...launch, harness_exited: () => exited++ });
      expect(outcome.exit_code, outcome.stderr).toBe(0);
      expect(outcome.stdout.trim()).toBe('staged-in');
      // Told once, when the harness had exited (before the copy-back that brought out.txt).
      expect(exited).toBe(1);
      expect(readFileSync(path.join(dirs.workspace, 'out.txt'), 'utf8')).toBe('back');

      const unrun = launchOf(runner, 'console.log(1)');
      await runner.stage(unrun.launch);
      // The container the runner staged for it (its own record: warm containers look alike from outside).
      const held = (
        runner as unknown as { staged: Map<string, Promise<{ slot?: { container: { id: string } } }>> }
      ).staged;
      const staged = [(await held.get(unrun.dirs.root))?.slot?.container.id].filter(Boolean) as string[];
      expect(staged).toHaveLength(1);
      expect(await containersOfRun()).toContain(staged[0]);
      await runner.release(unrun.dirs);
      // Removal runs in the background: wait for it.
      for (let i = 0; i < 100; i++) {
        const now = new Set(await containersOfRun());
        if (!staged.some((id) => now.has(id))) break;
        await new Promise((ok) => setTimeout(ok, 100));
      }
      const after = new Set(await containersOfRun());
      expect(staged.filter((id) => after.has(id))).toEqual([]);
    }, 60_000);

    it('passes exactly the launch env (policed by the engine): no variable of this process, no workflow names', async () => {
      process.env.HR_PLANTED_SECRET = 'planted-7d1e9a';
      process.env.GITHUB_TOKEN ??= 'ghs_planted_token';
      const { launch } = launchOf(runner, 'console.log(JSON.stringify(process.env))', {
        extraEnv: { FOO: 'bar', INPUT_TOKEN: 'x', ACTIONS_RUNTIME_TOKEN: 'y', GITHUB_TOKEN: 'z' },
      });
      const outcome = await runner.run(launch);
      delete process.env.HR_PLANTED_SECRET;
      expect(outcome.exit_code).toBe(0);
      const env = JSON.parse(outcome.stdout) as Record<string, string>;
      expect(outcome.stdout).not.toContain('planted-7d1e9a');
      expect(outcome.stdout).not.toContain('ghs_planted_token');
      expect(env.FOO).toBe('bar');
      for (const k of ['INPUT_TOKEN', 'ACTIONS_RUNTIME_TOKEN', 'GITHUB_TOKEN', 'HR_PLANTED_SECRET'])
        expect(env[k]).toBeUndefined();
      // The engine's policy dropped them before the launch; the runner passes what it was given.
      expect(Object.keys(launch.env).filter((k) => /^(INPUT_|ACTIONS_|GITHUB_TOKEN$)/.test(k))).toEqual([]);
      // Docker adds only HOSTNAME (the launch sets PATH, HOME and LANG, the image's only defaults).
      const expected = Object.keys(launch.env);
      expect(
        Object.keys(env)
          .filter((k) => k !== 'HOSTNAME')
          .sort(),
      ).toEqual(expected.sort());
    });

    it('runs as a non-root user with no capabilities, no new privileges, limits applied', async () => {
      const { launch } = launchOf(
        runner,
        `const fs = require('fs');
       const status = fs.readFileSync('/proc/self/status', 'utf8');
       const read = (p) => { try { return fs.readFileSync(p, 'utf8').trim(); } catch { return null; } };
       console.log(JSON.stringify({
         uid: process.getuid(), gid: process.getgid(),
         capEff: /CapEff:\\s*(\\S+)/.exec(status)[1], noNewPrivs: /NoNewPrivs:\\s*(\\S+)/.exec(status)?.[1],
         mem: read('/sys/fs/cgroup/memory.max') ?? read('/sys/fs/cgroup/memory/memory.limit_in_bytes'),
         pids: read('/sys/fs/cgroup/pids.max') ?? read('/sys/fs/cgroup/pids/pids.max'),
         cpu: read('/sys/fs/cgroup/cpu.max') ?? read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us'),
       }));`,
      );
      const outcome = await runner.run(launch);
      expect(outcome.stderr).toBe('');
      const info = JSON.parse(outcome.stdout);
      if (process.getuid?.() === 0) expect(info.uid).toBe(1000);
      else expect(info.uid).toBe(process.getuid?.());
      expect(info.capEff).toBe('0000000000000000');
      expect(info.noNewPrivs).toBe('1');
      expect(info.mem).toBe(String(1024 ** 3));
      expect(info.pids).toBe('256');
      expect(String(info.cpu)).toMatch(/^100000/);
    });

    it('ends a hanging harness at the timeout (SIGTERM) and records timed_out', async () => {
      const { launch } = launchOf(runner, 'console.log("started"); setInterval(() => {}, 1000)', {
        timeout_ms: 1500,
      });
      const t0 = Date.now();
      const outcome = await runner.run(launch);
      expect(outcome.timed_out).toBe(true);
      expect(outcome.exit_code).toBeNull();
      expect(outcome.signal).toBe('SIGTERM');
      expect(outcome.stdout).toContain('started');
      expect(outcome.infra_error).toBeUndefined();
      expect(Date.now() - t0).toBeLessThan(10_000);
    });

    it('lets a harness handle SIGTERM at the timeout, and SIGKILLs one that ignores it 2 s later', async () => {
      const dirs = trialDirs();
      const handles = await runner.run(
        launchOf(
          runner,
          `process.on('SIGTERM', () => { require('fs').writeFileSync('/trial/home/flushed', 'state'); process.exit(0); });
         setInterval(() => {}, 1000);`,
          // Room for node to start and install its handler on a loaded machine before the timeout.
          { dirs, timeout_ms: 3000 },
        ).launch,
      );
      expect(handles).toMatchObject({ timed_out: true, exit_code: 0, signal: null });
      expect(readFileSync(path.join(dirs.home, 'flushed'), 'utf8')).toBe('state');
      const t0 = Date.now();
      const ignores = await runner.run(
        launchOf(
          runner,
          `process.on('SIGTERM', () => console.log('ignored')); setInterval(() => {}, 1000);`,
          {
            timeout_ms: 1000,
          },
        ).launch,
      );
      expect(ignores).toMatchObject({ timed_out: true, exit_code: null, signal: 'SIGKILL' });
      expect(ignores.stdout).toContain('ignored');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(2_900);
    });

    it('records a crashing harness: exit code and stderr', async () => {
      const a = await runner.run(launchOf(runner, 'console.error("boom here"); process.exit(3)').launch);
      const aborted = await runner.run(launchOf(runner, 'process.abort()').launch);
      expect(aborted).toMatchObject({ exit_code: null, signal: 'SIGABRT', timed_out: false });
      expect(a).toMatchObject({ exit_code: 3, signal: null, timed_out: false });
      expect(a.stderr).toContain('boom here');
      const b = await runner.run(launchOf(runner, 'throw new Error("uncaught kaboom")').launch);
      expect(b.exit_code).toBe(1);
      expect(b.stderr).toContain('uncaught kaboom');
    });

    it('reports a missing executable as spawn_error', async () => {
      const { launch } = launchOf(runner, '', { command: ['/nonexistent/harness', '--x'] });
      const outcome = await runner.run(launch);
      expect(outcome.spawn_error).toMatch(/nonexistent/);
      expect(outcome.infra_error).toBeUndefined();
    });

    it('feeds stdin and keeps only the last 64 KiB of output', async () => {
      const { launch } = launchOf(
        runner,
        `let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => {
         process.stdout.write('x'.repeat(200000) + 'END:' + s.toUpperCase());
       });`,
        { stdin: 'hello from the owner' },
      );
      const outcome = await runner.run(launch);
      expect(outcome.exit_code).toBe(0);
      expect(outcome.stdout.endsWith('END:HELLO FROM THE OWNER')).toBe(true);
      expect(Buffer.byteLength(outcome.stdout)).toBeLessThanOrEqual(64 * 1024);
    });

    it('leaves the harness files in the host folders, owned by this process, deletable', async () => {
      const dirs = trialDirs();
      writeFileSync(path.join(dirs.workspace, 'given.txt'), 'from the case\n');
      const { launch } = launchOf(
        runner,
        `const fs = require('fs');
       fs.writeFileSync('/trial/workspace/out.txt', 'written inside\\n');
       fs.appendFileSync('/trial/workspace/given.txt', 'appended\\n');
       fs.mkdirSync('/trial/home/.config/harness', { recursive: true });
       fs.writeFileSync('/trial/home/.config/harness/settings.json', '{"a":1}');
       fs.writeFileSync('/trial/tmp/scratch', 'tmp');
       fs.symlinkSync('/etc/passwd', '/trial/workspace/link-out');`,
        { dirs },
      );
      const outcome = await runner.run(launch);
      expect(outcome.stderr).toBe('');
      expect(outcome.exit_code).toBe(0);
      expect(readFileSync(path.join(dirs.workspace, 'out.txt'), 'utf8')).toBe('written inside\n');
      expect(readFileSync(path.join(dirs.workspace, 'given.txt'), 'utf8')).toBe('from the case\nappended\n');
      expect(readFileSync(path.join(dirs.home, '.config/harness/settings.json'), 'utf8')).toBe('{"a":1}');
      expect(readFileSync(path.join(dirs.tmp, 'scratch'), 'utf8')).toBe('tmp');
      const uid = process.getuid?.();
      for (const p of [
        'workspace/out.txt',
        'home/.config/harness',
        'home/.config/harness/settings.json',
        'workspace',
      ]) {
        expect(statSync(path.join(dirs.root, p)).uid).toBe(uid);
      }
      // The planted symlink was not followed by the ownership hand-back.
      expect(statSync('/etc/passwd').uid).toBe(0);
      rmSync(dirs.root, { recursive: true });
      expect(existsSync(dirs.root)).toBe(false);
    });

    it('writes outside the trial folders never reach the host; read-only mounts stay read-only', async () => {
      const ro = mkdtempSync(path.join(os.tmpdir(), 'hr-ro-'));
      tmpRoots.push(ro);
      writeFileSync(path.join(ro, 'harness.js'), 'module.exports = 1;\n');
      chmodSync(ro, 0o755); // mkdtemp makes it 0700; the container user must be able to read it
      const marker = `hr-escape-${randomBytes(4).toString('hex')}`;
      const dirs = trialDirs();
      const view = runner.view(dirs);
      const roIn = view.mapReadOnly(ro);
      const { launch } = launchOf(
        runner,
        `const fs = require('fs'); const r = {};
       for (const p of ['/${marker}', '/etc/${marker}', '/usr/local/bin/${marker}', '${roIn}/${marker}', '${roIn}/harness.js',
                        '${dirs.root}/${marker}', '/tmp/${marker}']) {
         try { fs.writeFileSync(p, 'x'); r[p] = 'written'; } catch (e) { r[p] = e.code; }
       }
       r.read = fs.readFileSync('${roIn}/harness.js', 'utf8');
       console.log(JSON.stringify(r));`,
        { dirs, read_only: [ro] },
      );
      const outcome = await runner.run(launch);
      expect(outcome.stderr).toBe('');
      const r = JSON.parse(outcome.stdout);
      expect(r.read).toBe('module.exports = 1;\n');
      expect(r[`/${marker}`]).toMatch(/EROFS|EACCES/);
      expect(r[`/etc/${marker}`]).toMatch(/EROFS|EACCES/);
      expect(r[`/usr/local/bin/${marker}`]).toMatch(/EROFS|EACCES/);
      expect(r[`${roIn}/${marker}`]).toMatch(/EROFS|EACCES/);
      expect(r[`${roIn}/harness.js`]).toMatch(/EROFS|EACCES/);
      expect(r[`/tmp/${marker}`]).toBe('written'); // the container's own tmpfs
      for (const p of [
        `/${marker}`,
        `/etc/${marker}`,
        `/usr/local/bin/${marker}`,
        `/tmp/${marker}`,
        path.join(ro, marker),
        path.join(dirs.root, marker),
      ]) {
        expect(existsSync(p)).toBe(false);
      }
      expect(readFileSync(path.join(ro, 'harness.js'), 'utf8')).toBe('module.exports = 1;\n');
    });

    it('with a writable root filesystem, outside writes are reported as container changes, not on the host', async () => {
      const rid = `${runId}-rw`;
      const rw = new DockerRunner({
        runId: rid,
        image: IMAGE,
        warm,
        readOnlyRootfs: false,
        sweepStale: false,
      });
      await rw.start();
      try {
        const marker = `hr-escape-${randomBytes(4).toString('hex')}`;
        const { launch, dirs } = launchOf(
          rw,
          `require('fs').writeFileSync('/tmp/${marker}', 'x'); require('fs').writeFileSync('/trial/workspace/ok', 'y');`,
        );
        const outcome = await rw.run(launch);
        expect(outcome.exit_code).toBe(0);
        expect(outcome.container_changes?.map((c) => c.path)).toContain(`/tmp/${marker}`);
        expect(outcome.container_changes?.some((c) => c.path.startsWith('/trial'))).toBe(false);
        expect(existsSync(`/tmp/${marker}`)).toBe(false);
        expect(existsSync(path.join(dirs.workspace, 'ok'))).toBe(true);
      } finally {
        await rw.stop();
      }
      expect(await leftovers(rid)).toEqual({ containers: '', networks: '' });
    });

    it('mounts dist/ alone where the engine maps it: under the action root it mapped first', async () => {
      // The engine maps {{action_root}} (the whole root) for the command, but lists only its dist/ (and
      // others) as read-only: only dist/ may be visible, at the place the mapping of the root implies.
      const actionRoot = mkdtempSync(path.join(os.tmpdir(), 'hr-action-'));
      tmpRoots.push(actionRoot);
      mkdirSync(path.join(actionRoot, 'dist'));
      writeFileSync(path.join(actionRoot, 'dist', 'harness.js'), 'console.log("from dist")');
      writeFileSync(path.join(actionRoot, 'secret.txt'), 'not for the harness');
      for (const p of [actionRoot, path.join(actionRoot, 'dist')]) chmodSync(p, 0o755);
      const dirs = trialDirs();
      const view = runner.view(dirs);
      const rootIn = view.mapReadOnly(actionRoot);
      const { launch } = launchOf(runner, '', {
        dirs,
        command: [
          'node',
          '-e',
          `require('${rootIn}/dist/harness.js');
         console.log(require('fs').existsSync('${rootIn}/secret.txt') ? 'secret visible' : 'secret hidden');`,
        ],
        read_only: [path.join(actionRoot, 'dist')],
      });
      const outcome = await runner.run(launch);
      expect(outcome.stderr).toBe('');
      expect(outcome.stdout).toBe('from dist\nsecret hidden\n');
    });

    it('has no Docker socket and no host mounts beyond the trial folders and the read-only ones', async () => {
      const ro = mkdtempSync(path.join(os.tmpdir(), 'hr-ro-'));
      tmpRoots.push(ro);
      const { launch } = launchOf(
        runner,
        `const fs = require('fs');
       const socks = ['/var/run/docker.sock', '/run/docker.sock', '/docker.sock'].filter((p) => fs.existsSync(p));
       const mounts = fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\\n').filter(Boolean)
         .map((l) => l.split(' ')[4]).filter((m) => m.startsWith('/trial') || m.startsWith('/opt') || m.includes('docker.sock'));
       let net = 'none';
       const s = require('net').connect('/var/run/docker.sock');
       s.on('connect', () => { net = 'connected'; }).on('error', (e) => { net = e.code; });
       setTimeout(() => { console.log(JSON.stringify({ socks, mounts: mounts.sort(), net })); process.exit(0); }, 300);`,
        { read_only: [ro] },
      );
      const outcome = await runner.run(launch);
      const r = JSON.parse(outcome.stdout);
      expect(r.socks).toEqual([]);
      expect(r.net).toBe('ENOENT');
      const roIn = runner.mapReadOnly(ro);
      // The trial folders are one tmpfs at /trial; /opt/hr/ep holds only this trial's endpoint socket.
      expect(r.mounts).toEqual(['/opt/hr/ep', roIn, '/trial'].sort());
    });

    it('reaches its endpoint (and the fake hostnames), nothing else of this host, other trials or other networks', async () => {
      // The per-trial endpoint, as the engine binds it (loopback of the host).
      const endpoint = http.createServer((_q, s) => s.end('endpoint'));
      const port = await listen(endpoint, '127.0.0.1');
      // Another trial's endpoint, on the same host address.
      const other = http.createServer((_q, s) => s.end('other-trial'));
      const otherPort = await listen(other, '127.0.0.1');
      // A host service on all interfaces.
      const anyIf = http.createServer((_q, s) => s.end('host-any'));
      const anyPort = await listen(anyIf, '0.0.0.0');
      const hostIps = Object.values(os.networkInterfaces())
        .flat()
        .filter((i) => i && i.family === 'IPv4' && !i.internal)
        .map((i) => i!.address);
      // A Docker network of ours: a listener on its gateway (host side) and a container on it.
      const otherNetName = `hr-test-outside-${randomBytes(3).toString('hex')}`;
      const otherNet = await docker.createNetwork({
        Name: otherNetName,
        Internal: true,
        Labels: { [RUN_LABEL]: `${runId}-outside` },
      });
      let outsider: Docker.Container | undefined;
      const outsideHost = http.createServer((_q, s) => s.end('outside-gateway'));
      try {
        const otherGw = (await otherNet.inspect()).IPAM?.Config?.[0]?.Gateway as string;
        const outsideHostPort = await listen(outsideHost, otherGw);
        outsider = await docker.createContainer({
          Image: IMAGE,
          Cmd: [
            'node',
            '-e',
            'require("http").createServer((q, s) => s.end("outside-container")).listen(8080)',
          ],
          Labels: { [RUN_LABEL]: `${runId}-outside` },
          HostConfig: { NetworkMode: otherNetName, CapDrop: ['ALL'] },
        });
        await outsider.start();
        const outsiderIp = (await outsider.inspect()).NetworkSettings.Networks[otherNetName].IPAddress;
        const urls: Record<string, string> = {
          endpoint: `http://127.0.0.1:${port}/`,
          alias: `http://attacker.test:${port}/sink`,
          otherTrial: `http://127.0.0.1:${otherPort}/`,
          hostAnyViaGateway: `http://${otherGw}:${anyPort}/`,
          outsideGateway: `http://${otherGw}:${outsideHostPort}/`,
          outsideContainer: `http://${outsiderIp}:8080/`,
          docker0: `http://172.17.0.1:${anyPort}/`,
        };
        for (const ip of hostIps) urls[`host-${ip}`] = `http://${ip}:${anyPort}/`;
        const up = await eventually(
          () =>
            fetch(urls.outsideContainer)
              .then((r) => r.text())
              .then(
                (t) => t === 'outside-container',
                () => false,
              ),
          10_000,
        );
        expect(up).toBe(true);
        const { launch } = launchOf(runner, PROBE, {
          stdin: JSON.stringify(Object.values(urls)),
          extraEnv: { HR_SVC: `http://127.0.0.1:${port}`, HTTP_PROXY: `http://127.0.0.1:${port}` },
          endpoint_port: port,
        });
        const outcome = await runner.run(launch);
        expect(outcome.stderr).toBe('');
        const r = JSON.parse(outcome.stdout) as Record<string, string>;
        expect(r[urls.endpoint]).toBe('ok:endpoint');
        expect(r[urls.alias]).toBe('ok:endpoint');
        for (const [name, u] of Object.entries(urls)) {
          if (name === 'endpoint' || name === 'alias') continue;
          expect(r[u], `${name} ${u}`).toMatch(/^fail:/);
        }
      } finally {
        for (const s of [endpoint, other, anyIf, outsideHost]) s.close();
        await outsider?.remove({ force: true }).catch(() => {});
        await otherNet.remove().catch(() => {});
      }
    });

    it('DNS lookups of outside names fail inside the container, fast', async () => {
      const { launch } = launchOf(
        runner,
        `require('dns').lookup('exfil-probe.invalid', (e, a) => console.log(JSON.stringify({ code: e && e.code, a })));
       require('dns').lookup('mail.test', (e, a) => console.log(JSON.stringify({ alias: a })));`,
      );
      const t0 = Date.now();
      const outcome = await runner.run(launch);
      expect(Date.now() - t0).toBeLessThan(5_000);
      const lines = outcome.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.find((l) => 'code' in l)?.code).toMatch(/ENOTFOUND|EAI_AGAIN/);
      expect(lines.find((l) => 'alias' in l)?.alias).toBe('127.0.0.1');
    });

    it('gives every trial a fresh container', async () => {
      const a = await runner.run(launchOf(runner, 'console.log(process.env.HOSTNAME)').launch);
      const b = await runner.run(launchOf(runner, 'console.log(process.env.HOSTNAME)').launch);
      expect(a.stdout.trim()).toMatch(/^[0-9a-f]{12}$/);
      expect(b.stdout.trim()).not.toBe(a.stdout.trim());
    });

    it('brings deletions and symlinks back as they are, never following a link', async () => {
      const dirs = trialDirs();
      writeFileSync(path.join(dirs.workspace, 'doomed.txt'), 'x');
      mkdirSync(path.join(dirs.home, '.cache'));
      writeFileSync(path.join(dirs.home, '.cache', 'c'), 'c');
      const { launch } = launchOf(
        runner,
        `const fs = require('fs');
       fs.unlinkSync('/trial/workspace/doomed.txt');
       fs.rmSync('/trial/home/.cache', { recursive: true });
       fs.symlinkSync('../home/.profile', '/trial/workspace/rel-link');
       fs.symlinkSync('/etc', '/trial/workspace/etc-link');
       fs.writeFileSync('/trial/workspace/mode.sh', '#!/bin/sh', { mode: 0o755 });`,
        { dirs },
      );
      const outcome = await runner.run(launch);
      expect(outcome.stderr).toBe('');
      expect(existsSync(path.join(dirs.workspace, 'doomed.txt'))).toBe(false);
      expect(existsSync(path.join(dirs.home, '.cache'))).toBe(false);
      expect(readlinkSync(path.join(dirs.workspace, 'rel-link'))).toBe('../home/.profile');
      expect(readlinkSync(path.join(dirs.workspace, 'etc-link'))).toBe('/etc');
      expect(statSync(path.join(dirs.workspace, 'mode.sh')).mode & 0o777).toBe(0o755);
    });

    it('a child the harness leaves running cannot write after the trial', async () => {
      const dirs = trialDirs();
      const { launch } = launchOf(
        runner,
        `require('child_process').spawn(process.execPath, ['-e',
         "setTimeout(() => require('fs').writeFileSync('/trial/workspace/late.txt', 'late'), 1500)"],
         { detached: true, stdio: 'ignore' }).unref();
       require('fs').writeFileSync('/trial/workspace/early.txt', 'early');`,
        { dirs },
      );
      const t0 = Date.now();
      const outcome = await runner.run(launch);
      expect(outcome.exit_code).toBe(0);
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(readFileSync(path.join(dirs.workspace, 'early.txt'), 'utf8')).toBe('early');
      await new Promise((r) => setTimeout(r, 2_500));
      expect(existsSync(path.join(dirs.workspace, 'late.txt'))).toBe(false);
    });

    it('an aborted trial is killed and marked as an infrastructure failure', async () => {
      const ac = new AbortController();
      const { launch } = launchOf(runner, 'setInterval(() => {}, 1000)', {
        signal: ac.signal,
        timeout_ms: 60_000,
      });
      setTimeout(() => ac.abort(), 1000);
      const outcome = await runner.run(launch);
      expect(outcome.timed_out).toBe(false);
      expect(outcome.infra_error).toMatch(/aborted/);
    });

    it('an abort while the container is being created still ends the trial (not at its timeout)', async () => {
      const ac = new AbortController();
      const { launch } = launchOf(runner, 'setInterval(() => {}, 1000)', {
        signal: ac.signal,
        timeout_ms: 60_000,
      });
      // run() has passed its synchronous checks and awaits Docker: the abort lands before the guard exists.
      const pending = runner.run(launch);
      ac.abort();
      const outcome = await pending;
      expect(outcome.timed_out).toBe(false);
      expect(outcome.infra_error).toMatch(/aborted/);
      expect(outcome.duration_ms).toBeLessThan(30_000);
    }, 45_000);

    it('leaves nothing behind after hanging and crashing trials and stop(); stop() twice is fine', async () => {
      const rid = `${runId}-leak`;
      const r = new DockerRunner({ runId: rid, image: IMAGE, warm, sweepStale: false });
      await r.start();
      const [hang, crash] = await Promise.all([
        r.run(launchOf(r, 'setInterval(() => {}, 1000)', { timeout_ms: 1000 }).launch),
        r.run(launchOf(r, 'process.abort()').launch),
      ]);
      expect(hang.timed_out).toBe(true);
      expect(crash.exit_code).not.toBe(0);
      // A trial still running when stop() comes.
      const pending = r.run(launchOf(r, 'setInterval(() => {}, 1000)', { timeout_ms: 60_000 }).launch);
      await eventually(async () => (await leftovers(rid)).containers !== '', 10_000);
      await Promise.all([r.stop(), r.stop()]);
      const late = await pending;
      expect(late.infra_error).toBeDefined();
      expect(await leftovers(rid)).toEqual({ containers: '', networks: '' });
    });

    it('marks the trial invalid when the daemon goes away mid-run, and every later trial too', async () => {
      // A socket proxy stands in for the daemon; closing it is the daemon dying.
      const proxyPath = path.join(mkdtempSync(path.join(os.tmpdir(), 'hr-sock-')), 'docker.sock');
      tmpRoots.push(path.dirname(proxyPath));
      const conns = new Set<net.Socket>();
      // Half-open like the daemon's own socket (stdin is closed while the output still flows).
      const proxy = net.createServer({ allowHalfOpen: true }, (c) => {
        const up = net.connect({ path: SOCKET, allowHalfOpen: true });
        conns.add(c).add(up);
        c.pipe(up).pipe(c);
        const drop = () => {
          c.destroy();
          up.destroy();
        };
        c.on('error', drop).on('close', drop);
        up.on('error', drop).on('close', drop);
      });
      await new Promise<void>((res) => proxy.listen(proxyPath, res));
      const rid = `${runId}-dies`;
      const r = new DockerRunner({
        runId: rid,
        image: IMAGE,
        socketPath: proxyPath,
        sweepStale: false,
        onWarning: () => {},
      });
      try {
        await r.start();
        const pending = r.run(launchOf(r, 'setInterval(() => {}, 1000)', { timeout_ms: 60_000 }).launch);
        await eventually(async () => (await leftovers(rid)).containers !== '', 10_000);
        await new Promise((res) => setTimeout(res, 500));
        proxy.close();
        for (const c of conns) c.destroy();
        const outcome = await pending;
        expect(outcome.infra_error).toBeDefined();
        expect(outcome.spawn_error).toBeUndefined();
        const next = await r.run(launchOf(r, 'console.log(1)').launch);
        expect(next.infra_error).toMatch(/stopped answering/);
        await r.stop(); // cannot reach the daemon: warns, does not throw
      } finally {
        await sweepRun(docker, rid);
      }
      expect(await leftovers(rid)).toEqual({ containers: '', networks: '' });
    });

    describe.runIf(mode === 'warm')('interrupts of the process that runs the runner', () => {
      let child: string;
      beforeAll(async () => {
        const outdir = path.resolve('node_modules/.cache/hr-docker-test');
        child = path.join(outdir, 'interrupt-child.mjs');
        await build({
          entryPoints: [path.resolve('test/fixtures/docker/interrupt-child.ts')],
          outfile: child,
          bundle: true,
          platform: 'node',
          format: 'esm',
          target: 'node20',
          packages: 'external',
          logLevel: 'warning',
        });
      });

      async function interrupt(
        mode: 'SIGTERM' | 'SIGINT' | 'exit' | 'graceful',
      ): Promise<{ rid: string; code: number | null; signal: string | null; out: string }> {
        const rid = `${runId}-${mode.toLowerCase()}`;
        const root = mkdtempSync(path.join(os.tmpdir(), 'hr-docker-child-'));
        tmpRoots.push(root);
        const childMode = mode === 'exit' || mode === 'graceful' ? mode : 'signal';
        const p = spawn(process.execPath, [child, rid, IMAGE, root, childMode], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        p.stdout.on('data', (d) => (out += d));
        p.stderr.on('data', (d) => (out += d));
        const exited = new Promise<[number | null, string | null]>((res) =>
          p.on('exit', (c, s) => res([c, s])),
        );
        const running = await eventually(async () => /^(NEVER )?RUNNING$/m.test(out), 90_000);
        expect(running && !out.includes('NEVER RUNNING'), out).toBe(true);
        expect((await leftovers(rid)).containers).not.toBe('');
        if (mode === 'graceful') p.kill('SIGTERM');
        else if (mode === 'exit') p.kill('SIGUSR2');
        else p.kill(mode);
        const [code, signal] = await exited;
        return { rid, code, signal, out };
      }

      it('SIGTERM mid-trial: the child sweeps its containers and network, then dies of SIGTERM', async () => {
        const { rid, signal, out } = await interrupt('SIGTERM');
        expect(signal, out).toBe('SIGTERM');
        expect(await leftovers(rid)).toEqual({ containers: '', networks: '' });
      });

      it('SIGINT mid-trial: same', async () => {
        const { rid, signal, out } = await interrupt('SIGINT');
        expect(signal, out).toBe('SIGINT');
        expect(await leftovers(rid)).toEqual({ containers: '', networks: '' });
      });

      it('SIGTERM with a handler of its own (the CLI): resources swept at once, the process finishes its run', async () => {
        const { rid, code, signal, out } = await interrupt('graceful');
        expect(signal, out).toBeNull();
        expect(code, out).toBe(0);
        expect(out).toMatch(/DONE .*"infra_error"/);
        expect(out).toContain('GRACEFUL SIGTERM');
        expect(await leftovers(rid)).toEqual({ containers: '', networks: '' });
      });

      it('process.exit() mid-trial: a detached sweeper removes everything', async () => {
        const { rid, code, out } = await interrupt('exit');
        expect(code, out).toBe(3);
        const clean = await eventually(async () => {
          const l = await leftovers(rid);
          return l.containers === '' && l.networks === '';
        }, 20_000);
        expect(clean).toBe(true);
      });
    });

    it.runIf(mode === 'warm')(
      'sweepStale() removes labelled leftovers of dead processes and spares live runs',
      async () => {
        const rid = `${runId}-stale`;
        const deadOwner = `${os.hostname()}:999999`;
        const n = await docker.createNetwork({
          Name: `hr-stale-${randomBytes(3).toString('hex')}`,
          Internal: true,
          Labels: { [RUN_LABEL]: rid, 'harness-risk.owner': deadOwner },
        });
        const c = await docker.createContainer({
          Image: IMAGE,
          Cmd: ['true'],
          Labels: { [RUN_LABEL]: rid, 'harness-risk.owner': deadOwner },
        });
        const removed = await sweepStale({ olderThanMs: 0 });
        expect(removed.containers).toContain(c.id);
        expect(removed.networks.length).toBeGreaterThanOrEqual(1);
        expect(await leftovers(rid)).toEqual({ containers: '', networks: '' });
        await n.remove().catch(() => {});
        // The live runner of this file was spared (its warm container is still there).
        expect((await leftovers(runId)).containers).not.toBe('');
      },
    );

    it('stop() removes every container and the network of the run', async () => {
      await runner.stop();
      expect(await leftovers(runId)).toEqual({ containers: '', networks: '' });
    });
  },
);

// Issue 12, the docker runner's share: trials cannot reach each other or the host, disk is capped inside the
// container, limits are named, and a SIGKILLed run's leftovers go at the next run's start. Each of these
// failed on the runner before src/runner/docker/ (commit 84df7fc).
(reason === undefined ? describe : describe.skip)('docker runner containment (issue 12)', () => {
  const rid = `test-${process.pid}-contain-${randomBytes(3).toString('hex')}`;
  let runner: DockerRunner;
  beforeAll(async () => {
    runner = new DockerRunner({ runId: rid, image: IMAGE, warm: 2, onWarning: () => {} });
    await runner.start();
  });
  afterAll(async () => {
    await runner?.stop();
  });

  // POSTs to each URL from inside the container; prints {url: 'ok:<status>' | 'fail:<code>'}.
  const POSTER = `
let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', async () => {
  const out = {};
  for (const u of JSON.parse(input)) {
    try {
      const r = await fetch(u, { method: 'POST', body: 'from-trial-2', signal: AbortSignal.timeout(3000) });
      out[u] = 'ok:' + r.status;
    } catch (e) { out[u] = 'fail:' + (e.cause?.code || e.name); }
  }
  console.log(JSON.stringify(out));
});`;

  it("two concurrent trials: the second cannot post into the first's endpoint, nor reach host listeners", async () => {
    const got: Record<string, string[]> = { one: [], two: [], host: [] };
    const serve = (name: string) =>
      http.createServer((q, s) => {
        let b = '';
        q.on('data', (d) => (b += d)).on('end', () => {
          got[name].push(`${q.method} ${b}`);
          s.end('ok');
        });
      });
    const dirs1 = trialDirs();
    const view1 = runner.view(dirs1);
    const ep1 = serve('one');
    const port1 = await listen(ep1, view1.bindHost);
    const ep2 = serve('two');
    const port2 = await listen(ep2, view1.bindHost);
    // A host listener on all interfaces, and one on the address of a Docker bridge of ours.
    const hostAny = serve('host');
    const anyPort = await listen(hostAny, '0.0.0.0');
    const net2 = await docker.createNetwork({
      Name: `hr-test-br-${randomBytes(3).toString('hex')}`,
      Labels: { [RUN_LABEL]: `${rid}-br` },
    });
    const bridgeIp = (await net2.inspect()).IPAM?.Config?.[0]?.Gateway as string;
    const hostBridge = serve('host');
    const bridgePort = await listen(hostBridge, bridgeIp);
    try {
      const one = runner.run(
        launchOf(runner, '', {
          dirs: dirs1,
          command: [
            'node',
            '-e',
            `fetch('http://${view1.endpointHost}:${port1}/hello', { method: 'POST', body: 'hello' }); setTimeout(() => {}, 8000)`,
          ],
          extraEnv: { HR_SVC: `http://${view1.endpointHost}:${port1}` },
          endpoint_port: port1,
        }).launch,
      );
      expect(await eventually(async () => got.one.length > 0, 20_000)).toBe(true);
      const urls = [
        `http://${view1.endpointHost}:${port2}/own`,
        `http://${view1.endpointHost}:${port1}/neighbour`,
        `http://${bridgeIp}:${port1}/neighbour-via-bridge`,
        `http://${bridgeIp}:${anyPort}/host-any`,
        `http://${bridgeIp}:${bridgePort}/host-bridge`,
        `http://172.17.0.1:${anyPort}/host-docker0`,
      ];
      const two = await runner.run(
        launchOf(runner, POSTER, {
          stdin: JSON.stringify(urls),
          extraEnv: { HR_SVC: `http://${view1.endpointHost}:${port2}` },
          endpoint_port: port2,
        }).launch,
      );
      const r = JSON.parse(two.stdout) as Record<string, string>;
      expect(r[urls[0]]).toBe('ok:200');
      for (const u of urls.slice(1)) expect(r[u], u).toMatch(/^fail:/);
      expect(got.one).toEqual(['POST hello']);
      expect(got.two).toEqual(['POST from-trial-2']);
      expect(got.host).toEqual([]);
      await one;
    } finally {
      for (const s of [ep1, ep2, hostAny, hostBridge]) s.close();
      await net2.remove().catch(() => {});
    }
  }, 60_000);

  it("after SIGKILL of a run mid-trial, the next run's start removes its containers and folders, whatever their age", async () => {
    const outdir = path.resolve('node_modules/.cache/hr-docker-test');
    const child = path.join(outdir, 'interrupt-child-kill.mjs');
    await build({
      entryPoints: [path.resolve('test/fixtures/docker/interrupt-child.ts')],
      outfile: child,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
    });
    const killedRun = `${rid}-killed`;
    const root = mkdtempSync(path.join(os.tmpdir(), 'hr-docker-child-'));
    tmpRoots.push(root);
    const p = spawn(process.execPath, [child, killedRun, IMAGE, root, 'signal'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    const exited = new Promise((res) => p.on('exit', res));
    expect(await eventually(async () => out.includes('RUNNING'), 30_000), out).toBe(true);
    const folders = () => readdirSync(os.tmpdir()).filter((n) => n.startsWith(`hr-docker-${p.pid}-`));
    expect((await leftovers(killedRun)).containers).not.toBe('');
    p.kill('SIGKILL');
    await exited;
    // Nothing of the dead run went by itself.
    expect((await leftovers(killedRun)).containers).not.toBe('');
    const leftFolders = folders();
    // The next run (any run id) sweeps at its start: the owner is gone, the leftovers are seconds old.
    const next = new DockerRunner({ runId: `${rid}-next`, image: IMAGE, warm: 0, onWarning: () => {} });
    await next.start();
    await next.stop();
    expect(await leftovers(killedRun)).toEqual({ containers: '', networks: '' });
    expect(folders(), `left before: ${leftFolders.join(', ')}`).toEqual([]);
  }, 90_000);

  it('a 2 GB file stops at the disk cap inside the container; the host gets at most the cap; the limit is named', async () => {
    const r = new DockerRunner({
      runId: `${rid}-disk`,
      image: IMAGE,
      warm: 0,
      disk: '64m',
      sweepStale: false,
      onWarning: () => {},
    });
    await r.start();
    try {
      const dirs = trialDirs();
      const t0 = Date.now();
      const out = await r.run(
        launchOf(r, '', {
          dirs,
          command: [
            'sh',
            '-c',
            'dd if=/dev/zero of=/trial/workspace/big bs=1M count=2048 2>&1; echo dd-exit=$?',
          ],
        }).launch,
      );
      expect(out.stdout).toMatch(/No space left on device/);
      expect(statSync(path.join(dirs.workspace, 'big')).size).toBeLessThanOrEqual(64 * 1024 ** 2);
      expect(out.limit_hit).toMatch(/disk limit \(64 MiB for the trial folders\) reached/);
      expect(Date.now() - t0).toBeLessThan(20_000);
    } finally {
      await r.stop();
    }
  }, 60_000);

  it('an OOM kill is named as the memory limit (outcome and invalid reason); a fork flood names the process limit', async () => {
    const { invalidReason } = await import('../src/score/labels.js');
    const r = new DockerRunner({
      runId: `${rid}-mem`,
      image: IMAGE,
      warm: 0,
      memory: '128m',
      pids: 64,
      sweepStale: false,
      onWarning: () => {},
    });
    await r.start();
    try {
      const oom = await r.run(launchOf(r, 'const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1));').launch);
      expect(oom.signal).toBe('SIGKILL');
      expect(oom.limit_hit).toMatch(/^memory limit \(128 MiB\) reached: the kernel killed a process/);
      const reasonText = invalidReason({ process: oom, model: [] } as never);
      expect(reasonText).toMatch(/memory limit \(128 MiB\) reached/);
      expect(reasonText).not.toMatch(/^harness never called the model endpoint \(exit SIGKILL\)$/);
      const forks = await r.run(
        launchOf(r, '', {
          command: ['sh', '-c', 'for i in $(seq 1 100); do sleep 5 & done 2>/dev/null; true'],
        }).launch,
      );
      expect(forks.limit_hit).toMatch(/^process limit \(64 processes and threads\) reached/);
    } finally {
      await r.stop();
    }
  }, 90_000);
});
