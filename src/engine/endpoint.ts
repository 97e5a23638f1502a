// A trial's endpoint (the scripted or live model and the mock services) as listeners: TCP on the host and,
// for the contained runner, a unix socket its sandbox's relay forwards to. The harness is hostile, so a
// listener never lets it take the engine down: it holds at most `connections` connections at once (more
// are closed as they arrive, and the trial says so), and an error of a listener (EMFILE on accept) is
// recorded for the trial (which it makes invalid), never thrown. The endpoint exists before the trial's
// world is rendered (its URL is {{svc}}); until the trial serves its model and services, it refuses.
import { chmod } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { SandboxView } from '../runner/types.js';

export interface EndpointHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  connect(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/** What the endpoint answers before the trial serves: nothing (an empty answer, a closed tunnel). */
const REFUSE: EndpointHandler = Object.assign(
  async (_req: IncomingMessage, res: ServerResponse) => void res.end(),
  {
    connect: (_req: IncomingMessage, socket: Duplex) => void socket.destroy(),
  },
);

/** What a trial's endpoint went through: connections refused over the cap, and a listener's error. */
export interface EndpointHealth {
  /** Connections closed on arrival because the trial held `connections` open already. */
  dropped: number;
  /** The first error of a listener after it started (the engine out of file descriptors…). */
  error?: string;
}

export interface Endpoint {
  servers: Server[];
  port: number;
  health: EndpointHealth;
}

function endpointServer(
  handler: () => EndpointHandler,
  maxConnections: number,
  health: EndpointHealth,
): Server {
  const server = createServer((req, res) => {
    handler()(req, res).catch((e) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String((e as Error)?.message ?? e) }));
    });
  });
  // CONNECT (HTTPS through the proxy variables) is egress: the services record it and refuse it.
  server.on('connect', (req, socket, head) => {
    socket.on('error', () => {});
    handler().connect(req, socket, head);
  });
  // Node closes a connection over the cap before it is a socket (one fd for an instant): a flood of them
  // costs the engine nothing it keeps. Per listener: a trial's harness reaches only one of them.
  server.maxConnections = maxConnections;
  server.on('drop', () => {
    health.dropped++;
  });
  // A hostile client's broken request ends its own connection, nothing else.
  server.on('clientError', (_e, socket) => socket.destroy());
  return server;
}

/**
 * The trial's endpoint on host:random-port, and also on `socket` when the runner relays a sandboxed
 * 127.0.0.1:PORT to a unix socket (the contained process runner): one handler, two listeners.
 */
export async function startEndpoint(
  host: string,
  handler: () => EndpointHandler,
  opts: { socket?: string; maxConnections: number },
): Promise<Endpoint> {
  const health: EndpointHealth = { dropped: 0 };
  const servers: Server[] = [];
  const listen = (server: Server, ...at: [number, string] | [string]) =>
    new Promise<void>((ok, fail) => {
      servers.push(server);
      server.once('error', fail);
      server.listen(...(at as [number, string]), () => {
        server.off('error', fail);
        // From now on an error belongs to the trial (EMFILE on accept): recorded, never thrown.
        server.on('error', (e: NodeJS.ErrnoException) => {
          health.error ??= `endpoint listener: ${e.code ?? ''} ${e.message}`.replace(/ {2,}/g, ' ');
        });
        ok();
      });
    });
  try {
    await listen(endpointServer(handler, opts.maxConnections, health), 0, host);
    if (opts.socket) {
      await listen(endpointServer(handler, opts.maxConnections, health), opts.socket);
      // The sandboxed harness may run as another uid; only its own trial sees this socket's folder.
      await chmod(opts.socket, 0o666);
    }
  } catch (e) {
    await Promise.all(servers.map(stopEndpoint));
    throw e;
  }
  return { servers, port: (servers[0]!.address() as AddressInfo).port, health };
}

export function stopEndpoint(server: Server): Promise<void> {
  server.closeAllConnections?.();
  return new Promise((ok) => server.close(() => ok()));
}

/**
 * One trial's endpoint: its listeners, its URL as the harness addresses it, and the handler it serves
 * (REFUSE until `serve`). The one place that swaps the handler.
 */
export class TrialEndpoint {
  private handler: EndpointHandler = REFUSE;
  private constructor(
    private readonly listening: Endpoint,
    /** `http://HOST:PORT` as the harness reaches it ({{svc}}, {{model_url}}). */
    readonly url: string,
  ) {}

  /** Listens where the runner's view says (a TCP port on bindHost, and its relay's socket if any). */
  static async open(view: SandboxView, maxConnections: number): Promise<TrialEndpoint> {
    let self: TrialEndpoint | undefined;
    const listening = await startEndpoint(view.bindHost, () => self?.handler ?? REFUSE, {
      ...(view.endpointSocket ? { socket: view.endpointSocket } : {}),
      maxConnections,
    });
    self = new TrialEndpoint(listening, `http://${view.endpointHost}:${listening.port}`);
    return self;
  }

  get port(): number {
    return this.listening.port;
  }

  get health(): EndpointHealth {
    return this.listening.health;
  }

  /** From now on the trial's model and services answer. */
  serve(handler: EndpointHandler): void {
    this.handler = handler;
  }

  async close(): Promise<void> {
    for (const server of this.listening.servers) await stopEndpoint(server);
  }
}
