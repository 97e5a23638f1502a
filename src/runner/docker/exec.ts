// Running a command in a trial's container: output capture (a UTF-8-safe tail), stdin, the timeout /
// abort / daemon-heartbeat guard, and how the end of the harness is reported.
import { Writable } from 'node:stream';
import type Docker from 'dockerode';
import type { ProcessOutcome } from '../../evidence/types.js';
import { KILL_GRACE_MS, signalName } from '../shared.js';
import { pingDocker, sleep, waitAtMost } from './daemon.js';
import type { RunEvents } from './events.js';

const HEARTBEAT_MS = 2_000;
/** With the event stream: a safety check of the exec's state this often (an event is never expected to go missing). */
const SAFETY_POLL_MS = 2_000;
/** Without it, while the output stream is open: how often the exec's state is asked. */
const POLL_MS = 200;

/** Takes one chunk; `false` asks the writer to wait for `drain` (see Demux). */
type Sink = (b: Buffer) => unknown;

/** Splits Docker's multiplexed attach stream (8-byte frame headers) into stdout and stderr. */
export class Demux extends Writable {
  private pending = Buffer.alloc(0);
  constructor(
    private readonly out: Sink,
    private readonly err: Sink,
    /** Called with the write's callback when a sink asked to wait; calls it once the sink drained. */
    private readonly onFull?: (resume: () => void) => void,
  ) {
    super();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let full = false;
    while (buf.length >= 8) {
      const type = buf[0];
      const len = buf.readUInt32BE(4);
      if (type > 2 || buf[1] !== 0 || buf[2] !== 0 || buf[3] !== 0) {
        // Not multiplexed after all (TTY): everything is stdout.
        full = this.out(buf) === false || full;
        buf = Buffer.alloc(0);
        break;
      }
      if (buf.length < 8 + len) break;
      const payload = Buffer.from(buf.subarray(8, 8 + len));
      full = (type === 2 ? this.err : this.out)(payload) === false || full;
      buf = buf.subarray(8 + len);
    }
    this.pending = Buffer.from(buf);
    if (full && this.onFull) this.onFull(() => cb());
    else cb();
  }
}

export function endOf(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise<void>((res) => {
    stream.on('end', () => res());
    stream.on('close', () => res());
    stream.on('error', () => res());
  });
}

export interface Started {
  exec: Docker.Exec;
  stream: NodeJS.ReadWriteStream;
  /** The daemon closed the output stream. */
  done: Promise<void>;
  /** Every chunk of output has been handed to the sinks. */
  flushed: Promise<void>;
  /** performance.now() before the create, after the create, after the start (spans.ts). */
  t: [number, number, number];
  /** The exit code from the daemon's exec_die event (undefined: no events, poll). */
  exited?: Promise<number | null | undefined>;
}

/** Creates and starts an exec; stdout/stderr go to the sinks; `stdin` (if any) is written and closed. */
export async function startExec(
  container: Docker.Container,
  o: { cmd: string[]; user: string; env?: string[]; cwd?: string; stdin?: boolean },
  out: Sink,
  err: Sink,
  track: (s: NodeJS.ReadWriteStream) => () => void,
  onFull?: (resume: () => void) => void,
  events?: RunEvents,
): Promise<Started> {
  const t0 = performance.now();
  const exec = await container.exec({
    Cmd: o.cmd,
    Env: o.env ?? [],
    User: o.user,
    WorkingDir: o.cwd,
    AttachStdin: !!o.stdin,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
  });
  const t1 = performance.now();
  // Asked before the start, so the event cannot pass unseen.
  const exited = events?.execEnded(exec.id);
  const stream = (await exec.start({ hijack: true, stdin: !!o.stdin })) as NodeJS.ReadWriteStream;
  const untrack = track(stream);
  const done = endOf(stream).finally(untrack);
  const demux = new Demux(out, err, onFull);
  const flushed = new Promise<void>((res) => {
    demux.on('finish', res).on('close', res).on('error', res);
  });
  stream.pipe(demux);
  return { exec, stream, done, flushed, t: [t0, t1, performance.now()], exited };
}

/**
 * Waits until the exec's process has exited (its stream may stay open while a child holds it): on the
 * daemon's exec_die event when there is one, else by asking the exec's state, at once when the output
 * stream ends and every POLL_MS while it is open.
 */
