// Warm containers: created and started ahead (idle, ~0.5 s on two cores) while earlier trials run, so a
// trial only pays for its copies and execs. One pool per set of read-only mounts, up to `sets` of them at
// once (base and head trees alternate trial by trial); a container never serves a second trial; the
// containers of the least recently used set beyond that are discarded.
import type Docker from 'dockerode';
import type { RoSet } from './mounts.js';
import type { RelayControl } from './network.js';

export interface Slot {
  container: Docker.Container;
  /** Host folder mounted read-only at /opt/hr/ep: the trial's endpoint sockets go here. */
  dir: string;
  key: string;
  /** The container's main process, the endpoint relay, waiting for the trial's ports. */
  control: RelayControl;
  /** When its creation steps ran ([name, start, end], performance.now(); spans.ts). */
  made?: [string, number, number][];
}

/** The container's relay exited at start: containers cannot work with this image. */
export class RelayFailed extends Error {}

export class WarmPool {
  private readonly pools = new Map<string, Promise<Slot>[]>();
  /** A slot is discarded once: by the set's eviction, or by its own creation finishing after that. */
  private readonly gone = new WeakSet<Slot>();
  disabled?: string;

  constructor(
    private readonly size: number,
    private readonly create: (ro: RoSet) => Promise<Slot>,
    private readonly discardSlot: (s: Slot) => void,
    private readonly track: (p: Promise<unknown>) => void,
    private readonly closed: () => boolean,
    private readonly sets = 1,
  ) {}

  private discard(s: Slot): void {
    if (this.gone.has(s)) return;
    this.gone.add(s);
    this.discardSlot(s);
  }

  get enabled(): boolean {
    return this.size > 0 && !this.disabled;
  }

  /** A started container for this read-only set: the oldest warm one, else a new one. */
  async take(ro: RoSet): Promise<Slot> {
    if (!this.enabled) return this.create(ro);
    // Most recently used last (a Map keeps insertion order); beyond `sets`, the oldest sets go.
    const list = this.pools.get(ro.key) ?? [];
    this.pools.delete(ro.key);
    this.pools.set(ro.key, list);
    for (const [k, old] of this.pools) {
      if (this.pools.size <= this.sets) break;
      if (k === ro.key) continue;
      for (const p of old)
        p.then(
          (s) => this.discard(s),
          () => {},
        );
      this.pools.delete(k);
    }
    const next = list.shift();
    this.refill(ro);
    if (next) {
      try {
        return await next;
      } catch (e) {
        if (e instanceof RelayFailed) throw e;
      }
    }
    return this.create(ro);
  }

  /** Keeps `size` containers started (or starting) for this set. */
  refill(ro: RoSet): void {
    if (!this.enabled || this.closed()) return;
    const list = this.pools.get(ro.key) ?? [];
    this.pools.set(ro.key, list);
    while (list.length < this.size) {
      const p = this.create(ro);
      this.track(
        p.then(
          (s) => {
            // Made for a pool that is gone (stop, another read-only set): not needed.
            if (this.closed() || this.pools.get(ro.key) !== list) this.discard(s);
          },
          (e) => {
            if (e instanceof RelayFailed) this.disabled = e.message;
          },
        ),
      );
      list.push(p);
    }
  }

  /** Discards every warm container (stop()). */
  drain(): void {
    for (const list of this.pools.values())
      for (const p of list)
        p.then(
          (s) => this.discard(s),
          () => {},
        );
    this.pools.clear();
  }
}
