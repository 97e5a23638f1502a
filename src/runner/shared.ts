// What every runner does the same way: keep the tail of the harness's output, keep the workflow's
// variables out of the harness's environment, and stop a harness (SIGTERM, a grace period, SIGKILL).
// One copy, so the process and docker runners cannot drift apart on any of it.
import os from 'node:os';

/** Bytes of stdout/stderr kept per stream (the evidence keeps the end: that is where errors are). */
export const TAIL_BYTES = 64 * 1024;

/** Between SIGTERM to the harness and SIGKILL to everything of the trial. */
export const KILL_GRACE_MS = 2_000;

/**
 * Workflow variables that must never reach a harness, even when an adapter asks for them: the job's
 * token, every action input (`INPUT_GITHUB-TOKEN`…), the runner's own tokens and settings.
 */
export const FORBIDDEN_ENV = /^(GITHUB_TOKEN|GH_TOKEN|ACTIONS_.*|INPUT_.*|RUNNER_.*)$/;

/** Keeps the last `limit` bytes written to it, never starting inside a UTF-8 sequence. */
export class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit = TAIL_BYTES) {}
  push(b: Buffer): void {
    if (b.length === 0) return;
    this.chunks.push(b);
    this.size += b.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.limit) {
      this.size -= this.chunks.shift()!.length;
    }
  }
  text(): string {
    let buf = Buffer.concat(this.chunks);
    if (buf.length > this.limit) {
      buf = buf.subarray(buf.length - this.limit);
      // A cut in the middle of a character would show as U+FFFD; skip its continuation bytes (10xxxxxx).
      let i = 0;
      while (i < 4 && i < buf.length && (buf[i]! & 0xc0) === 0x80) i++;
      buf = buf.subarray(i);
    }
    return buf.toString('utf8');
  }
}

/**
 * Splits `env` into what may be passed and what may not: forbidden names, and names or values a
 * `NAME=value` environment block cannot carry (empty, `=` in the name, NUL).
 */
export function policeEnv(env: Record<string, string>): { env: Record<string, string>; dropped: string[] } {
  const out: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (!k || FORBIDDEN_ENV.test(k) || k.includes('=') || k.includes('\0')) dropped.push(k);
    else out[k] = String(v).replace(/\0/g, '');
  }
  return { env: out, dropped };
}

/** Signal number → name (the first name: SIGABRT, not its alias SIGIOT). */
const SIGNAL_NAMES = new Map<number, string>();
for (const [name, n] of Object.entries(os.constants.signals))
  if (!SIGNAL_NAMES.has(n)) SIGNAL_NAMES.set(n, name);
export const signalName = (n: number): string => SIGNAL_NAMES.get(n) ?? `signal ${n}`;

/** Signals a process group (negative pid) or process; a process already gone is not an error. */
export function killQuietly(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Whether `pid` exists (EPERM: it exists, as another user's process). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
