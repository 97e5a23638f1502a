// The runner conformance suite: what every runner must guarantee about one trial, checked with hostile
// harness fixtures (test/fixtures/hostile/) each doing one misbehaviour. After inspect_ai's sandbox
// self-check: environment of the parent, writes outside the trial, the result file, other trials'
// endpoints, host listeners, daemons, forks, memory, file size, disk, signals and teardown, and a harness
// doing its job still works.
//
// Runners come from test/support/runner-factories.ts. For a runner marked `contained: false` every
// containment item runs as an expected failure ("[expected-uncontained]"): that is what uncontained
// means, and a test that starts passing there is reported. The resource items (10,000 forks, a 2 GiB
// file, 4 GiB of RAM, a full disk) are not run against an uncontained runner: they would exhaust the
// machine; their names say so.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTrialEnv, policeEnv } from '../src/engine/env.js';
import { harnessView } from '../src/engine/harness-view.js';
import { hiddenBy, type ProcessOutcome } from '../src/evidence/types.js';
import type { Limits } from '../src/runner/contain/limits.js';
import type { Runner, SandboxView, TrialLaunch } from '../src/runner/types.js';
import { snapshotDetailed } from '../src/world/snapshot.js';
import { createTrialDirs, removeTrialDirs, type TrialDirs } from '../src/world/trial-dirs.js';
import { bundledSupport } from './support/bundle-support.js';
import { bwrapSkipReason, titled } from './support/requirements.js';
import { FACTORIES, type RunnerFactory } from './support/runner-factories.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'hostile');
const MiB = 1024 * 1024;
/** Small limits, so each resource item hits its limit in well under a second. */
const TEST_LIMITS: Partial<Limits> = {
  memory_bytes: 256 * MiB,
  pids: 64,
  file_size_bytes: 32 * MiB,
  disk_bytes: 64 * MiB,
};
/**
 * The resource items' sizes (10,000 forks, 2 GiB, 4 GiB…) times this. Only for running the suite
 * against a runner with no limits at all (e.g. the pre-containment runner, to see each item fail)
 * without exhausting the machine; every scaled size still exceeds TEST_LIMITS from 0.1 up.
 */
const SCALE = Number(process.env.HR_HOSTILE_SCALE ?? 1);
const scaled = (n: number) => String(Math.max(1, Math.round(n * SCALE)));
const CANARIES = {
  GITHUB_TOKEN: 'ghs_conformance_canary_0001',
  'INPUT_GITHUB-TOKEN': 'ghs_conformance_canary_0002',
  ACTIONS_RUNTIME_TOKEN: 'conformance_canary_0003',
  HR_CANARY_SECRET: 'conformance_canary_0004',
};

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'hr-conf-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

interface Endpoint {
  port: number;
  hits: string[];
  /** Most connections the endpoint held at once (a flood must never reach it past the runner's cap). */
  peak(): number;
  close(): Promise<void>;
}

/** The trial's endpoint as the engine starts it (src/engine/trial.ts): TCP, plus the runner's socket. */
async function startEndpoint(view: SandboxView): Promise<Endpoint> {
  const hits: string[] = [];
  const handler = (req: any, res: any) => {
    hits.push(`${req.method} ${req.url}`);
    res.end('ok');
  };
  let open = 0;
  let peak = 0;
  const counted = (server: Server) =>
    server.on('connection', (c) => {
      peak = Math.max(peak, ++open);
      c.on('close', () => open--);
    });
  const servers: Server[] = [counted(createServer(handler))];
  await new Promise<void>((ok) => servers[0]!.listen(0, view.bindHost, ok));
  if (view.endpointSocket) {
    const unix = counted(createServer(handler));
    servers.push(unix);
    await new Promise<void>((ok) => unix.listen(view.endpointSocket, ok));
    await chmod(view.endpointSocket, 0o666);
  }
  return {
    port: (servers[0]!.address() as AddressInfo).port,
    hits,
    peak: () => peak,
    close: async () => {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise((ok) => s.close(ok));
      }
    },
  };
}

interface TrialRun {
  outcome: ProcessOutcome;
  dirs: TrialDirs;
  view: SandboxView;
  endpoint: Endpoint;
}

