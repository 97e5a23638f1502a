// The daemon's event stream for one run: when an exec's process exits (`exec_die`, with its exit code)
// and when a container stops (`die`). Waiting on these instead of polling `inspect` on a timer means a
// trial's end is seen when it happens, and the daemon is not asked hundreds of times per trial. Should
// the stream fail, `healthy` turns false and the callers fall back to polling (exec.ts).
import type Docker from 'dockerode';
import { RUN_LABEL } from './options.js';

type Track = (s: NodeJS.ReadWriteStream) => () => void;

/** An exit code, null when the daemon gave none, undefined when the stream failed (poll instead). */
type Ended = number | null | undefined;

interface Waiter {
  resolve: (code: Ended) => void;
}

/** One `type: container` event, as much of it as is read here. */
export interface DaemonEvent {
  Action?: string;
  status?: string;
  id?: string;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
}

/** Splits the newline-delimited JSON the events endpoint sends (chunks may cut a line anywhere). */
export class LineSplitter {
  private buf = '';
  push(chunk: Buffer | string, each: (line: string) => void): void {
    this.buf += chunk.toString();
    let i = this.buf.indexOf('\n');
    while (i >= 0) {
      const line = this.buf.slice(0, i).trim();
      this.buf = this.buf.slice(i + 1);
      if (line) each(line);
      i = this.buf.indexOf('\n');
    }
  }
}

/** What an event says: an exec (by id) or a container (by id) ended, with the exit code. */
export function eventEnd(
  e: DaemonEvent,
): { kind: 'exec' | 'container'; id: string; code: number | null } | undefined {
  const action = e.Action ?? e.status ?? '';
  const attrs = e.Actor?.Attributes ?? {};
  const code = attrs.exitCode !== undefined && /^-?\d+$/.test(attrs.exitCode) ? Number(attrs.exitCode) : null;
  if (action === 'exec_die' && attrs.execID) return { kind: 'exec', id: attrs.execID, code };
  const id = e.Actor?.ID ?? e.id;
  if (action === 'die' && id) return { kind: 'container', id, code };
  return undefined;
}

export class RunEvents {
  private readonly execs = new Map<string, Waiter[]>();
  private readonly containers = new Map<string, Waiter[]>();
  /** Ends seen before anyone asked (a container that died while the pool was starting it). */
  private readonly seen = new Map<string, number | null>();
  private stream?: NodeJS.ReadableStream;
  private untrack?: () => void;
  healthy = false;

  /** Subscribes to this run's exec and container ends; resolves once the daemon accepted it. */
  async open(docker: Docker, runId: string, track: Track): Promise<void> {
    const filters = { type: ['container'], event: ['exec_die', 'die'], label: [`${RUN_LABEL}=${runId}`] };
    const stream = (await docker.getEvents({
      filters: JSON.stringify(filters),
    } as object)) as NodeJS.ReadableStream;
    this.stream = stream;
    this.untrack = track(stream as NodeJS.ReadWriteStream);
    this.healthy = true;
    const lines = new LineSplitter();
    stream.on('data', (d: Buffer) =>
      lines.push(d, (line) => {
        let e: DaemonEvent;
        try {
          e = JSON.parse(line) as DaemonEvent;
        } catch {
          return;
        }
        const end = eventEnd(e);
        if (end) this.settle(end.kind === 'exec' ? this.execs : this.containers, end.id, end.code);
      }),
    );
    const down = () => this.fail();
    stream.on('error', down).on('end', down).on('close', down);
  }

  private settle(map: Map<string, Waiter[]>, id: string, code: number | null): void {
    const ws = map.get(id);
    map.delete(id);
    if (ws) for (const w of ws) w.resolve(code);
    else {
      this.seen.set(id, code);
      // Ends nobody waits for (the signal helpers' execs): keep only the latest few hundred.
      if (this.seen.size > 512) this.seen.delete(this.seen.keys().next().value as string);
    }
  }

  /** The stream is gone: every waiter gets `undefined` (the caller polls instead). */
  private fail(): void {
    if (!this.healthy) return;
    this.healthy = false;
    this.untrack?.();
    for (const map of [this.execs, this.containers]) {
      for (const ws of map.values()) for (const w of ws) w.resolve(undefined);
      map.clear();
    }
  }

  private wait(map: Map<string, Waiter[]>, id: string): Promise<Ended> | undefined {
    if (this.seen.has(id)) {
      const code = this.seen.get(id) ?? null;
      this.seen.delete(id);
      return Promise.resolve(code);
    }
    if (!this.healthy) return undefined;
    return new Promise<Ended>((resolve) => map.set(id, [...(map.get(id) ?? []), { resolve }]));
  }

  /**
   * The exit code of this exec once its process exits. Ask before starting it. `undefined` (or a promise
   * resolving to undefined) when events are not available: poll instead.
   */
  execEnded(id: string): Promise<Ended> | undefined {
    return this.wait(this.execs, id);
  }

  /** The container's exit code once it stops (same contract as execEnded). */
  containerDied(id: string): Promise<Ended> | undefined {
    return this.wait(this.containers, id);
  }

  /** Stops waiting for this exec (its end was learned another way). */
  forget(id: string): void {
    this.execs.delete(id);
    this.containers.delete(id);
    this.seen.delete(id);
  }

  close(): void {
    const s = this.stream as unknown as { destroy?: () => void } | undefined;
    this.fail();
    s?.destroy?.();
    this.stream = undefined;
  }
}
