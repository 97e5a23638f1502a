// Where a docker trial's time goes: `HR_DOCKER_SPANS=FILE` appends one JSON line per trial with the
// start and length of each phase (ms from the trial's start) and how many requests it sent the daemon,
// by kind. Off by default; when off, a phase costs one performance.now() pair and nothing is written
// (the request count, a map increment per request, is always kept: tests read it).
// scripts/bench-docker.mjs --spans reads these lines and prints the median per phase.
import { appendFileSync } from 'node:fs';
import type Docker from 'dockerode';

export interface Span {
  name: string;
  /** ms from the trial's start (negative: before it, e.g. the warm container's creation). */
  at: number;
  ms: number;
}

export class TrialSpans {
  readonly t0 = performance.now();
  readonly spans: Span[] = [];
  private readonly calls0: Record<string, number>;

  constructor(private readonly counter?: RequestCounter) {
    this.calls0 = { ...(counter?.counts ?? {}) };
  }

  /** Records how long `p` takes (from now to its settling) under `name`. */
  async time<T>(name: string, p: Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await p;
    } finally {
      this.add(name, start, performance.now());
    }
  }

  add(name: string, start: number, end: number): void {
    this.spans.push({ name, at: round(start - this.t0), ms: round(end - start) });
  }

  /** The daemon requests sent since this trial started, by `METHOD /kind`. */
  calls(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [k, n] of Object.entries(this.counter?.counts ?? {})) {
      const d = n - (this.calls0[k] ?? 0);
      if (d) out[k] = d;
    }
    return out;
  }
}

const round = (x: number) => Math.round(x * 10) / 10;

/** Counts every request the runner's dockerode client sends, by method and path shape. */
export interface RequestCounter {
  counts: Record<string, number>;
}

/** `/containers/3f…/exec` → `/containers/ID/exec`, `/exec/ab…/json` → `/exec/ID/json`; the listing
 * (`/containers/json`) and `/containers/create` keep their names. */
export function requestKind(method: string, path: string): string {
  const p = path
    .split('?')[0]!
    .replace(/^\/v[\d.]+/, '')
    .replace(/^\/(containers|exec)\/(?!(?:json|create)(?:$|\?))[^/]+/, '/$1/ID');
  return `${method} ${p}`;
}

export function countRequests(docker: Docker): RequestCounter {
  const counter: RequestCounter = { counts: {} };
  const modem = (
    docker as unknown as { modem: { dial: (o: { method: string; path: string }, cb: unknown) => unknown } }
  ).modem;
  const dial = modem.dial.bind(modem);
  modem.dial = (o, cb) => {
    const k = requestKind(o.method, o.path);
    counter.counts[k] = (counter.counts[k] ?? 0) + 1;
    return dial(o, cb);
  };
  return counter;
}

export const spansFile = (): string | undefined => process.env.HR_DOCKER_SPANS || undefined;

/**
 * Appends the trial's line to the spans file when HR_DOCKER_SPANS names one (a failure to write must not
 * fail the trial). `total` defaults to the time since the spans began.
 */
export function recordSpans(trialId: string, s: TrialSpans, total = performance.now() - s.t0): void {
  const file = spansFile();
  if (!file) return;
  // start_ms (the engine's clock) puts trials on one time line: what of one overlaps the next.
  const line = {
    trial: trialId,
    start_ms: round(s.t0),
    total_ms: round(total),
    spans: s.spans,
    calls: s.calls(),
  };
  try {
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  } catch {}
}
