// The embedded default runner: the harness runs as a child process of ours, in its own process group,
// with an environment built from nothing, inside the trial's own folders. No container, so it confines
// the environment and the folders the harness is pointed at, not the kernel: use `runner: docker` in CI.
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import type { ProcessOutcome } from '../evidence/types.js';
import type { Runner, SandboxView, TrialDirs, TrialLaunch } from './types.js';

const TAIL = 64 * 1024;

/** Keeps the last `max` bytes of a stream. */
export class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly max = TAIL) {}
  push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
    while (this.size > this.max && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.max)).toString('utf8');
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export class ProcessRunner implements Runner {
  readonly name = 'process' as const;
  private readonly live = new Set<number>();

  async start(): Promise<void> {}

  view(dirs: TrialDirs): SandboxView {
    return {
      workspace: dirs.workspace,
      home: dirs.home,
      tmp: dirs.tmp,
      bin: dirs.bin,
      mapReadOnly: (p) => p,
      bindHost: '127.0.0.1',
      endpointHost: '127.0.0.1',
      systemPath: [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'],
    };
  }

  run(launch: TrialLaunch): Promise<ProcessOutcome> {
    const t0 = Date.now();
    const out = new Tail();
    const err = new Tail();
    return new Promise((resolvePromise) => {
      let settled = false;
      let timedOut = false;
      const [cmd, ...args] = launch.command as [string, ...string[]];
      const child = spawn(cmd, args, {
        cwd: launch.cwd,
        env: launch.env,
        // Own process group, so a timeout kills everything the harness started.
        detached: true,
        stdio: [launch.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
      if (child.pid) this.live.add(child.pid);
      child.stdout?.on('data', (b: Buffer) => out.push(b));
      child.stderr?.on('data', (b: Buffer) => err.push(b));
      if (launch.stdin !== undefined) child.stdin?.end(launch.stdin);
      child.stdin?.on('error', () => {});

      const finish = (o: Partial<ProcessOutcome>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(hardTimer);
        launch.signal?.removeEventListener('abort', onAbort);
        // Reap anything the harness left running in its group.
        killGroup(child.pid, 'SIGKILL');
        if (child.pid) this.live.delete(child.pid);
        resolvePromise({
          exit_code: null,
          signal: null,
          timed_out: timedOut,
          duration_ms: Date.now() - t0,
          stdout: out.text(),
          stderr: err.text(),
          ...o,
        });
      };
      const stop = () => {
        killGroup(child.pid, 'SIGTERM');
        hardTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2000);
      };
      let hardTimer: NodeJS.Timeout | undefined;
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, launch.timeout_ms);
      const onAbort = () => stop();
      launch.signal?.addEventListener('abort', onAbort);
      // Aborted before the spawn: the event has fired already, so stop the harness at once.
      if (launch.signal?.aborted) onAbort();

      child.on('error', (e: NodeJS.ErrnoException) =>
        finish({ spawn_error: e.code === 'ENOENT' ? `command not found: ${cmd}` : e.message }),
      );
      child.on('close', (code, signal) => finish({ exit_code: code, signal }));
    });
  }

  async stop(): Promise<void> {
    for (const pid of this.live) killGroup(pid, 'SIGKILL');
    this.live.clear();
  }
}
