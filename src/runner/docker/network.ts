// How a trial reaches its endpoint, and nothing else. The container has no network at all (`none`: only
// its own loopback), so no host listener, no other container and no other trial is reachable, with or
// without root and iptables. The trial's own endpoint (which the engine binds to the host's 127.0.0.1) is
// bridged in: per port, a unix socket in a folder that only this trial's container mounts (read-only),
// and inside the container a tiny relay listening on 127.0.0.1:<port> (what the harness was told) that
// forwards every connection to that socket.
import { chmod } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { TrialLaunch } from '../types.js';
import { SANDBOX_PATHS } from './options.js';

/** Host the engine binds the endpoint to, and the host the harness uses (its own loopback). */
export const ENDPOINT_HOST = '127.0.0.1';
/** Env names whose URL names the trial's endpoint (see docs/internals.md, "One trial"). */
const ENDPOINT_ENV = ['HR_SVC', 'HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'];

export const socketName = (port: string) => `ep-${port}.sock`;

/**
 * The relay inside the container: `node -e RELAY <socket folder> <port>...`; prints `ready` once every
 * port listens. It ignores SIGTERM (the harness's own timeout signal must not cut its endpoint while it
 * flushes); it dies with the harness's user's processes at the end of the trial.
 */
export const RELAY_JS = `
const net = require('net');
const [dir, ...ports] = process.argv.slice(1);
process.on('SIGTERM', () => {});
let up = 0;
for (const p of ports) {
  const s = net.createServer((c) => {
    const u = net.connect(dir + '/ep-' + p + '.sock');
    const end = () => { c.destroy(); u.destroy(); };
    c.on('error', end).on('close', end);
    u.on('error', end).on('close', end);
    c.pipe(u).pipe(c);
  });
  s.on('error', (e) => { process.stderr.write('relay: port ' + p + ': ' + e.message + '\\n'); process.exit(1); });
  s.listen(Number(p), '127.0.0.1', () => { if (++up === ports.length) process.stdout.write('ready\\n'); });
}
if (ports.length === 0) process.stdout.write('ready\\n');
`;

export const relayCommand = (ports: string[]) => ['node', '-e', RELAY_JS, SANDBOX_PATHS.endpoint, ...ports];

/**
 * Ports of the trial's endpoint, as the launch tells the harness (HR_SVC, the proxy variables, else any
 * URL on the endpoint host or a fake hostname in the env or the command).
 */
export function endpointPorts(launch: Pick<TrialLaunch, 'env' | 'command'>, aliases: string[]): string[] {
  const esc = (h: string) => h.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const hosts = [ENDPOINT_HOST, 'localhost', ...aliases].map(esc).join('|');
  const re = new RegExp(`(?:^|[^A-Za-z0-9.-])(?:${hosts}):(\\d{1,5})(?!\\d)`, 'g');
  const scan = (texts: string[]) => {
    const ports = new Set<string>();
    for (const text of texts)
      for (const m of String(text).matchAll(re))
        if (Number(m[1]) > 0 && Number(m[1]) < 65536) ports.add(m[1]);
    return [...ports];
  };
  const known = scan(
    ENDPOINT_ENV.map((k) => launch.env[k]).filter((v): v is string => typeof v === 'string'),
  );
  if (known.length) return known;
  return scan([...Object.values(launch.env), ...launch.command]);
}

/** The host half: one unix socket per port in `dir`, each connection forwarded to 127.0.0.1:<port>. */
export class EndpointBridge {
  private readonly servers: net.Server[] = [];
  private readonly conns = new Set<net.Socket>();

  static async open(dir: string, ports: string[]): Promise<EndpointBridge> {
    const b = new EndpointBridge();
    try {
      for (const p of ports) await b.listen(path.join(dir, socketName(p)), Number(p));
    } catch (e) {
      b.close();
      throw e;
    }
    return b;
  }

  private async listen(sock: string, port: number): Promise<void> {
    const server = net.createServer((c) => {
      const u = net.connect(port, ENDPOINT_HOST);
      this.conns.add(c).add(u);
      const end = () => {
        c.destroy();
        u.destroy();
        this.conns.delete(c);
        this.conns.delete(u);
      };
      c.on('error', end).on('close', end);
      u.on('error', end).on('close', end);
      c.pipe(u).pipe(c);
    });
    this.servers.push(server);
    await new Promise<void>((res, rej) => server.once('error', rej).listen(sock, () => res()));
    // The container's user is not necessarily ours: anyone who can see the folder may connect.
    await chmod(sock, 0o666);
  }

  close(): void {
    for (const s of this.servers) s.close();
    for (const c of this.conns) c.destroy();
    this.conns.clear();
  }
}
