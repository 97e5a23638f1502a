// A JSON-RPC 2.0 peer over a harness's stdio, as the Agent Client Protocol frames it: one JSON message
// per line (newline-delimited, no embedded newlines), both sides may send requests and notifications.
// Small on purpose: the agent's output is hostile, so a line that is not JSON-RPC is skipped (and
// counted), never thrown, and nothing it sends can grow a buffer without bound.

/** The harness's stdio as the engine holds it while the harness runs (the runner gives both ends). */
export interface HarnessStdio {
  /** Writes to the harness's stdin (ignored once it has exited). */
  write(text: string): void;
  /** Every chunk of the harness's stdout, in order. */
  onStdout(listener: (chunk: Buffer) => void): void;
  /** Resolves once the harness has exited (or the runner gave up on it). */
  exited: Promise<void>;
}

/** A JSON-RPC error object; `code` as the spec's table (-32601 method not found, …). */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A request the agent sent: answer with a result or an RpcError. */
export type RequestHandler = (method: string, params: unknown) => Promise<unknown>;
export type NotificationHandler = (method: string, params: unknown) => void;

/** Thrown by `request` when the agent answers with an error, exits or runs out of time. */
export class RpcFailure extends Error {
  constructor(
    message: string,
    readonly kind: 'error' | 'exited' | 'timeout',
    readonly rpc?: RpcError,
  ) {
    super(message);
    this.name = 'RpcFailure';
  }
}

/** Longest line kept while waiting for its newline: a message past it is dropped. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

export const METHOD_NOT_FOUND = -32601;

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

interface Pending {
  method: string;
  resolve: (v: unknown) => void;
  reject: (e: RpcFailure) => void;
  timer?: NodeJS.Timeout;
}

export class JsonRpcPeer {
  private buf = '';
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private gone = false;
  /** Lines that were not JSON-RPC messages (an agent's stray logging on stdout). */
  skipped = 0;

  constructor(
    private readonly io: HarnessStdio,
    private readonly onRequest: RequestHandler,
    private readonly onNotification: NotificationHandler,
  ) {
    io.onStdout((b) => this.take(b.toString('utf8')));
    void io.exited.then(() => this.closeAll());
  }

  /** Sends a request; rejects with RpcFailure on an error answer, the agent's exit or `timeoutMs`. */
  request(method: string, params: unknown, timeoutMs?: number): Promise<unknown> {
    if (this.gone) return Promise.reject(new RpcFailure(`the agent exited before ${method}`, 'exited'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const p: Pending = { method, resolve, reject };
      if (timeoutMs !== undefined)
        p.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(
            new RpcFailure(`the agent did not answer ${method} within ${timeoutMs / 1000} s`, 'timeout'),
          );
        }, timeoutMs);
      this.pending.set(id, p);
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  private send(msg: unknown): void {
    if (!this.gone) this.io.write(`${JSON.stringify(msg)}\n`);
  }

  private take(text: string): void {
    this.buf += text;
    let i = this.buf.indexOf('\n');
    while (i >= 0) {
      this.line(this.buf.slice(0, i));
      this.buf = this.buf.slice(i + 1);
      i = this.buf.indexOf('\n');
    }
    if (this.buf.length > MAX_LINE_BYTES) {
      this.buf = '';
      this.skipped++;
    }
  }

  private line(raw: string): void {
    const s = raw.trim();
    if (!s) return;
    let msg: unknown;
    try {
      msg = JSON.parse(s);
    } catch {
      this.skipped++;
      return;
    }
    if (!isObject(msg) || msg.jsonrpc !== '2.0') {
      this.skipped++;
      return;
    }
    if (typeof msg.method === 'string') this.incoming(msg.method, msg.params, msg.id);
    else if (typeof msg.id === 'number') this.answer(msg.id, msg);
    else this.skipped++;
  }

  private incoming(method: string, params: unknown, id: unknown): void {
    if (id === undefined || id === null) {
      try {
        this.onNotification(method, params);
      } catch {
        // A handler must never take the session down on a hostile notification.
      }
      return;
    }
    this.onRequest(method, params).then(
      (result) => this.send({ jsonrpc: '2.0', id, result: result ?? null }),
      (e: unknown) => {
        const error: RpcError =
          isObject(e) && typeof e.code === 'number' && typeof e.message === 'string'
            ? { code: e.code, message: e.message }
            : { code: -32603, message: e instanceof Error ? e.message : String(e) };
        this.send({ jsonrpc: '2.0', id, error });
      },
    );
  }

  private answer(id: number, msg: Record<string, unknown>): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (isObject(msg.error)) {
      const error = msg.error as unknown as RpcError;
      p.reject(new RpcFailure(`${p.method} failed: ${String(error.message).slice(0, 300)}`, 'error', error));
    } else p.resolve(msg.result);
  }

  private closeAll(): void {
    this.gone = true;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new RpcFailure(`the agent exited during ${p.method}`, 'exited'));
      this.pending.delete(id);
    }
  }
}
