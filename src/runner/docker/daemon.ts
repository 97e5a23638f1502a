// The connection to the Docker daemon. One http.Agent per runner, without keep-alive, so that stop() can
// close every socket the runner opened: an idle keep-alive or a hung request to the daemon otherwise keeps
// the CLI alive for minutes after SIGTERM. Every wait is bounded.
import { execFile } from 'node:child_process';
import http from 'node:http';
import Docker from 'dockerode';
import { STANDARD_PATH, socketFromEnv } from './options.js';

export interface DaemonConnection {
  docker: Docker;
  /** Closes every socket of this connection (requests in flight fail with ECONNRESET). */
  close(): void;
}

export function connect(socketPath: string): DaemonConnection {
  const agent = new http.Agent({ keepAlive: false });
  const docker = new Docker({ socketPath, agent } as Docker.DockerOptions);
  return { docker, close: () => agent.destroy() };
}

export function errText(e: unknown): string {
  if (e instanceof Error) {
    const json = (e as { json?: { message?: string } }).json;
    return json?.message ?? e.message;
  }
  return String(e);
}

/** Errors that mean the daemon (or the socket) is gone, as opposed to a bad request. */
export function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: string })?.code;
  if (code && ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EACCES'].includes(code))
    return true;
  return /socket hang up|ECONNRESET|ECONNREFUSED|connect ENOENT|aborted/i.test(errText(e));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((res) => setTimeout(res, ms));
}

/**
 * Waits for `p`, at most `ms`. The timer is referenced while waiting (an unreferenced one lets Node exit
 * mid-stop when nothing else is pending) and cleared after (a left-over one keeps the process alive).
 */
export async function waitAtMost(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([p, new Promise<void>((res) => (timer = setTimeout(res, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** GET /_ping, given up after timeoutMs (a hung daemon must not hang the run). */
export async function pingDocker(docker: Docker, timeoutMs: number): Promise<void> {
  const ac = new AbortController();
  const t = setTimeout(() => ac.abort(), timeoutMs);
  try {
    await (docker.ping as unknown as (o: { abortSignal: AbortSignal }) => Promise<unknown>).call(docker, {
      abortSignal: ac.signal,
    });
  } finally {
    clearTimeout(t);
  }
}

/** For tests and the bench: is a daemon answering at this socket? */
export async function dockerReachable(
  socketPath = socketFromEnv(),
  timeoutMs = 3_000,
): Promise<string | undefined> {
  const c = connect(socketPath);
  try {
    await pingDocker(c.docker, timeoutMs);
    return undefined;
  } catch (e) {
    return `Docker is not reachable at ${socketPath}: ${errText(e)}`;
  } finally {
    c.close();
  }
}

/** A host command (iptables for the legacy sweep), bounded, with a fixed PATH. */
export function hostRun(
  cmd: string,
  args: string[],
  timeoutMs = 10_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { timeout: timeoutMs, env: { PATH: STANDARD_PATH.join(':') } },
      (e, stdout, stderr) => {
        const code = e
          ? typeof (e as { code?: unknown }).code === 'number'
            ? (e as { code: number }).code
            : 127
          : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}
