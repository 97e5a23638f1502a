// The embedded default runner. Contained (the default): each trial in its own pid, mount, network,
// ipc and uts namespaces made by bubblewrap (plus a user namespace when not root; as root the harness
// runs as an unprivileged uid instead), with only its own folders writable, only its own endpoint
// reachable, limits on memory, processes, file size and disk, and nothing outliving it.
// Uncontained (`runner: process-uncontained`, or no mechanism on this machine): the old child process,
// which confines only the environment; the run records it and the verdict does not count it as green.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { mark, sinceMs } from '../elapsed.js';
import { UserError } from '../errors.js';
import { TrialLimits, trialLimitMessage } from '../evidence/limits.js';
import type { ProcessOutcome } from '../evidence/types.js';
import type { RunnerInfo } from '../spec/run-result.js';
import type { TrialDirs } from '../world/trial-dirs.js';
import { findFileOfSize } from './big-file.js';
import { chownTree, eachLine, killTree, spawnErrorText, stdioOf } from './child.js';
import { bwrapArgs, SOCKET_DIR_IN_SANDBOX } from './contain/bwrap.js';
import { createTrialCgroup, type TrialCgroup } from './contain/cgroup.js';
import { type HostPlan, mountTmpfsAsync, planHost, unmount, unmountAsync } from './contain/host.js';
import { type LimitKind, Limits, limitMessage } from './contain/limits.js';
import { writeLoginProfile } from './contain/login-profile.js';
import { EOF_EXIT_GRACE_MS, hostDigests, KILL_GRACE_MS, leftProcesses, Tail } from './shared.js';
import type { PolicedEnv, Runner, SandboxView, TrialFile, TrialLaunch } from './types.js';

export interface ProcessRunnerOptions {
  /** `auto` (default): contained where possible, else uncontained and recorded; `off`: uncontained. */
  containment?: 'auto' | 'required' | 'off';
  limits?: Partial<Limits>;
  /** Install bubblewrap / allow user namespaces with sudo when missing (the action on a hosted runner). */
  setupHost?: boolean;
  /** The host's plan, already being made (`planHost`, started early so it overlaps the engine's loading). */
  plan?: Promise<HostPlan>;
  onWarning?: (message: string) => void;
}

/** `$TMPDIR/hr-ep-<engine pid>-XXXXXX`: a later run removes those of a dead engine (sweepSocketDirs). */
export const SOCKET_DIR_PREFIX = 'hr-ep-';

/** The PATH a process-runner trial gets after its own bin/ (the launch check searches it too). */
export const SYSTEM_PATH = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'];

interface Live {
  child: ChildProcess;
}

/** A contained trial's sandbox, spawned: `go` lets its harness start and resolves with the outcome. */
interface StartedSandbox {
  go(harnessExited?: () => void): Promise<ProcessOutcome>;
  /** Kills a sandbox that never went (a trial given up at its slot). */
  cancel(): Promise<void>;
}

export class ProcessRunner implements Runner {
  readonly name = 'process' as const;
  private readonly live = new Set<Live>();
  private readonly limits: Limits;
  private plan: HostPlan | undefined;
  private planning: Promise<HostPlan> | undefined;
  /** Per trial root: the folder of its endpoint socket, and whether a tmpfs is mounted on it. */
  private readonly trials = new Map<string, { socketDir: string; mounted: boolean }>();
  /** Sandboxes started ahead of their harness slot (`stage`), by trial root. */
  private readonly staged = new Map<string, Promise<StartedSandbox>>();
  private seq = 0;

  constructor(private readonly opts: ProcessRunnerOptions = {}) {
    this.limits = Limits.parse(opts.limits ?? {});
  }

  async start(): Promise<void> {
    await this.ensurePlan();
  }

  private ensurePlan(): Promise<HostPlan> {
    this.planning ??= (async () => {
      const mode = this.opts.containment ?? 'auto';
      const plan: HostPlan =
        mode === 'off'
          ? { contained: false, reason: 'requested (runner: process-uncontained)', notes: [] }
          : await (this.opts.plan ?? planHost({ setup: this.opts.setupHost ?? false }));
      for (const n of plan.notes) this.opts.onWarning?.(`runner process: ${n}`);
      if (!plan.contained) {
        if (mode === 'required') throw new Error(`runner process: cannot contain the trials: ${plan.reason}`);
        // The mechanism is there but failed: never uncontained unless asked for (runner: process-uncontained).
        if (plan.failed)
          throw new UserError(
            `runner process: cannot contain the trials: ${plan.reason}`,
            'fix the sandbox start above and run again; to run uncontained anyway (the verdict will not pass it), set runner: process-uncontained (CLI: --runner process-uncontained)',
          );
        this.opts.onWarning?.(
          `runner process: UNCONTAINED — ${plan.reason}. Each harness runs as a plain child process with this job's uid: it can read the engine's environment (/proc), other trials and every local port. The result records it and the verdict will not pass it.`,
        );
      }
      this.plan = plan;
      return plan;
    })();
    return this.planning;
  }

