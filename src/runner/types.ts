// The runner contract: how one trial's harness process is started, confined, timed out and collected.
// Two implementations: `process` (embedded default) and `docker` (one disposable container per trial).
// The engine prepares the trial folders on the host before the run and reads them after it, so a runner
// must leave the host folders holding the harness's final state (a bind mount or a copy back).
import type { HarnessStdio } from '../adapters/acp/jsonrpc.js';
import type { ProcessOutcome } from '../evidence/types.js';
import type { RunnerInfo } from '../spec/run-result.js';
import type { TrialDirs } from '../world/trial-dirs.js';

/**
 * The harness's whole environment after the one env policy (engine/env.ts `policeEnv`, the only maker of
 * this type): no workflow variable, nothing a `NAME=value` block cannot carry. Runners pass it as it is.
 */
declare const policed: unique symbol;
export type PolicedEnv = Readonly<Record<string, string>> & { readonly [policed]: true };

export interface TrialLaunch {
  trial_id: string;
  /** Host folders. */
  dirs: TrialDirs;
  /** Command and cwd with templates already rendered for the sandbox's view (see sandboxView). */
  command: string[];
  cwd: string;
  /** The whole environment of the harness: built from nothing, never inherited, policed by the engine. */
  env: PolicedEnv;
  stdin?: string;
  /**
   * A conversation over the harness's stdio (protocol: acp), instead of `stdin`: called once the harness
   * starts, with its stdin to write and its stdout to read (stdout is kept in the outcome's tail too).
   * When it resolves the runner closes the harness's stdin, and stops the harness (SIGTERM, then SIGKILL)
   * if it has not exited within EOF_EXIT_GRACE_MS (runner/shared.ts).
   */
  converse?: (io: HarnessStdio) => Promise<void>;
  timeout_ms: number;
  /** Extra read-only folders the harness needs (its install, the action's dist/), host paths. */
  read_only: string[];
  /** Host paths the harness must not even see although a read-only folder holds them (result, evidence). */
  hide?: string[];
  /**
   * Port of the trial's endpoint as the harness addresses it (127.0.0.1:PORT inside the sandbox): the
   * contained runners relay exactly this port, and nothing else, to the endpoint. 0 (a runner test with
   * no endpoint): the relay listens on a port nobody uses.
   */
  endpoint_port: number;
  /** Connections the harness may hold open to its endpoint at once; the runner's relay closes more. */
  max_connections?: number;
  signal?: AbortSignal;
  /**
   * Called once the harness has exited, before what the runner does after it (docker: the kill, the
   * limits probe and the copy-back): the engine lets the next trial's harness start then.
   */
  harness_exited?: () => void;
}

/** A file in one of the trial's folders, relative to it. */
export interface TrialFile {
  key: 'workspace' | 'home' | 'tmp';
  rel: string;
}

/** How folders and the endpoint look from inside the sandbox. */
export interface SandboxView {
  workspace: string;
  home: string;
  tmp: string;
  bin: string;
  /** Maps a host read-only path (install cache, action root, adapter dir) to the sandbox path. */
  mapReadOnly(hostPath: string): string;
  /** Host address the per-trial endpoint must bind to. */
  bindHost: string;
  /**
   * Host path of a unix socket the endpoint must also listen on: the contained runner relays the
   * sandbox's 127.0.0.1:PORT to it (the sandbox has no other network).
   */
  endpointSocket?: string;
  /** Host name/address the harness uses to reach the endpoint. */
  endpointHost: string;
  /** PATH entries the sandbox provides (node etc.), appended after the trial's bin. */
  systemPath: string[];
}

export interface Runner {
  readonly name: 'process' | 'docker';
  /** Set-up before the first trial (Docker: check the daemon, create the run's network). */
  start(): Promise<void>;
  /** What contains the trials, recorded in the run result (after start()). */
  info?(): RunnerInfo;
  /** Called right after the trial folders exist, before anything is written into them. */
  prepare?(dirs: TrialDirs): Promise<void>;
  /** Called after the engine has read the trial folders, before it removes them. */
  release?(dirs: TrialDirs): Promise<void>;
  /**
   * Optional: what of the trial's start needs no harness slot (docker: a container taken, the folders
   * copied in), done once its world is written, before the engine waits for a slot; `run` with the same
   * folders then starts from there. A staged trial that never runs is given up by `release` or `stop`.
   */
  stage?(launch: TrialLaunch): Promise<void>;
  view(dirs: TrialDirs): SandboxView;
  run(launch: TrialLaunch): Promise<ProcessOutcome>;
  /**
   * While the trial runs: sha256 of trial files (`workspace/a.txt`, `home/.bashrc`), null when missing or
   * not a regular file, undefined when the runner cannot look now. The engine judges a call's effect by
   * it (model/world-check.ts); every runner must give the same answers for the same files.
   */
  peek?(dirs: TrialDirs, files: TrialFile[]): Promise<(string | null | undefined)[]>;
  /** What the run result attests about this runner, once start() has run (docker: the image and its id). */
  attest?(): { image?: { name: string; id: string } };
  /** Tear-down after the last trial and on interrupt; must be safe to call twice. */
  stop(): Promise<void>;
}