/** One trial of `fixture` under `runner`, as the engine runs it; the folders stay until `done()`. */
async function trial(
  runner: Runner,
  fixture: string,
  opts: {
    env?: (view: SandboxView, dirs: TrialDirs) => Record<string, string>;
    readOnly?: string[];
    hide?: string[];
    timeoutMs?: number;
    signal?: AbortSignal;
    dirs?: TrialDirs;
    /** Called after `runner.stage` (when the runner has one), before `runner.run`. */
    staged?: (dirs: TrialDirs) => Promise<void>;
    /** Connections the runner lets the harness hold open to its endpoint (TrialLaunch.max_connections). */
    maxConnections?: number;
    /** A conversation over the harness's stdio (TrialLaunch.converse, protocol: acp). */
    converse?: TrialLaunch['converse'];
  } = {},
): Promise<TrialRun & { done(): Promise<void> }> {
  const dirs = opts.dirs ?? (await createTrialDirs(base, basename(fixture)));
  await runner.prepare?.(dirs);
  const view = runner.view(dirs);
  const endpoint = await startEndpoint(view);
  copyFileSync(join(FIXTURES, fixture), join(dirs.bin, fixture));
  const url = `http://${view.endpointHost}:${endpoint.port}`;
  // As the engine makes it: the trial's variables and the test's, through the one env policy.
  const env = buildTrialEnv({
    view,
    endpoint: url,
    endpointHost: view.endpointHost,
    cwd: view.workspace,
    adapterEnv: opts.env?.(view, dirs) ?? {},
    configEnv: {},
  }).env;
  const command = fixture.endsWith('.cjs')
    ? ['node', `${view.bin}/${fixture}`]
    : ['/bin/sh', `${view.bin}/${fixture}`];
  const launch = {
    trial_id: fixture,
    dirs,
    command,
    cwd: view.workspace,
    env,
    timeout_ms: opts.timeoutMs ?? 20_000,
    read_only: opts.readOnly ?? [],
    hide: opts.hide ?? [],
    endpoint_port: endpoint.port,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.maxConnections ? { max_connections: opts.maxConnections } : {}),
    ...(opts.converse ? { converse: opts.converse } : {}),
  };
  if (opts.staged) {
    await runner.stage?.(launch);
    await opts.staged(dirs);
  }
  const outcome = await runner.run(launch);
  await endpoint.close();
  return {
    outcome,
    dirs,
    view,
    endpoint,
    done: async () => {
      await runner.release?.(dirs);
      await removeTrialDirs(dirs).catch(() => {});
    },
  };
}

/** Host processes whose command line holds `token` (a daemon or child a trial left behind). */
function hostProcessesWith(token: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(token)) out.push(Number(p));
    } catch {}
  }
  return out;
}

/**
 * The processes with `token` whose parent has none: a shell's fork has its parent's command line until it
 * execs, so under load hostProcessesWith counts a loop shell's passing `sleep` child as a fourth process.
 */