  info(): RunnerInfo {
    const p = this.plan;
    if (!p?.contained)
      return {
        name: 'process',
        containment: 'uncontained',
        mechanism: 'child process (environment only)',
        reason: p ? p.reason : 'runner not started',
      };
    return {
      name: 'process',
      containment: 'namespaces',
      mechanism: p.mechanism,
      limits: { ...this.limits, via: p.via },
    };
  }

  private contained(): Extract<HostPlan, { contained: true }> | undefined {
    return this.plan?.contained ? this.plan : undefined;
  }

  private sandboxUid(): { uid: number; gid: number } {
    const p = this.contained();
    if (p?.mode.kind === 'root') return { uid: p.mode.uid, gid: p.mode.gid };
    return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  }

  private trialState(dirs: TrialDirs): { socketDir: string; mounted: boolean } {
    let t = this.trials.get(dirs.root);
    if (!t) {
      // Short, so the socket path stays under the 108 bytes a unix socket address can hold.
      const socketDir = mkdtempSync(join(tmpdir(), `${SOCKET_DIR_PREFIX}${process.pid}-`));
      // The harness's uid must reach the socket; the folder is visible to its trial only.
      chmodSync(socketDir, 0o711);
      t = { socketDir, mounted: false };
      this.trials.set(dirs.root, t);
    }
    return t;
  }

  async prepare(dirs: TrialDirs): Promise<void> {
    const p = await this.ensurePlan();
    if (!p.contained) return;
    const t = this.trialState(dirs);
    if (p.diskMount === 'none' || t.mounted) return;
    // The disk cap: a size-capped tmpfs on the trial root, so the engine still reads it after the run.
    const { uid, gid } = this.sandboxUid();
    await mountTmpfsAsync(dirs.root, this.limits.disk_bytes, uid, gid, p.diskMount);
    t.mounted = true;
    for (const d of [dirs.workspace, dirs.home, dirs.tmp, dirs.bin]) await mkdir(d, { mode: 0o700 });
  }

  async release(dirs: TrialDirs): Promise<void> {
    const staged = this.staged.get(dirs.root);
    this.staged.delete(dirs.root);
    // Also one still starting (the trial failed while its sandbox came up): it is cancelled once up.
    await staged?.then((s) => s.cancel()).catch(() => {});
    const t = this.trials.get(dirs.root);
    if (!t) return;
    this.trials.delete(dirs.root);
    const p = this.contained();
    if (t.mounted && p && p.diskMount !== 'none') await unmountAsync(dirs.root, p.diskMount);
    rmSync(t.socketDir, { recursive: true, force: true });
  }

  /** The trial folders are live on the host (bound into the sandbox at their own paths). */
  peek(dirs: TrialDirs, files: TrialFile[]): Promise<(string | null)[]> {
    return hostDigests(dirs, files);
  }

  view(dirs: TrialDirs): SandboxView {
    const base = {
      workspace: dirs.workspace,
      home: dirs.home,
      tmp: dirs.tmp,
      bin: dirs.bin,
      // Same paths inside and out: the sandbox binds every folder at its host path.
      mapReadOnly: (p: string) => p,
      bindHost: '127.0.0.1',
      endpointHost: '127.0.0.1',
      systemPath: SYSTEM_PATH,
    };
    if (!this.contained()) return base;
    return { ...base, endpointSocket: join(this.trialState(dirs).socketDir, 'ep.sock') };
  }

  /**
   * Starts the trial's sandbox ahead of its harness slot: bwrap, the limits and the init (a node process,
   * ~40 ms of start-up) are up and the relay listening when `run` says go, so only the harness itself
   * holds the slot. Contained only: uncontained there is nothing to start before the harness.
   */
  async stage(launch: TrialLaunch): Promise<void> {
    const p = await this.ensurePlan();
    if (!p.contained || this.staged.has(launch.dirs.root)) return;
    // In the map before it is up, so that a release() meanwhile finds it.
    const starting = this.startContained(launch, p, true);
    this.staged.set(launch.dirs.root, starting);
    await starting;
  }

