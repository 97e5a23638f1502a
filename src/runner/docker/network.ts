// How a trial reaches its endpoint, and nothing else. The container has no network at all (`none`: only
// its own loopback), so no host listener, no other container and no other trial is reachable, with or
// without root and iptables. The trial's own endpoint (which the engine binds to the host's 127.0.0.1) is
// bridged in: per port, a unix socket in a folder that only this trial's container mounts (read-only),
// and inside the container a tiny relay listening on 127.0.0.1:<port> (what the harness was told) that
// forwards every connection to that socket.
import { chmod } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { SANDBOX_PATHS } from './options.js';

/** Host the engine binds the endpoint to, and the host the harness uses (its own loopback). */
export const ENDPOINT_HOST = '127.0.0.1';

export const socketName = (port: string) => `ep-${port}.sock`;

/**
 * The relay inside the container, and its main process: `node -e RELAY_JS <socket folder>`, started with
 * the container (so its start-up is paid while an earlier trial runs, not by this one), as root without
 * capabilities (so the harness, another uid, cannot signal it). It connects to the slot's control socket
 * (`ctl.sock`, served by the host), says `hello`, and waits for one line: the JSON list of the trial's
 * ports. It then listens on 127.0.0.1:<port> for each, forwards every connection to `ep-<port>.sock`, and
 * answers `ready` (or `error …`). It ignores SIGTERM; it ends with the container.
 */
export const RELAY_JS = `
const net = require('net');
const dir = process.argv[1];
process.on('SIGTERM', () => {});
setInterval(() => {}, 1 << 30);
const ctl = net.connect(dir + '/ctl.sock');
ctl.on('error', () => {});
ctl.write('hello\\n');
let buf = '';
const onLine = (d) => {
  buf += d;
  const i = buf.indexOf('\\n');
  if (i < 0) return;
  ctl.removeListener('data', onLine);
  let ports;
  try { ports = JSON.parse(buf.slice(0, i)); } catch (e) { ctl.write('error bad port list\\n'); return; }
  let up = 0;
  if (ports.length === 0) ctl.write('ready\\n');
  for (const p of ports) {
    const s = net.createServer((c) => {
      const u = net.connect(dir + '/ep-' + p + '.sock');
      const end = () => { c.destroy(); u.destroy(); };
      c.on('error', end).on('close', end);
      u.on('error', end).on('close', end);
      c.pipe(u).pipe(c);
    });
    s.on('error', (e) => ctl.write('error port ' + p + ': ' + e.message + '\\n'));
    s.listen(Number(p), '127.0.0.1', () => { if (++up === ports.length) ctl.write('ready\\n'); });
  }
};
ctl.on('data', onLine);
`;

export const relayCommand = () => ['node', '-e', RELAY_JS, SANDBOX_PATHS.endpoint];

/**
 * The host end of a slot's control socket: resolves `hello` when the container's relay connected, and
 * `relay(ports)` once it listens on them. Made before the container starts (the relay connects at once).
 */
export class RelayControl {
  private conn?: net.Socket;
  private readonly server: net.Server;
  private lines = '';
  private readonly waiting: ((line: string | undefined) => void)[] = [];
  readonly hello: Promise<void>;

  private constructor(server: net.Server) {
    this.server = server;
    let said!: () => void;
    this.hello = new Promise<void>((res) => (said = res));
    server.on('connection', (c) => {
      // One relay per slot: a second connection (which only the container could make) is refused.
      if (this.conn) {
        c.destroy();
        return;
      }
      this.conn = c;
      c.on('error', () => {});
      c.on('close', () => this.flush(undefined));
      c.on('data', (d) => {
        this.lines += d.toString();
        let i = this.lines.indexOf('\n');
        while (i >= 0) {
          const line = this.lines.slice(0, i);
          this.lines = this.lines.slice(i + 1);
          if (line === 'hello') said();
          else this.waiting.shift()?.(line);
          i = this.lines.indexOf('\n');
        }
      });
    });
  }

  private flush(line: string | undefined): void {
    for (const w of this.waiting.splice(0)) w(line);
  }

  static async listen(dir: string): Promise<RelayControl> {
    const server = net.createServer();
    const sock = path.join(dir, 'ctl.sock');
    await new Promise<void>((res, rej) => server.once('error', rej).listen(sock, () => res()));
    // The relay runs as root without capabilities, which does not bypass file modes.
    await chmod(sock, 0o666);
    return new RelayControl(server);
  }

  /** Tells the relay the trial's ports; resolves when it listens on all of them, rejects naming why not. */
  async relay(ports: string[], timeoutMs = 30_000): Promise<void> {
    if (!this.conn) throw new Error('the endpoint relay is not connected');
    const answer = new Promise<string | undefined>((res) => {
      this.waiting.push(res);
      setTimeout(() => res('error no answer within 30 s'), timeoutMs).unref();
    });
    this.conn.write(`${JSON.stringify(ports.map(Number))}\n`);
    const line = await answer;
    if (line !== 'ready')
      throw new Error(`the endpoint relay did not start: ${line === undefined ? 'it exited' : line}`);
  }

  close(): void {
    this.conn?.destroy();
    this.server.close();
  }
}

/** The host half: one unix socket per port in `dir`, each connection forwarded to 127.0.0.1:<port>. */
export class EndpointBridge {
  private readonly servers: net.Server[] = [];
  private readonly conns = new Set<net.Socket>();
  /** Connections closed on arrival because the trial held `maxConnections` open already. */
  dropped = 0;

  private constructor(private readonly maxConnections?: number) {}

  /** With `maxConnections`, each port's socket holds at most that many (each costs the engine two fds). */
  static async open(dir: string, ports: string[], maxConnections?: number): Promise<EndpointBridge> {
    const b = new EndpointBridge(maxConnections);
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
    if (this.maxConnections) server.maxConnections = this.maxConnections;
    server.on('drop', () => this.dropped++);
    await new Promise<void>((res, rej) =>
      server.once('error', rej).listen(sock, () => {
        server.off('error', rej);
        // After the start an error (EMFILE on accept) ends nothing but the connection it came with.
        server.on('error', () => {});
        res();
      }),
    );
    // The container's user is not necessarily ours: anyone who can see the folder may connect.
    await chmod(sock, 0o666);
  }

  close(): void {
    for (const s of this.servers) s.close();
    for (const c of this.conns) c.destroy();
    this.conns.clear();
  }
}
