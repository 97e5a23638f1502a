// What every runner does the same way: keep the tail of the harness's output and stop a harness
// (SIGTERM, a grace period, SIGKILL). One copy, so the process and docker runners cannot drift apart on
// any of it. (The environment is policed once, by the engine: engine/env.ts.)
import { createHash } from 'node:crypto';
import { constants, open } from 'node:fs/promises';
import os from 'node:os';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { type LeftProcess, MAX_LEFT_RUNNING } from '../evidence/types.js';
import type { TrialDirs } from '../world/trial-dirs.js';
import type { TrialFile } from './types.js';

/** Bytes of stdout/stderr kept per stream (the evidence keeps the end: that is where errors are). */
export const TAIL_BYTES = 64 * 1024;

/** Between SIGTERM to the harness and SIGKILL to everything of the trial. */
export const KILL_GRACE_MS = 2_000;

/**
 * Between the end of a conversation over the harness's stdio (an ACP session: its stdin closed) and
 * SIGTERM: an agent's own shutdown on end of file (Qwen Code: ~5 s on a busy machine) is its clean exit.
 */
export const EOF_EXIT_GRACE_MS = 20_000;

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

/** Bytes of a trial file the engine hashes to see whether a call changed it. */
export const PEEK_BYTES = 8 * 1024 * 1024;

/** One form for every runner: the sha256 of the first PEEK_BYTES bytes and the size. */
export const peekDigest = (sha256: string, size: number): string => `${sha256}:${size}`;

/** A trial-relative path that stays inside its folder (`../x`, `/etc/x` do not). */
export const insideRel = (rel: string): boolean => {
  const n = normalize(rel);
  return !isAbsolute(n) && n !== '..' && !n.startsWith(`..${sep}`) && n !== '.';
};

/**
 * Digests of trial files read on the host, where the runner keeps the trial's folders live (the process
 * runners). Never follows a link the harness made (O_NOFOLLOW on the file) and never blocks on a FIFO
 * (O_NONBLOCK): the harness controls these folders. At most PEEK_BYTES are hashed.
 */
export async function hostDigests(dirs: TrialDirs, files: TrialFile[]): Promise<(string | null)[]> {
  return Promise.all(
    files.map(async (f) => {
      if (!insideRel(f.rel)) return null;
      const h = await open(
        join(dirs[f.key], f.rel),
        constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      ).catch(() => undefined);
      if (!h) return null;
      try {
        const st = await h.stat();
        if (!st.isFile()) return null;
        const hash = createHash('sha256');
        const buf = Buffer.alloc(64 * 1024);
        for (let total = 0; total < PEEK_BYTES; ) {
          const { bytesRead } = await h.read(buf, 0, buf.length, total);
          if (bytesRead === 0) break;
          hash.update(buf.subarray(0, bytesRead));
          total += bytesRead;
        }
        return peekDigest(hash.digest('hex'), st.size);
      } catch {
        return null;
      } finally {
        await h.close().catch(() => undefined);
      }
    }),
  );
}

/**
 * The processes a sandbox reported left running when the harness exited (the contained init's `left`,
 * JSON it wrote), kept only where well formed; undefined when the sandbox reported no list at all.
 */
export function leftProcesses(reported: unknown): LeftProcess[] | undefined {
  if (!Array.isArray(reported)) return undefined;
  return reported
    .filter(
      (p): p is LeftProcess =>
        !!p && typeof p === 'object' && Number.isInteger(p.pid) && typeof p.command === 'string',
    )
    .slice(0, MAX_LEFT_RUNNING)
    .map((p) => ({ pid: p.pid, command: p.command.slice(0, 300) }));
}

/**
 * A POSIX shell fragment that prints, to stderr, a `left PID COMMAND` line for every live process of its
 * own uid but itself and its children (the docker runner's copy-back shell, before it kills them), then
 * `left-end`, up to MAX_LEFT_RUNNING. Builtins only where a fork could fail (a full pids limit): the
 * command line goes through `tr` (NULs and newlines to spaces: one line a process, whatever its
 * arguments hold), with the process name as the fallback.
 */
export const LEFT_RUNNING_SH = [
  'me=$$; myuid=; while read -r k v rest; do [ "$k" = Uid: ] && { myuid=$v; break; }; done < /proc/$me/status',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
  'n=0; for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$me" ] && continue',
  'u=; pp=; st=; { while read -r k v rest; do case $k in Uid:) u=$v;; PPid:) pp=$v;; State:) st=$v;; esac; done < $d/status; } 2>/dev/null || continue',
  `[ "$u" = "$myuid" ] && [ "$pp" != "$me" ] && [ "$st" != Z ] || continue`,
  `c=$(tr '\\0\\n' '  ' < $d/cmdline 2>/dev/null); [ -n "$c" ] || read -r c < $d/comm 2>/dev/null; [ -n "$c" ] || continue`,
  `echo "left $p $c" >&2; n=$((n+1)); [ $n -ge ${MAX_LEFT_RUNNING} ] && break; done; echo left-end >&2`,
].join('; ');

/** The `left` lines LEFT_RUNNING_SH printed; undefined when it did not finish (no `left-end`). */
export function leftProcessLines(text: string): LeftProcess[] | undefined {
  if (!/^left-end$/m.test(text)) return undefined;
  const out: LeftProcess[] = [];
  for (const m of text.matchAll(/^left (\d+) (.*)$/gm))
    out.push({ pid: Number(m[1]), command: m[2]!.trim().slice(0, 300) });
  return out.slice(0, MAX_LEFT_RUNNING);
}