  async run(launch: TrialLaunch): Promise<ProcessOutcome> {
    const p = await this.ensurePlan();
    if (!p.contained) return this.runUncontained(launch);
    const staged = this.staged.get(launch.dirs.root);
    this.staged.delete(launch.dirs.root);
    const sandbox = await (staged ?? this.startContained(launch, p, false));
    return sandbox.go(launch.harness_exited);
  }

  /** The sandbox of one trial, started; with `wait` its init holds the harness until `go`. */
  private async startContained(
    launch: TrialLaunch,
    p: Extract<HostPlan, { contained: true }>,
    wait: boolean,
  ): Promise<StartedSandbox> {
    const { dirs } = launch;
    const t = this.trialState(dirs);
    const early = (infra_error: string): StartedSandbox => ({
      go: async () => failed(mark(), infra_error),
      cancel: async () => {},
    });
    if (p.mode.kind === 'root') await chownTree(dirs, p.mode.uid, p.mode.gid);
    const readOnly = [...new Set(launch.read_only)];
    const hide = (launch.hide ?? []).filter((h) => readOnly.some((r) => h === r || h.startsWith(`${r}/`)));
    const profile = writeLoginProfile(t.socketDir);
    const args = bwrapArgs({
      bwrap: p.bwrap,
      mode: p.mode,
      dirs,
      readOnly,
      hide,
      socketDir: t.socketDir,
      ...(profile ? { profile } : {}),
      tools: p.tools,
      spec: {
        port: launch.endpoint_port,
        socket: `${SOCKET_DIR_IN_SANDBOX}/ep.sock`,
        command: launch.command,
        cwd: launch.cwd,
        ...(wait ? { wait: true } : {}),
        ...(launch.max_connections ? { max_connections: launch.max_connections } : {}),
      },
      limits: this.limits,
      via: p.via,
    });
    let cgroup: TrialCgroup | undefined;
    if (p.cgroups) {
      const name = `hr-${process.pid}-${++this.seq}`;
      try {
        cgroup = await createTrialCgroup(p.cgroups, name, this.limits);
      } catch (e) {
        return early(`cannot create the trial's cgroup: ${(e as Error).message}`);
      }
    }
    // The sandbox's first process puts itself into the trial's cgroups before bwrap forks anything.
    const cmd = cgroup
      ? [
          '/bin/sh',
          '-c',
          `${cgroup.procsFiles.map((f) => `echo $$ > ${sq(f)}`).join(' && ')} && exec "$@"`,
          'sh',
          p.bwrap,
          ...args,
        ]
      : [p.bwrap, ...args];
    const status: Record<string, unknown>[] = [];
    let harnessExited: (() => void) | undefined;
    const spawned = this.spawnAndWait(launch, cmd, launch.env, (line) => {
      try {
        const s = JSON.parse(line) as Record<string, unknown>;
        status.push(s);
        // The harness is gone (the init reports before it exits): the slot can go to the next trial
        // while this sandbox is torn down and its limits are read.
        if ('exit_code' in s || s.spawn_error || s.infra_error) harnessExited?.();
      } catch {}
    });
    const finish = async (t0: number): Promise<ProcessOutcome> => {
      const outcome = await spawned.done;
      const last = Object.assign({}, ...status) as {
        exit_code?: number | null;
        signal?: string | null;
        spawn_error?: string;
        infra_error?: string;
        connections_dropped?: number;
        left?: unknown;
      };
      const reported = 'exit_code' in last || last.spawn_error || last.infra_error;
      const left = leftProcesses(last.left);
      const result: ProcessOutcome = {
        ...outcome,
        duration_ms: sinceMs(t0),
        ...(reported ? { exit_code: last.exit_code ?? null, signal: last.signal ?? null } : {}),
        ...(left ? { left_running: left } : {}),
        ...(last.spawn_error ? { spawn_error: last.spawn_error } : {}),
        ...(last.infra_error ? { infra_error: last.infra_error } : {}),
      };
      const limit = await this.whichLimit(dirs, result, cgroup, t.mounted);
      const relayed = last.connections_dropped
        ? trialLimitMessage(
            'connections',
            TrialLimits.parse({ connections: launch.max_connections }),
            `${last.connections_dropped} closed by the sandbox's relay`,
          )
        : undefined;
      const hits = [limit, relayed].filter((x): x is string => !!x);
      if (hits.length) result.limit_hit = hits.join('; ');
      // bwrap ended without our init reporting: the sandbox never started (or a limit killed the init). Not
      // when we stopped an agent that outlived its conversation: the stop ends bwrap with the init, whose
      // report may not get out first, and the agent had answered (the stop was its end: SIGTERM).
      if (!reported && result.stopped_after_conversation && outcome.stdout) {
        result.exit_code = null;
        result.signal = 'SIGTERM';
      } else if (!reported && !result.timed_out && !limit && !result.infra_error)
        result.infra_error = `the sandbox did not start (bwrap exit ${outcome.exit_code ?? outcome.signal})${lastLine(outcome.stderr)}`;
      await cgroup?.remove();
      return result;
    };
    return {
      go: (exited) => {
        harnessExited = exited;
        const t0 = mark();
        spawned.begin();
        return finish(t0);
      },
      cancel: async () => {
        spawned.cancel();
        await spawned.done;
        await cgroup?.remove();
      },
    };
  }