export async function execExit(s: Started, failed: Promise<never>): Promise<number | null> {
  let ended = false;
  void s.done.then(() => {
    ended = true;
  });
  let event = s.exited?.then((code) => (code === undefined ? undefined : { code }));
  let backoff = 2;
  for (;;) {
    if (event) {
      const r = await Promise.race([event, sleep(SAFETY_POLL_MS).then(() => 'tick' as const), failed]);
      if (r === undefined) event = undefined;
      else if (r !== 'tick') {
        await waitAtMost(s.done, ended ? 0 : 200);
        return r.code;
      }
    } else if (!ended) await Promise.race([s.done, sleep(POLL_MS), failed]);
    else {
      // The stream ended but the daemon still says running (it updates the state just after): ask
      // again soon, never in a busy loop.
      await Promise.race([sleep(backoff), failed]);
      backoff = Math.min(backoff * 2, POLL_MS);
    }
    const info = (await Promise.race([s.exec.inspect(), failed])) as {
      Running: boolean;
      ExitCode: number | null;
    };
    if (!info.Running) {
      await waitAtMost(s.done, ended ? 0 : 200);
      return info.ExitCode;
    }
  }
}

/** Writes a buffer or async chunks to the exec's stdin with back-pressure, then half-closes it. */
export async function writeAll(
  stream: NodeJS.ReadWriteStream,
  data: AsyncIterable<Buffer> | Buffer | string,
): Promise<void> {
  const w = stream as unknown as NodeJS.WritableStream & { end(): void };
  const chunks: AsyncIterable<Buffer | string> | (Buffer | string)[] =
    typeof data === 'string' || Buffer.isBuffer(data) ? [data] : data;
  for await (const c of chunks) {
    if (!w.write(c))
      await new Promise<void>((res) => {
        w.once('drain', res);
        w.once('close', res);
      });
  }
  w.end();
}

/**
 * Timeout, abort and daemon heartbeat around one running trial. Ending it is what the process runner
 * does to a process group: SIGTERM to the harness (`soft`), SIGKILL to everything (`hard`) 2 s later.
 */
export function guard(
  docker: Docker,
  launch: { timeout_ms: number; signal?: AbortSignal },
  soft: () => Promise<unknown>,
  hard: () => Promise<unknown>,
) {
  let timer: NodeJS.Timeout | undefined;
  let hb: NodeJS.Timeout | undefined;
  let hardStop: NodeJS.Timeout | undefined;
  let grace: NodeJS.Timeout | undefined;
  let reject!: (e: Error) => void;
  const failed = new Promise<never>((_, rej) => {
    reject = rej;
  });
  failed.catch(() => {});
  const g = {
    timedOut: false,
    aborted: false,
    killed: false,
    failed,
    kill: () => {
      if (g.killed) return;
      g.killed = true;
      void soft()
        .catch(() => {})
        .finally(() => {
          grace = setTimeout(() => void hard().catch(() => {}), KILL_GRACE_MS);
        });
    },
    arm: () => {
      timer = setTimeout(() => {
        g.timedOut = true;
        g.kill();
      }, launch.timeout_ms);
      launch.signal?.addEventListener('abort', onAbort, { once: true });
      // An abort while the container was being prepared has already fired: honour it now.
      if (launch.signal?.aborted) onAbort();
      // A daemon that dies can leave a request hanging (headers sent, body never ends): ping it
      // meanwhile, give up after two missed pings, or 30 s past the timeout whatever happens.
      let misses = 0;
      hb = setInterval(async () => {
        const ok = await pingDocker(docker, HEARTBEAT_MS).then(
          () => true,
          () => false,
        );
        misses = ok ? 0 : misses + 1;
        if (misses >= 2)
          reject(Object.assign(new Error('the Docker daemon stopped answering'), { code: 'ECONNREFUSED' }));
      }, HEARTBEAT_MS);
      hardStop = setTimeout(
        () =>
          reject(
            Object.assign(new Error('the trial did not end 30 s after its timeout'), { code: 'ETIMEDOUT' }),
          ),
        launch.timeout_ms + 30_000,
      );
    },
    disarm: () => {
      clearTimeout(timer);
      clearInterval(hb);
      clearTimeout(hardStop);
      clearTimeout(grace);
      launch.signal?.removeEventListener('abort', onAbort);
    },
  };
  const onAbort = () => {
    g.aborted = true;
    g.kill();
  };
  return g;
}

export type Guard = ReturnType<typeof guard>;

/**
 * The end of a trial as the contract reports it, the way a shell (and the process runner) sees it: an
 * exit status of 128+N means "killed by signal N".
 */
export function ending(g: Guard, code: number | null, stopping: boolean): Partial<ProcessOutcome> {
  const signal = code !== null && code > 128 && code < 160 ? signalName(code - 128) : undefined;
  const rest: Partial<ProcessOutcome> = signal
    ? { exit_code: null, signal }
    : code === null && g.killed
      ? { exit_code: null, signal: 'SIGKILL' }
      : { exit_code: code, signal: null };
  rest.timed_out = g.timedOut;
  if (g.aborted) rest.infra_error = 'trial aborted';
  else if (stopping && !g.timedOut) rest.infra_error = 'the run was stopped (interrupted) during the trial';
  return rest;
}