function rootProcessesWith(token: string): number[] {
  const all = hostProcessesWith(token);
  const parentOf = (pid: number): number | undefined => {
    try {
      // Field 4 of /proc/PID/stat, after the command name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return undefined;
    }
  };
  return all.filter((pid) => {
    const parent = parentOf(pid);
    return parent !== undefined && !all.includes(parent);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * How many root processes with `token` were seen running at once, stopping when `want` were or after
 * 40 s: a loaded machine (CI runs the
 * docker items beside these) may take long to stage the trial and start its children.
 */
async function rootsRunning(token: string, want: number): Promise<number> {
  // The most seen at once, not a last look: a sample taken while a loop shell forks may miss one.
  let most = 0;
  for (let i = 0; i < 400 && most < want; i++) {
    most = Math.max(most, rootProcessesWith(token).length);
    if (most < want) await sleep(100);
  }
  return most;
}
const token = () => Math.random().toString(36).slice(2, 10);

/** The engine stand-in for the environ and SIGKILL items, bundled once. */
const runnerHost = () => bundledSupport('runner-host');

/** A tree under test as actions/checkout, a cloud-auth action and a team's dotenv leave it. */
async function checkoutShaped(under: string): Promise<string> {
  const repo = await mkdtemp(join(under, 'checkout-'));
  const put = async (rel: string, text: string) => {
    await mkdir(join(repo, rel, '..'), { recursive: true });
    writeFileSync(join(repo, rel), text);
  };
  await put('.git/config', '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic PLANTED\n');
  await put('.git/modules/sub/config', '[http]\n\textraheader = AUTHORIZATION: basic PLANTED\n');
  await put('.git/HEAD', 'ref: refs/heads/main\n');
  await put('gha-creds-5c1f2b.json', '{"private_key":"PLANTED"}\n');
  await put('.env', 'DB_CONN=PLANTED\n');
  await put('app/.env.local', 'KEY=PLANTED\n');
  await put('src/index.js', 'console.log(1)\n');
  execFileSync('chmod', ['-R', 'a+rX', repo]);
  return repo;
}

/** The engine's view inputs for a trial of `repo` alone (no action, adapter or cache folders). */
function viewOf(repo: string) {
  const none = join(base, 'none');
  return {
    actionRoot: none,
    adapterDir: none,
    cacheDir: none,
    repoDirs: [repo],
    caseFiles: [] as string[],
    libraryDir: join(none, 'cases'),
    engineOutputs: [],
    expose: [],
  };
}

function suite(f: RunnerFactory, skip: string | undefined) {
  describe.skipIf(!!skip)(titled(`runner conformance: ${f.name}`, skip), () => {
    let runner: Runner;
    let limited: Runner;
    beforeAll(async () => {
      runner = f.make();
      limited = f.make(TEST_LIMITS);
      await runner.start();
      await limited.start();
    });
    afterAll(async () => {
      await runner?.stop();
      await limited?.stop();
    });

    /** A containment item: must pass when contained, is an expected failure when not. */
    const item = (name: string, fn: () => Promise<void>, timeout = 30_000) =>
      f.contained ? it(name, fn, timeout) : it.fails(`[expected-uncontained] ${name}`, fn, timeout);
    /** A resource item: never run against an uncontained runner (it would exhaust this machine). */
    const resource = (name: string, fn: (ctx: { skip(): void }) => Promise<void>, timeout = 60_000) =>
      f.contained
        ? it(name, fn, timeout)
        : it.skip(`[expected-uncontained, not run: it would exhaust the host] ${name}`, fn);

    it('a harness talking to its own endpoint still works', async () => {
      const t = await trial(runner, 'endpoint.cjs');
      await t.done();
      expect(t.outcome.exit_code, t.outcome.stderr).toBe(0);
      expect(t.outcome.stdout).toContain('STATUS 200 ok');
      expect(t.endpoint.hits).toEqual(['POST /hr-conformance']);
    });

    // Codex panicked with "failed printing to stdout: EAGAIN" when the sandbox's init, sharing the harness's
    // stdout, made it non-blocking: a flood must meet a blocking pipe (writes wait for the reader).
    it('a harness flooding its stdout after talking to its endpoint never gets EAGAIN', async () => {
      const t = await trial(runner, 'flood.cjs', { env: () => ({ FLOOD_MB: '32' }), timeoutMs: 60_000 });
      await t.done();
      expect(t.outcome.stderr).toContain('NONBLOCK stdout=false stderr=false');
      expect(t.outcome.stderr).toContain(`WROTE ${32 * MiB}`);
      expect(t.outcome.exit_code, t.outcome.stderr).toBe(0);
      expect(t.endpoint.hits).toEqual(['POST /hr-conformance']);
    }, 90_000);

    it('records what contains it', () => {
      const info = runner.info?.();
      expect(info?.containment).toBe(
        f.contained ? (f.name === 'docker' ? 'container' : 'namespaces') : 'uncontained',
      );
      if (!f.contained) expect(info?.reason).toBeTruthy();
    });

    item(
      "the engine's secrets: no planted variable in /proc/$PPID/environ or any /proc/*/environ",
      async () => {
        const host = await runnerHost();
        const out = await new Promise<string>((ok, fail) => {
          const p = spawn(
            process.execPath,
            [host, JSON.stringify({ factory: f.name, fixture: join(FIXTURES, 'environ.sh'), base })],
            // The engine stand-in starts with the canaries in its own environment, as the action does.
            {
              env: { ...process.env, ...CANARIES },
              cwd: join(import.meta.dirname, '..'),
              stdio: ['ignore', 'pipe', 'inherit'],
            },
          );
          let text = '';
          p.stdout.on('data', (b) => (text += b));
          p.on('error', fail);
          p.on('close', () => ok(text));
        });
        const { outcome } = JSON.parse(out.trim().split('\n').pop()!) as { outcome: ProcessOutcome };
        expect(outcome.stdout).toMatch(/PIDS \d+/);
        for (const v of Object.values(CANARIES)) expect(outcome.stdout).not.toContain(v);
        // A pid namespace: the trial sees its own few processes, not the machine's.
        expect(Number(/PIDS (\d+)/.exec(outcome.stdout)![1])).toBeLessThan(10);
      },
    );

    // The sandbox's init relays the engine's endpoint and starts the harness: a harness that could
    // ptrace it (same uid, dumpable) could read its memory or steer its relay.
    item("the sandbox's init and relay cannot be ptraced: /proc/PID/mem and environ refused", async () => {
      const t = await trial(runner, 'ptrace.cjs');
      await t.done();
      expect(t.outcome.exit_code, t.outcome.stderr).toBe(0);
      expect(Number(/TRIED (\d+)/.exec(t.outcome.stdout)?.[1])).toBeGreaterThan(0);
      expect(t.outcome.stdout.split('\n').filter((l) => l.startsWith('READ '))).toEqual([]);
    });

    // Runners start what they can before the harness slot (Runner.stage): the harness itself must wait
    // for run(), and a staged trial that is given up must leave nothing running.
    it("a staged trial's harness starts only when the trial runs; one given up unrun leaves nothing behind", async () => {
      const tok = token();
      let before: boolean | undefined;
      const t = await trial(runner, 'staged.sh', {
        env: () => ({ STAGED_TOKEN: tok }),
        staged: async (dirs) => {
          await sleep(800);
          before = existsSync(join(dirs.workspace, 'ran.txt'));
        },
      });
      const ran = existsSync(join(t.dirs.workspace, 'ran.txt'));
      await t.done();
      expect(before, 'the harness ran before run()').toBe(false);
      expect(t.outcome.exit_code, t.outcome.stderr).toBe(0);
      expect(t.outcome.stdout).toContain(`RAN ${tok}`);
      expect(ran).toBe(true);

      // Staged, then released without a run (a trial stopped at its slot).
      const gone = token();
      const dirs = await createTrialDirs(base, `unrun-${gone}`);
      await runner.prepare?.(dirs);
      const view = runner.view(dirs);
      copyFileSync(join(FIXTURES, 'staged.sh'), join(dirs.bin, 'staged.sh'));
      await runner.stage?.({
        trial_id: 'unrun',
        dirs,
        command: ['/bin/sh', `${view.bin}/staged.sh`, gone],
        cwd: view.workspace,
        env: policeEnv({ STAGED_TOKEN: gone, PATH: '/usr/bin:/bin' }).env,
        timeout_ms: 20_000,
        read_only: [],
        hide: [],
        endpoint_port: 1,
      });
      await sleep(300);
      await runner.release?.(dirs);
      await sleep(200);
      const left = hostProcessesWith(gone);
      for (const p of left) process.kill(p, 'SIGKILL');
      const unrunRan = existsSync(join(dirs.workspace, 'ran.txt'));
      await removeTrialDirs(dirs).catch(() => {});
      expect(unrunRan, 'a released trial started its harness').toBe(false);
      expect(left, 'processes of the released trial').toEqual([]);
    });

    item('a setsid double-forked daemon is gone when its trial ends', async () => {
      const tok = token();
      const t = await trial(runner, 'daemon.sh', {
        env: (view) => ({ TOKEN: tok, MARK: `${view.tmp}/daemon-alive` }),
      });
      const mark = join(t.dirs.tmp, 'daemon-alive');
      const before = existsSync(mark) ? readFileSync(mark, 'utf8') : '';
      await sleep(600);
      const after = existsSync(mark) ? readFileSync(mark, 'utf8') : '';
      const left = hostProcessesWith(`hr-daemon-${tok}`);
      for (const p of left) process.kill(p, 'SIGKILL');
      await t.done();
      expect(before, `the daemon ran during the trial: ${JSON.stringify(t.outcome)}`).not.toBe('');
      expect(left).toEqual([]);
      expect(after).toBe(before);
      // ... and the evidence says it was left running when the harness exited (process_left reads this).
      const commands = (t.outcome.left_running ?? []).map((p) => p.command);
      expect(commands.some((c) => c.includes(`hr-daemon-${tok}`), JSON.stringify(commands))).toBe(true);
    });

    // The list is evidence: nothing of the sandbox's own (its init, bwrap, the relay, the copy-back shell)
    // may show as left behind by a harness that left nothing.
    item('a harness that leaves nothing running is recorded as leaving nothing', async () => {
      const t = await trial(runner, 'pwd.cjs');
      await t.done();
      expect(t.outcome.exit_code, t.outcome.stderr).toBe(0);
      expect(t.outcome.left_running).toEqual([]);
    });

    item(
      "writes to the repository, the result, the action and another trial's folder fail; the result and the other trial are not visible",
      async () => {
        const repo = await mkdtemp(join(base, 'repo-'));
        await chmod(repo, 0o755);
        const action = await mkdtemp(join(base, 'action-'));
        await chmod(action, 0o755);
        const results = join(repo, 'runs');
        await mkdir(results, { mode: 0o755 });
        const result = join(results, 'result.json');
        writeFileSync(result, '{"labels":"the engine\'s"}\n');
        const neighbour = await createTrialDirs(base, 'neighbour');
        await runner.prepare?.(neighbour);
        const t = await trial(runner, 'writes.sh', {
          readOnly: [repo, action],
          hide: [results],
          env: () => ({
            REPO: repo,
            RESULT: result,
            RESULT_DIR: results,
            ACTION_DIR: action,
            NEIGHBOUR: neighbour.workspace,
          }),
        });
        await t.done();
        await runner.release?.(neighbour);
        expect(t.outcome.exit_code, t.outcome.stderr).toBe(0);
        expect(t.outcome.stdout).not.toContain('WROTE');
        expect(t.outcome.stdout).not.toContain(`SEES ${neighbour.workspace}`);
        expect(t.outcome.stdout).not.toContain(`SEES ${result}`);
        expect(readFileSync(result, 'utf8')).toBe('{"labels":"the engine\'s"}\n');
        expect(existsSync(join(repo, 'hr-pwned'))).toBe(false);
        expect(existsSync(join(neighbour.workspace, 'hr-pwned'))).toBe(false);
        await removeTrialDirs(neighbour);
      },
    );

    // The view every runner gets from the engine (engine/harness-view.ts), applied by this runner.
    item("the checkout's credentials in the tree under test are not readable; its build is", async () => {
      const repo = await checkoutShaped(base);
      const view = harnessView({ ...viewOf(repo), caseFiles: [] });
      const t = await trial(runner, 'credentials.sh', {
        readOnly: view.readOnly[0]!,
        hide: view.hide,
        env: (v) => ({ REPO: v.mapReadOnly(repo) }),
      });
      await t.done();
      expect(t.outcome.stdout, t.outcome.stderr).toContain('BUILD readable');
      expect(t.outcome.stdout).not.toContain('READ');
    });

    item('a harness searching for its case finds no case index, case file or library', async () => {
      const repo = await checkoutShaped(base);
      const marker = `hr-case-marker-${token()}`;
      // A team's pack in the repository, the built-in library and the build's case index, all naming it.
      const pack = join(repo, 'safety', 'cases');
      await mkdir(pack, { recursive: true });
      writeFileSync(join(pack, 'team-case.yaml'), `id: team-case\ntitle: ${marker}\n`);
      const action = await mkdtemp(join(base, 'action-'));
      await mkdir(join(action, 'dist'));
      await mkdir(join(action, 'cases', 'runtime'), { recursive: true });
      for (const f of ['reference-harness.js', 'svc.js', 'cli.js'])
        writeFileSync(join(action, 'dist', f), '');
      writeFileSync(join(action, 'dist', 'cases-index.json'), `{"cases":["${marker}"]}`);
      writeFileSync(join(action, 'cases', 'runtime', 'x.yaml'), `title: ${marker}\n`);
      execFileSync('chmod', ['-R', 'a+rX', action, repo]);
      const view = harnessView({
        ...viewOf(repo),
        actionRoot: action,
        caseFiles: [join(pack, 'team-case.yaml'), join(action, 'cases', 'runtime', 'x.yaml')],
        libraryDir: join(action, 'cases'),
        // As if the action were checked out inside the tree under test (its own CI).
        repoDirs: [repo, action],
      });
      const roots = [...new Set(view.readOnly.flat())];
      const t = await trial(runner, 'case-search.sh', {
        readOnly: roots,
        hide: view.hide,
        env: (v) => ({ ROOTS: roots.map((r) => v.mapReadOnly(r)).join(' '), MARKER: marker }),
      });
      await t.done();
      expect(t.outcome.stdout, t.outcome.stderr).toContain('SEARCHED');
      expect(t.outcome.stdout).not.toContain('FOUND');
    });

    item("a neighbour trial's endpoint and a host listener on 127.0.0.1 are unreachable", async () => {
      // The neighbour: a second trial's endpoint, started the way the engine starts it.
      const nDirs = await createTrialDirs(base, 'neighbour-ep');
      await runner.prepare?.(nDirs);
      const neighbour = await startEndpoint(runner.view(nDirs));
      const hostHits: string[] = [];
      const hostServer = createServer((req, res) => {
        hostHits.push(req.url ?? '');
        res.end('host');
      });
      await new Promise<void>((ok) => hostServer.listen(0, '127.0.0.1', ok));
      const hostPort = (hostServer.address() as AddressInfo).port;
      const t = await trial(runner, 'net-scan.cjs', {
        env: () => ({ TARGETS: `127.0.0.1:${neighbour.port},127.0.0.1:${hostPort}` }),
      });
      await t.done();
      await neighbour.close();
      await runner.release?.(nDirs);
      await removeTrialDirs(nDirs);
      hostServer.closeAllConnections();
      await new Promise((ok) => hostServer.close(ok));
      expect(t.outcome.stdout, t.outcome.stderr).toContain('LISTENERS');
      expect(t.outcome.stdout).not.toContain('REACHED');
      expect(neighbour.hits).toEqual([]);
      expect(hostHits).toEqual([]);
    });

    // A harness may take its project folder from PWD (opencode 1.18 ran its bash in / without it); the
    // contained runner's wrapper shell had reset it to its own folder, /.
    it('the harness starts in its folder with PWD naming it', async () => {
      const t = await trial(runner, 'pwd.cjs');
      await t.done();
      expect(t.outcome.exit_code, t.outcome.stderr).toBe(0);
      const [pwd, cwd] = t.outcome.stdout.trim().split('\n');
      expect(pwd).toBe(`PWD ${t.view.workspace}`);
      expect(cwd).toBe(`CWD ${t.view.workspace}`);
    });

    // Continue's CLI runs every command as `$SHELL -l -c`; Debian's /etc/profile then set a fixed PATH, and
    // `svc` (in the trial's bin/) was "not found". A contained runner gives its login shells the trial's PATH
    // as GitHub's Ubuntu runners do; an uncontained one leaves the host's profile as it is.
    const login = f.contained ? it : it.skip;
    login('a login shell in the trial keeps the trial’s bin/ on its PATH', async () => {
      const t = await trial(runner, 'login-path.sh');
      await t.done();
      expect(t.outcome.exit_code, t.outcome.stderr).toBe(0);
      const path = /LOGIN_PATH (.*)/.exec(t.outcome.stdout)?.[1] ?? '';
      expect(path.split(':'), t.outcome.stdout).toContain(t.view.bin);
    });

    // An ACP agent that does not exit at end of file (codex-acp 0.16.0 is one) is stopped after the grace.
    // Under the contained process runner the stop ended bwrap, and the sandbox's init with it before its
    // report got out: the trial read "the sandbox did not start" although the agent had answered.
    it('a harness that outlives its conversation is stopped as its end, not as a failed sandbox', async () => {
      const t = await trial(runner, 'outlives.sh', {
        timeoutMs: 120_000,
        converse: (io) =>
          new Promise<void>((done) => io.onStdout((b) => b.toString().includes('ANSWERED') && done())),
      });
      await t.done();
      expect(t.outcome.infra_error, t.outcome.stderr).toBeUndefined();
      expect(t.outcome.spawn_error).toBeUndefined();
      expect(t.outcome.timed_out).toBe(false);
      expect(t.outcome.stopped_after_conversation).toBe(true);
      expect(t.outcome.exit_code).toBeNull();
      expect(t.outcome.stdout).toContain('ANSWERED');
    }, 90_000);

    // Not a containment item: every runner, uncontained too, must tear its trials down.
    it("after stop(), none of the trial's processes is left (SIGTERM ignored, setsid children)", async () => {
      const tok = token();
      const stopper = f.make();
      await stopper.start();
      const running = trial(stopper, 'hang.sh', { env: () => ({ TOKEN: tok }), timeoutMs: 60_000 });
      // Wait until the children are up, then tear the runner down as the engine does on an interrupt.
      // Generous: the machine may be loaded; the children need a node start-up or two.
      const seen = await rootsRunning(`hr-hang-${tok}`, 3);
      const t0 = Date.now();
      await stopper.stop();
      const t = await running;
      const stopMs = Date.now() - t0;
      await sleep(200);
      const left = hostProcessesWith(`hr-hang-${tok}`);
      for (const p of left) process.kill(p, 'SIGKILL');
      await t.done();
      expect(seen, 'the children were seen running').toBeGreaterThanOrEqual(3);
      expect(left).toEqual([]);
      expect(stopMs).toBeLessThan(5_000);
    }, 90_000);

    item(
      "after SIGKILL of the engine, none of the trial's processes is left",
      async () => {
        const tok = token();
        const host = await runnerHost();
        const p = spawn(
          process.execPath,
          [
            host,
            JSON.stringify({
              factory: f.name,
              fixture: join(FIXTURES, 'hang.sh'),
              base,
              env: { TOKEN: tok },
            }),
          ],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        await new Promise<void>((ok) => p.stdout.on('data', (b) => String(b).includes('STARTED') && ok()));
        // Generous: the machine may be loaded; the children need a node start-up or two.
        const seen = await rootsRunning(`hr-hang-${tok}`, 3);
        p.kill('SIGKILL');
        await new Promise((ok) => p.on('close', ok));
        await sleep(500);
        // A pid namespace dies with its init at once; a container outlives the engine that made it and is
        // removed by the next run's sweep (its owner is gone), which is what docker promises.
        const next = f.make();
        if (f.name === 'docker') await next.start();
        const left = hostProcessesWith(`hr-hang-${tok}`);
        for (const q of left) process.kill(q, 'SIGKILL');
        // What the kernel keeps after its owner died (the trial's disk mount) goes with the next run.
        if (f.name !== 'docker') await next.start();
        await next.stop();
        const mounts = readFileSync('/proc/self/mountinfo', 'utf8');
        expect(seen, 'the children were seen running').toBeGreaterThanOrEqual(3);
        expect(left).toEqual([]);
        expect(mounts).not.toContain(`hr-trial-${p.pid} `);
      },
      90_000,
    );

    resource('10,000 forks hit the process limit, and the trial says so', async () => {
      const t = await trial(limited, 'forks.sh', { env: () => ({ FORKS: scaled(10_000) }) });
      await t.done();
      expect(String(t.outcome.limit_hit), JSON.stringify(t.outcome)).toMatch(
        /^process limit \(64 processes and threads\) reached/,
      );
      expect(t.outcome.stdout).not.toContain(`STARTED ${scaled(10_000)}`);
    });

    /** A fixture that leaves the process limit full when it ends: its file and the limit still come back. */
    const leavesTheLimitFull = async (fixture: string, file: string, said: string) => {
      const t = await trial(limited, fixture);
      const path = join(t.dirs.home, file);
      const kept = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
      await t.done();
      expect(t.outcome.stdout, JSON.stringify(t.outcome)).toContain(said);
      expect(String(t.outcome.limit_hit), JSON.stringify(t.outcome)).toMatch(
        /^process limit \(64 processes and threads\) reached/,
      );
      expect(t.outcome.infra_error).toBeUndefined();
      expect(kept).toBe('kept\n');
    };

    resource(
      'sleepers that fill the process limit after the harness is gone do not keep the trial files or the limit from coming back',
      () => leavesTheLimitFull('sleepers.sh', 'sleepers.txt', 'FILLING'),
    );

    resource('orphans the harness leaves are reaped, so they do not use up the process limit', async () => {
      // 300 orphans under a limit of 64: each must be reaped by the sandbox's init, or the forks fail.
      const t = await trial(limited, 'orphans.sh', { env: () => ({ ORPHANS: scaled(300) }) });
      await t.done();
      expect(t.outcome.stdout).toContain(`REAPED ${scaled(300)}`);
    });

    resource(
      'a fork bomb left running after the harness does not keep the trial files from coming back',
      () => leavesTheLimitFull('refill.sh', 'refill.txt', 'LEFT'),
    );

    resource('a 2 GiB file hits the file size limit, and the trial says so', async () => {
      const t = await trial(limited, 'bigfile.sh', { env: () => ({ FILE_MB: scaled(2048) }) });
      const size = existsSync(join(t.dirs.home, 'big.bin')) ? statSync(join(t.dirs.home, 'big.bin')).size : 0;
      await t.done();
      expect(size).toBeLessThanOrEqual(32 * MiB);
      expect(t.outcome.limit_hit).toMatch(/^file size limit \(32 MiB\) reached \(home\/big\.bin\)/);
    });

    resource('filling the disk hits the trial folders’ disk limit, and the trial says so', async (ctx) => {
      // Without a way to mount (unprivileged, no sudo) the disk is not capped: the result says so.
      if (limited.info?.()?.limits?.via.disk === 'none') ctx.skip();
      const t = await trial(limited, 'disk.sh', { env: () => ({ CHUNK_MB: '16', DISK_MB: scaled(4096) }) });
      await t.done();
      expect(t.outcome.limit_hit).toMatch(/^disk limit \(64 MiB for the trial folders\) reached/);
    });

    // Issue 33: two trials holding ~10,000 connections each used up the engine's file descriptors (EMFILE,
    // an uncaught error, no verdict). The runner's relay holds at most the trial's cap; the rest are
    // closed as they arrive, never reach the endpoint, and the trial says so.
    item('a flood of connections to its own endpoint is held to the cap, and the trial says so', async () => {
      const cap = 16;
      const t = await trial(runner, 'connections.cjs', {
        env: () => ({ CONNS: scaled(400) }),
        maxConnections: cap,
      });
      await t.done();
      expect(t.outcome.exit_code, t.outcome.stderr).toBe(0);
      // What reaches the engine's side is capped (docker's relay inside the container may hold more, at
      // the container's own cost); the harness saw some of its connections closed.
      expect(t.outcome.stdout, t.outcome.stderr).toMatch(/HELD \d+/);
      expect(Number(/CLOSED (\d+)/.exec(t.outcome.stdout)?.[1]), t.outcome.stdout).toBeGreaterThan(0);
      expect(t.endpoint.peak()).toBeLessThanOrEqual(cap);
      expect(t.outcome.limit_hit).toMatch(
        /connection limit \(16 concurrent connections to the trial's endpoint\) reached/,
      );
      // A harness doing its job after a flood is still served: the cap counts connections held, not made.
      const ok = await trial(runner, 'endpoint.cjs', { maxConnections: cap });
      await ok.done();
      expect(ok.outcome.stdout).toContain('STATUS 200 ok');
      expect(ok.outcome.limit_hit).toBeUndefined();
    });

    // Issue 33: 300,000 folders made the engine's snapshot take 133 s after a 5 s harness. Whatever the
    // runner brings back, the snapshot walks no more than its folder cap and records that it stopped.
    it('a flood of folders is walked only up to the snapshot folder cap, and the snapshot says so', async () => {
      const t = await trial(runner, 'dirs.cjs', { env: () => ({ DIRS: scaled(3_000), FANOUT: '100' }) });
      expect(t.outcome.stdout, t.outcome.stderr).toContain(`MADE ${scaled(3_000)}`);
      const snap = await snapshotDetailed(t.dirs, { maxDirs: 200 });
      await t.done();
      expect(snap.truncated).toBe(true);
      expect(snap.cap?.limits).toContain(
        'snapshot folder limit (200 folders) reached: the snapshot is incomplete',
      );
      expect(hiddenBy(snap.cap, 'home/flood/p29/d99/planted')).toBe(true);
    });

    // Issue 33: 40 sparse files of 511 MiB took 39 s of hashing after a 1 s harness. A file is hashed up to
    // the per-file cap and the snapshot up to its total, and the files hashed in part say so.
    it('sparse files are hashed only up to the snapshot byte caps, and the snapshot says so', async () => {
      const t = await trial(runner, 'sparse.sh', { env: () => ({ SPARSE_FILES: '8', SPARSE_MB: '16' }) });
      expect(t.outcome.stdout, t.outcome.stderr).toContain('SPARSE 8');
      const snap = await snapshotDetailed(t.dirs, { maxFileBytes: MiB, maxBytes: 4 * MiB });
      await t.done();
      const sparse = Object.entries(snap.files).filter(([k]) => /^home\/sparse-\d\.img$/.test(k));
      expect(sparse).toHaveLength(8);
      for (const [, s] of sparse) {
        expect(s.size).toBe(16 * MiB);
        expect(s.partial).toBeLessThanOrEqual(MiB);
      }
      expect(sparse.reduce((n, [, s]) => n + (s.partial ?? 0), 0)).toBeLessThanOrEqual(4 * MiB);
      expect(snap.cap?.limits.join()).toMatch(/^snapshot hash limit \(1 MiB a file, 4 MiB in all\) reached/);
    });

    resource('4 GiB of RAM hits the memory limit, and the trial says so (not just "SIGKILL")', async () => {
      const t = await trial(limited, 'memory.cjs', { env: () => ({ MEM_MB: scaled(4096) }) });
      await t.done();
      expect(t.outcome.stdout).not.toContain(`HELD ${scaled(4096)} MiB`);
      expect(t.outcome.limit_hit).toMatch(/^memory limit \(256 MiB\) reached/);
    });
  });
}

for (const f of FACTORIES) suite(f, await f.unavailable(`runner conformance: ${f.name}`));

// The same secrets check end to end, as users run it: the bundled CLI (dist/cli.js, built from this tree
// by the tests' global set-up) with the default runner, contained (it needs bwrap), an adapter reading
// /proc/*/environ, and the canaries in the CLI's environment. Nothing it prints and nothing in the result
// may hold a canary (a failing harness's stderr tail is published in the report).
const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');
const CLI_GROUP = 'through the CLI bundle (runner: process)';
const cliSkip = bwrapSkipReason(CLI_GROUP);
describe.skipIf(!!cliSkip)(titled(CLI_GROUP, cliSkip), () => {
  it('no planted variable reaches the result or the output', async () => {
    const out = join(base, 'cli-environ.json');
    const r = await new Promise<{ text: string }>((ok) => {
      const p = spawn(
        process.execPath,
        [
          CLI,
          'run',
          '--adapter',
          join(import.meta.dirname, 'fixtures/adapters/hostile-environ'),
          '--cases',
          'subset:smoke',
          '--out',
          out,
        ],
        { env: { ...process.env, ...CANARIES }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let text = '';
      p.stdout.on('data', (b) => (text += b));
      p.stderr.on('data', (b) => (text += b));
      p.on('close', () => ok({ text }));
    });
    const result = readFileSync(out, 'utf8');
    for (const v of Object.values(CANARIES)) {
      expect(r.text).not.toContain(v);
      expect(result).not.toContain(v);
    }
    expect(JSON.parse(result).containment?.containment).toBe('namespaces');
  }, 120_000);
});

// The fixtures must stay runnable by the sandbox's uid wherever the checkout is.
it('hostile fixtures are plain files the suite copies into each trial', () => {
  for (const name of readdirSync(FIXTURES).filter((n) => n !== 'README.md'))
    expect(statSync(join(FIXTURES, name)).isFile()).toBe(true);
  execFileSync('/bin/sh', ['-n', join(FIXTURES, 'daemon.sh')]);
});