  /** Which limit, if any, stopped something in the trial; the words go into the trial's outcome. */
  private async whichLimit(
    dirs: TrialDirs,
    o: ProcessOutcome,
    cgroup: TrialCgroup | undefined,
    mounted: boolean,
  ): Promise<string | undefined> {
    const hit = (k: LimitKind, detail?: string) => limitMessage(k, this.limits, detail);
    const h = await cgroup?.hits();
    if (h?.memory) return hit('memory');
    if (h?.pids) return hit('pids');
    // Per-process rlimits leave no counter behind: what the harness printed is the only trace.
    const p = this.contained();
    if (p?.via.memory === 'rlimit data' && OOM_WORDS.test(o.stderr))
      return hit('memory', 'from its error output');
    if (p?.via.pids === 'rlimit nproc' && FORK_WORDS.test(o.stderr))
      return hit('pids', 'from its error output');
    if (o.signal === 'SIGXFSZ') return hit('file_size');
    const big = await findFileOfSize(dirs, this.limits.file_size_bytes);
    if (big) return hit('file_size', big);
    if (mounted) {
      const s = await statfs(dirs.root).catch(() => undefined);
      // Full but for a few blocks: ENOSPC hit the harness's writes.
      if (s && s.bavail * s.bsize < 1024 * 1024) return hit('disk');
    }
    return undefined;
  }

  private runUncontained(launch: TrialLaunch): Promise<ProcessOutcome> {
    const t0 = mark();
    const spawned = this.spawnAndWait(launch, launch.command, launch.env);
    spawned.begin();
    return spawned.done.then((o) => ({ ...o, duration_ms: sinceMs(t0) }));
  }

