// The seam between the docker runner and its trial module (trial.ts): what a trial needs of the runner
// that owns the daemon connection, the containers and the run's state, and nothing more. The trial module
// receives this interface, never the whole DockerRunner, so neither imports the other.
import type Docker from 'dockerode';
import type { ProcessOutcome } from '../../evidence/types.js';
import type { RunEvents } from './events.js';
import type { Limits, RoSet } from './mounts.js';
import type { Slot } from './pool.js';

/** The process outcome plus what only a container can tell. */
export interface DockerProcessOutcome extends ProcessOutcome {
  /** Changes to the container's own filesystem outside the mounts (only with readOnlyRootfs: false). */
  container_changes?: { path: string; kind: 'modified' | 'added' | 'deleted' }[];
}

/** A daemon stream the runner must be able to close at stop(); the call returned forgets it. */
export type TrackStream = (s: NodeJS.ReadWriteStream) => () => void;

export interface TrialHost {
  /** The daemon (the guard's kills, the harness exec). */
  readonly docker: Docker;
  /** Exec and container ends from the daemon's event stream. */
  readonly events: RunEvents;
  readonly trackStream: TrackStream;
  /** The user harnesses run as (known once start() has run). */
  readonly user?: string;
  readonly limits: Limits;
  readonly readOnlyRootfs: boolean;
  /** Set once stop() began: no trial starts, a failing one failed because of the stop. */
  readonly stopping?: Promise<void>;
  /** Why the daemon is considered gone (every later trial is an infrastructure failure). */
  readonly dead?: string;
  /** Why no trial may start now (not started, stopping, the daemon gone), or undefined. */
  refusal(): Partial<ProcessOutcome> | undefined;
  /** The container of each trial whose harness runs now, by trial folder (peek() looks there). */
  readonly running: Map<string, Slot>;
  /** The read-only mounts of a trial (its install, the action's dist/) minus what it must not see. */
  roMounts(readOnly: string[], hide?: string[]): Promise<RoSet>;
  /** A started container for this trial: warm, or made now. */
  takeSlot(ro: RoSet): Promise<Slot>;
  /** Removes a used (or unneeded) container and its socket folder, in the background. */
  discard(slot: Slot): void;
  /** A daemon error as the trial's outcome: infra_error when the daemon is gone, else spawn_error. */
  classify(e: unknown, stage: string): Promise<Partial<ProcessOutcome>>;
}