  /**
   * Spawns `cmd` in its own process group and keeps the output tails. `begin` starts the clock: the
   * timeout (SIGTERM to it and everything below it, SIGKILL after the grace period) and, for a sandbox
   * whose init waits, the go byte on fd 3. An abort stops it at any time; `cancel` kills a sandbox that
   * never began. What is left in its group is SIGKILLed when it ends.
   */
  private spawnAndWait(
    launch: TrialLaunch,
    cmd: string[],
    env: PolicedEnv,
    onStatus?: (line: string) => void,
  ): { done: Promise<ProcessOutcome>; begin(): void; cancel(): void } {
    const out = new Tail();
    const err = new Tail();
    let begin = () => {};
    let cancel = () => {};
    const done = new Promise<ProcessOutcome>((resolvePromise) => {
      let settled = false;
      let timedOut = false;
      const [exe, ...args] = cmd as [string, ...string[]];
      const child = spawn(exe, args, {
        cwd: onStatus ? '/' : launch.cwd,
        env,
        detached: true,
        stdio: stdioOf(launch, !!onStatus),
      });
      const entry: Live = { child };
      this.live.add(entry);
      const listeners: ((b: Buffer) => void)[] = [];
      child.stdout?.on('data', (b: Buffer) => {
        out.push(b);
        for (const l of listeners) l(b);
      });
      let exited = () => {};
      const exitedP = new Promise<void>((res) => {
        exited = res;
      });
      child.stderr?.on('data', (b: Buffer) => err.push(b));
      const statusStream = child.stdio[3] as
        | (NodeJS.ReadableStream & NodeJS.WritableStream)
        | null
        | undefined;
      if (statusStream && onStatus) eachLine(statusStream, onStatus);
      if (launch.stdin !== undefined) child.stdin?.end(launch.stdin);
      child.stdin?.on('error', () => {});

      let timer: NodeJS.Timeout | undefined;
      let hardTimer: NodeJS.Timeout | undefined;
      let drainTimer: NodeJS.Timeout | undefined;
      let endTimer: NodeJS.Timeout | undefined;
      let stoppedAfterConversation = false;
      const finish = (o: Partial<ProcessOutcome>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(hardTimer);
        clearTimeout(drainTimer);
        clearTimeout(endTimer);
        launch.signal?.removeEventListener('abort', onAbort);
        exited();
        // Reap anything left in its group (the sandbox's pid namespace is gone with its init already).
        killTree(child.pid, 'SIGKILL');
        this.live.delete(entry);
        resolvePromise({
          exit_code: null,
          signal: null,
          timed_out: timedOut,
          duration_ms: 0,
          stdout: out.text(),
          stderr: err.text(),
          ...(stoppedAfterConversation ? { stopped_after_conversation: true as const } : {}),
          ...o,
        });
      };
      const stop = () => {
        // SIGTERM reaches the harness (the sandbox's init forwards it); the rest gets SIGKILL after the grace.
        killTree(child.pid, 'SIGTERM');
        hardTimer ??= setTimeout(() => killTree(child.pid, 'SIGKILL'), KILL_GRACE_MS);
      };
      const onAbort = () => stop();
      launch.signal?.addEventListener('abort', onAbort);
      if (launch.signal?.aborted) onAbort();
      begin = () => {
        if (settled || timer) return;
        timer = setTimeout(() => {
          timedOut = true;
          stop();
        }, launch.timeout_ms);
        // The go byte (an init started without `wait` never reads it).
        statusStream?.write('g');
        if (launch.converse) converse(launch.converse);
      };
      // The engine's side of the harness's stdio; when it is done, end of file on stdin, then a stop.
      const converse = (talk: NonNullable<TrialLaunch['converse']>) =>
        void talk({
          write: (text: string) => {
            if (!settled && child.stdin?.writable) child.stdin.write(text);
          },
          onStdout: (l: (b: Buffer) => void) => listeners.push(l),
          exited: exitedP,
        })
          .catch(() => {})
          .then(() => {
            child.stdin?.end();
            if (!settled)
              endTimer ??= setTimeout(() => {
                stoppedAfterConversation = true;
                stop();
              }, EOF_EXIT_GRACE_MS);
          });
      cancel = () => {
        if (settled) return;
        // End of file on fd 3 lets a waiting init exit by itself; the kill makes sure of it.
        statusStream?.end();
        killTree(child.pid, 'SIGKILL');
      };

      child.on('error', (e: NodeJS.ErrnoException) =>
        finish({ spawn_error: spawnErrorText(e, exe, onStatus ? undefined : launch.cwd) }),
      );
      child.on('exit', (code, signal) => {
        // A process the harness left behind may hold the pipes open (uncontained): wait a little only.
        drainTimer = setTimeout(() => finish({ exit_code: code, signal }), KILL_GRACE_MS);
        child.once('close', () => finish({ exit_code: code, signal }));
      });
    });
    return { done, begin: () => begin(), cancel: () => cancel() };
  }

  async stop(): Promise<void> {
    const staged = [...this.staged.values()];
    this.staged.clear();
    for (const { child } of this.live) killTree(child.pid, 'SIGKILL');
    await Promise.all(staged.map((s) => s.then((x) => x.cancel()).catch(() => {})));
    this.live.clear();
    const p = this.contained();
    for (const [root, t] of this.trials) {
      if (t.mounted && p && p.diskMount !== 'none') unmount(root, p.diskMount);
      rmSync(t.socketDir, { recursive: true, force: true });
    }
    this.trials.clear();
  }
}

const OOM_WORDS = /out of memory|Allocation failed|Cannot allocate memory|ENOMEM|bad_alloc/i;
const FORK_WORDS = /Cannot fork|fork failed|fork: Resource temporarily unavailable|EAGAIN/i;

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

const lastLine = (s: string) => {
  const line = s.trim().split('\n').pop()?.trim();
  return line ? `: ${line.slice(0, 200)}` : '';
};

function failed(t0: number, infra_error: string): ProcessOutcome {
  return {
    exit_code: null,
    signal: null,
    timed_out: false,
    duration_ms: sinceMs(t0),
    stdout: '',
    stderr: '',
    infra_error,
  };
}
