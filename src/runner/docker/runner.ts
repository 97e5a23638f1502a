// The `docker` runner: one disposable container per trial (see docs/internals.md, "Runners").
//
// A trial's container: no network (only its loopback; the trial's endpoint is relayed in over a unix
// socket, network.ts), the trial folders on a size-capped tmpfs filled before and copied back after
// (filetree.ts), the launch's read-only folders at /opt/hr/ro/<host path> (mounts.ts), memory/cpu/pids
// limits, all capabilities dropped, no-new-privileges, read-only root, a non-root user where possible,
// and exactly the launch's environment (policed by the engine). Containers are started ahead (pool.ts),
// serve one trial and are removed; every one is labelled with the run and its owner (cleanup.ts).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { UserError } from '../../errors.js';
import type { ProcessOutcome } from '../../evidence/types.js';
import { FAKE_HOSTS } from '../../spec/service-catalog.js';
import type { TrialDirs } from '../../world/trial-dirs.js';
import { BOOT_ID, ownerId, ownerLabels } from '../owner.js';
import type { Runner, SandboxView, TrialFile, TrialLaunch } from '../types.js';
import { active, installHandlers, sweepRun, sweepStale } from './cleanup.js';
import {
  connect,
  type DaemonConnection,
  errText,
  isConnectionError,
  pingDocker,
  waitAtMost,
} from './daemon.js';
import { RunEvents } from './events.js';
import { chooseUser } from './image.js';
import { hostConfig, type Limits, mapReadOnly, type RoSet, readOnlyMounts } from './mounts.js';
import { ENDPOINT_HOST, RelayControl, relayCommand } from './network.js';
import {
  DEFAULT_IMAGE,
  type DockerRunnerOptions,
  parseMemory,
  parseSize,
  RUN_LABEL,
  SANDBOX_PATHS,
  STANDARD_PATH,
  safeName,
  socketFromEnv,
  TMP_PREFIX,
  TRIAL_LABEL,
} from './options.js';
import { peekIn } from './peek.js';
import { RelayFailed, type Slot, WarmPool } from './pool.js';
import { countRequests, type RequestCounter, recordSpans, TrialSpans } from './spans.js';
import { runStaged, type StagedTrial, stageTrial, unstage } from './trial.js';
import type { DockerProcessOutcome, TrialHost } from './trial-host.js';

const PING_TIMEOUT_MS = 5_000;
const REMOVE_TIMEOUT_MS = 10_000;
/** stop() as a whole: after this the daemon connection is closed whatever is still pending. */
const STOP_BUDGET_MS = 6_000;
/** A container's relay says hello within this (node's start-up on a loaded machine), or it failed. */
const HELLO_TIMEOUT_MS = 60_000;

export class DockerRunner implements Runner, TrialHost {
  readonly name = 'docker' as const;
  readonly runId: string;
  readonly image: string;
  private imageId: string | undefined;
  readonly socketPath: string;
  readonly limits: Limits;
  user?: string;
  systemPath: string[] = STANDARD_PATH;

  readonly conn: DaemonConnection;
  /** Daemon requests by kind (spans.ts): what a trial asks of the daemon, for the spans and the tests. */
  readonly counter: RequestCounter;
  readonly readOnlyRootfs: boolean;
  readonly hostAliases: string[];
  private readonly warn: (m: string) => void;
  private readonly live = new Set<string>();
  /** A create failed in a way that may have left a container anyway (no answer): stop() sweeps. */
  private unsure = false;
  private readonly streams = new Set<NodeJS.ReadWriteStream>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly warned = new Set<string>();
  private readonly pool: WarmPool;
  /** Exec and container ends, from the daemon's event stream (polling where it is not available). */
  readonly events = new RunEvents();
  private started?: Promise<void>;
  stopping?: Promise<void>;
  /** The container of each trial whose harness runs now, by trial folder (peek() looks there). */
  readonly running = new Map<string, Slot>();
  /** Trials staged ahead of their harness slot, by trial folder. */
  private readonly staged = new Map<string, Promise<StagedTrial | DockerProcessOutcome>>();
  /** Resolves when stop() begins: containers still starting give up at once. */
  private halt!: () => void;
  private readonly halted = new Promise<void>((res) => {
    this.halt = res;
  });
  /** Why the daemon is considered gone (every later trial is an infrastructure failure). */
  dead?: string;
  private tmpRoot?: string;
  private ids?: { uid: number; gid: number };

  constructor(private readonly opts: DockerRunnerOptions) {
    if (!opts.runId) throw new Error('DockerRunner: runId is required');
    this.runId = opts.runId;
    this.image = opts.image ?? DEFAULT_IMAGE;
    this.socketPath = opts.socketPath ?? socketFromEnv();
    const cpus = opts.cpus ?? 1;
    if (!(cpus > 0)) throw new Error(`DockerRunner: cpus must be > 0 (got ${cpus})`);
    this.limits = {
      memory: parseMemory(opts.memory),
      nanoCpus: Math.round(cpus * 1e9),
      pids: opts.pids ?? 256,
      disk: parseSize(opts.disk, 512 * 1024 ** 2, 'disk'),
      inodes: opts.inodes ?? 65_536,
      fileSize: parseSize(opts.fileSize, 512 * 1024 ** 2, 'fileSize'),
    };
    this.readOnlyRootfs = opts.readOnlyRootfs ?? true;
    this.hostAliases = opts.hostAliases ?? FAKE_HOSTS;
    this.warn = opts.onWarning ?? ((m) => process.emitWarning(m, 'HarnessRiskDocker'));
    this.conn = connect(this.socketPath);
    this.counter = countRequests(this.conn.docker);
    this.pool = new WarmPool(
      Math.max(0, Math.floor(opts.warm ?? 1)),
      (ro) => this.newSlot(ro),
      (s) => this.discard(s),
      (p) => this.track(p),
      () => this.stopping !== undefined || this.dead !== undefined,
      Math.max(1, opts.prewarm?.length ?? 1),
    );
  }

  get docker(): Docker {
    return this.conn.docker;
  }

  /** True while this runner may still own containers or host folders. */
  hasResources(): boolean {
    return this.live.size > 0 || this.tmpRoot !== undefined;
  }

  warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.warn(message);
  }

  /** The user's to fix (start Docker or pick the process runner), so a UserError: no stack trace. */
  private unreachable(e: unknown): Error {
    return new UserError(
      `Docker is not reachable at ${this.socketPath}: ${errText(e)}`,
      'start Docker (e.g. `sudo systemctl start docker`, or `sh scripts/docker-setup.sh` on a Debian machine), ' +
        'point DOCKER_HOST at a running daemon, or use `runner: process`',
    );
  }

  ping(timeoutMs = PING_TIMEOUT_MS): Promise<void> {
    return pingDocker(this.docker, timeoutMs);
  }

  start(): Promise<void> {
    this.started ??= this.doStart();
    return this.started;
  }

  private async doStart(): Promise<void> {
    try {
      await this.ping();
    } catch (e) {
      throw this.unreachable(e);
    }
    let info: Docker.ImageInspectInfo;
    try {
      info = await this.docker.getImage(this.image).inspect();
    } catch (e) {
      if (isConnectionError(e)) throw this.unreachable(e);
      throw new Error(
        `Docker image ${this.image} is not present on the daemon at ${this.socketPath} (${errText(e)}): ` +
          (this.image === DEFAULT_IMAGE
            ? 'build it with `sh scripts/docker-image.sh`'
            : `build or pull it first (e.g. \`docker pull ${this.image}\`)`) +
          ', or use `runner: process`.',
      );
    }
    this.imageId = info.Id;
    // Before any container of the run exists, so no end passes unseen; without it, exec.ts polls.
    // Bounded: a daemon that never answers /events must not hold the run (the exits are then polled).
    await waitAtMost(
      this.events
        .open(this.docker, this.runId, this.trackStream)
        .catch((e) =>
          this.warnOnce(
            'events',
            `docker runner: no event stream (${errText(e)}); polling the daemon instead`,
          ),
        ),
      PING_TIMEOUT_MS,
    );
    const pathEnv = (info.Config?.Env ?? []).find((e) => e.startsWith('PATH='));
    if (pathEnv) this.systemPath = pathEnv.slice(5).split(':').filter(Boolean);
    // A SIGKILLed run left containers and folders: whatever their age, their owner is gone.
    if (this.opts.sweepStale !== false)
      await sweepStale({ docker: this.docker, spareRunIds: [this.runId] }).catch((e) =>
        this.warnOnce('sweep', `docker runner: could not sweep leftovers of earlier runs: ${errText(e)}`),
      );
    this.user = await chooseUser(this.docker, this.image, info, {
      explicit: this.opts.user,
      labels: { [RUN_LABEL]: this.runId, ...ownerLabels() },
      warn: (k, m) => this.warnOnce(k, m),
      leftover: () => {
        this.unsure = true;
      },
    });
    const [uid, gid] = this.user.split(':').map(Number);
    this.ids = { uid: Number.isInteger(uid) ? uid : 0, gid: Number.isInteger(gid) ? gid : uid || 0 };
    active.add(this);
    if (this.opts.signalHandlers !== false) installHandlers();
    this.tmpRoot = await mkdtemp(path.join(os.tmpdir(), `${TMP_PREFIX}${process.pid}-`));
    await writeFile(
      path.join(this.tmpRoot, 'owner.json'),
      JSON.stringify({ owner: ownerId(), boot: BOOT_ID }),
    );
    for (const set of this.opts.prewarm ?? []) await this.prewarm(set.readOnly, set.hide);
  }

  /** The image the trials run in and the id the daemon gave it (attested in the run result). */
  attest(): { image?: { name: string; id: string } } {
    return this.imageId ? { image: { name: this.image, id: this.imageId } } : {};
  }

  /** What contains the trials, for the run result (the shape of the shared contract's RunnerInfo). */
  info() {
    const l = this.limits;
    return {
      name: 'docker' as const,
      containment: 'container' as const,
      mechanism:
        `Docker container per trial (image ${this.image}, user ${this.user ?? '?'}): no network (the endpoint ` +
        'relayed over a per-trial unix socket), read-only root, all capabilities dropped, trial folders on a tmpfs',
      limits: {
        memory_bytes: l.memory,
        pids: l.pids,
        file_size_bytes: l.fileSize,
        disk_bytes: l.disk,
        via: { memory: 'cgroup (docker)', pids: 'cgroup (docker)', file_size: 'rlimit fsize', disk: 'tmpfs' },
      },
    };
  }

  view(dirs: TrialDirs): SandboxView {
    if (!this.user) throw new Error('DockerRunner.view() called before start()');
    return {
      workspace: SANDBOX_PATHS.workspace,
      home: SANDBOX_PATHS.home,
      tmp: SANDBOX_PATHS.tmp,
      bin: SANDBOX_PATHS.bin,
      mapReadOnly: (hostPath: string) => mapReadOnly(hostPath, dirs),
      bindHost: ENDPOINT_HOST,
      endpointHost: ENDPOINT_HOST,
      systemPath: [...this.systemPath],
    };
  }

  /** Host path → sandbox path (trial folders to /trial/…, anything else to /opt/hr/ro/<host path>). */
  mapReadOnly(hostPath: string, dirs?: TrialDirs): string {
    return mapReadOnly(hostPath, dirs);
  }

  /** Why no trial may start now (TrialHost): not started, stopping, or the daemon gone. */
  refusal(): Partial<ProcessOutcome> | undefined {
    if (!this.user) return { spawn_error: 'docker runner: run() before start()' };
    if (this.stopping) return { infra_error: 'docker runner: the run is stopping (interrupted)' };
    if (this.dead)
      return {
        infra_error: `Docker daemon at ${this.socketPath} stopped answering during the run: ${this.dead}`,
      };
    return undefined;
  }

  roMounts(readOnly: string[], hide: string[] = []): Promise<RoSet> {
    return readOnlyMounts(readOnly, hide, {
      socketPath: this.socketPath,
      uid: this.ids?.uid ?? 0,
      user: this.user ?? '0:0',
      warn: (k, m) => this.warnOnce(k, m),
    });
  }

  /**
   * The trial's container taken, its endpoint bridged and its folders copied in, before the engine waits
   * for a harness slot: run() then starts at the harness. A staged trial that never runs is released.
   */
  async stage(launch: TrialLaunch): Promise<void> {
    const staging = stageTrial(this, launch, new TrialSpans(this.counter));
    this.staged.set(launch.dirs.root, staging);
    await staging;
  }

  async run(launch: TrialLaunch): Promise<DockerProcessOutcome> {
    const staging = this.staged.get(launch.dirs.root);
    this.staged.delete(launch.dirs.root);
    // Not staged ahead: staged now, then run.
    const sp = staging ? undefined : new TrialSpans(this.counter);
    const staged = await (staging ?? stageTrial(this, launch, sp!));
    if ('slot' in staged) return runStaged(this, launch, staged);
    if (sp) recordSpans(launch.trial_id, sp);
    return staged;
  }

  /** Trial files in the container's tmpfs, while the harness runs; "cannot look" at any other time. */
  async peek(dirs: TrialDirs, files: TrialFile[]): Promise<(string | null | undefined)[]> {
    const slot = this.running.get(dirs.root);
    if (!slot || !this.user) return files.map(() => undefined);
    return peekIn(slot.container, this.user, files, this.trackStream);
  }

  /** A staged trial that did not run (the run stopped while it waited): its container goes. */
  async release(dirs: TrialDirs): Promise<void> {
    const staging = this.staged.get(dirs.root);
    if (!staging) return;
    this.staged.delete(dirs.root);
    const staged = await staging;
    if ('slot' in staged) unstage(this, staged);
  }

  /** A started container for this trial: warm, or made now. */
  takeSlot(ro: RoSet): Promise<Slot> {
    // No retry when the relay cannot start: a container made now runs the same relay.
    return this.pool.take(ro);
  }

  /** Pre-starts warm containers for these read-only folders (optional; run() does it on first use). */
  async prewarm(readOnly: string[], hide: string[] = []): Promise<void> {
    if (!this.user || !this.pool.enabled) return;
    this.pool.refill(await this.roMounts(readOnly, hide));
  }

  /** A container made for a trial, tracked so that stop() waits for one still being made. */
  private newSlot(ro: RoSet): Promise<Slot> {
    const p = this.createSlot(ro);
    this.track(p);
    return p;
  }

  private async createSlot(ro: RoSet): Promise<Slot> {
    if (!this.tmpRoot || !this.ids) throw new Error('docker runner: start() first');
    if (this.stopping) throw new Error('docker runner: the run is stopping');
    const t0 = performance.now();
    const dir = await mkdtemp(path.join(this.tmpRoot, 'slot-'));
    // The container's users (not necessarily ours) must reach the sockets in it.
    await chmod(dir, 0o755);
    let container: Docker.Container | undefined;
    let control: RelayControl | undefined;
    try {
      // Listening before the container starts: its main process, the relay, connects at once.
      control = await RelayControl.listen(dir);
      const relay = relayCommand();
      container = await this.docker.createContainer({
        name: `hr-${safeName(this.runId).slice(0, 24)}-${randomBytes(3).toString('hex')}`,
        Image: this.image,
        Entrypoint: [relay[0]!],
        Cmd: relay.slice(1),
        // The relay: root without capabilities, so the harness (another uid) cannot signal it.
        User: '0:0',
        Env: [],
        WorkingDir: '/',
        Labels: { [RUN_LABEL]: this.runId, [TRIAL_LABEL]: 'slot', ...ownerLabels() },
        HostConfig: hostConfig(
          [...ro.mounts, { Type: 'bind', Source: dir, Target: SANDBOX_PATHS.endpoint, ReadOnly: true }],
          { ...this.limits, ...this.ids, readOnlyRootfs: this.readOnlyRootfs, hostAliases: this.hostAliases },
        ),
      });
      this.live.add(container.id);
      // Made while the run stopped (after its sweep listed the containers): it goes now.
      if (this.stopping) throw new Error('docker runner: the run is stopping');
      const died = this.events.containerDied(container.id);
      const t1 = performance.now();
      await container.start().catch((e) => {
        // The daemon has no init binary to put at pid 1 (Init: true).
        if (/docker-init|init binary|init-path/i.test(errText(e)))
          throw new RelayFailed(
            `the docker daemon cannot start an init in the trial's container (${errText(e)}); install its init (docker-init, Debian's tini package) or set the daemon's "init-path"`,
          );
        // The relay's node is missing: the daemon refuses to start it.
        if (/executable file not found|no such file or directory/i.test(errText(e)))
          throw new RelayFailed(
            `the container's endpoint relay cannot start in ${this.image} (${errText(e)}); the image must provide node`,
          );
        throw e;
      });
      const t2 = performance.now();
      await this.relayUp(container, control, died);
      if (this.stopping) throw new Error('docker runner: the run is stopping');
      const made: [string, number, number][] = [
        ['slot:create', t0, t1],
        ['slot:start', t1, t2],
        ['slot:relay-hello', t2, performance.now()],
      ];
      return { container, dir, key: ro.key, control, made };
    } catch (e) {
      control?.close();
      if (!container) this.unsure ||= isConnectionError(e);
      if (container) {
        this.events.forget(container.id);
        await this.removeContainer(container.id);
      }
      await rm(dir, { recursive: true, force: true }).catch(() => {});
      throw e;
    }
  }

  /** Waits for the container's relay to connect; an exit first means the image cannot run it. */
  private async relayUp(
    container: Docker.Container,
    control: RelayControl,
    died: Promise<number | null | undefined> | undefined,
  ): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((res) => {
      timer = setTimeout(() => res('timeout'), HELLO_TIMEOUT_MS);
    });
    // Without events: ask the container's state now and then (only while it starts).
    const exited = died ?? this.pollExit(container, control.hello);
    try {
      const r = await Promise.race([
        control.hello.then(() => 'hello' as const),
        exited,
        timeout,
        this.halted.then(() => 'stopping' as const),
      ]);
      // Stopping (or removed under it by stop()): not the image's fault, and stop() is waiting for it.
      if (r === 'stopping' || this.stopping || this.dead)
        throw new Error('docker runner: the run is stopping');
      if (r === 'hello') return;
      if (r === 'timeout')
        throw new Error(
          `the endpoint relay of a container did not connect within ${HELLO_TIMEOUT_MS / 1000} s`,
        );
      if (r === undefined) return this.relayUp(container, control, undefined);
      const logs = await containerLogs(container);
      throw new RelayFailed(
        `the container's endpoint relay (\`node -e …\`) exited (code ${r}) in ${this.image}` +
          (logs ? `: ${logs}` : '') +
          '; the image must provide node',
      );
    } finally {
      clearTimeout(timer);
      this.events.forget(container.id);
    }
  }

  private async pollExit(container: Docker.Container, until: Promise<void>): Promise<number | null> {
    let done = false;
    void until.then(() => (done = true));
    for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
      await Promise.race([until, new Promise((res) => setTimeout(res, wait))]);
      if (done) return new Promise<never>(() => {});
      const info = await container.inspect();
      if (!info.State.Running) return info.State.ExitCode;
    }
  }

  /** Removes a used (or unneeded) container and its socket folder, in the background. */
  discard(slot: Slot): void {
    this.track(
      (async () => {
        slot.control.close();
        const t0 = performance.now();
        await this.removeContainer(slot.container.id);
        recordSpans('remove', new TrialSpans(), performance.now() - t0);
        await rm(slot.dir, { recursive: true, force: true }).catch(() => {});
      })(),
    );
  }

  private track(p: Promise<unknown>): void {
    const q = p.catch(() => {}).finally(() => this.pending.delete(q));
    this.pending.add(q);
  }

  /** Every stream to the daemon is registered, so stop() can close what a hung daemon left open. */
  trackStream = (s: NodeJS.ReadWriteStream): (() => void) => {
    this.streams.add(s);
    return () => this.streams.delete(s);
  };

  /** Daemon gone (or the run stopping) → infra_error, and every later trial too; else → spawn_error. */
  async classify(e: unknown, stage: string): Promise<Partial<ProcessOutcome>> {
    const msg = `docker ${stage}: ${errText(e)}`;
    if (this.stopping) return { infra_error: `${msg} (the run is stopping)` };
    if (isConnectionError(e) || stage !== 'create') {
      const pingOk = await this.ping(2_000).then(
        () => true,
        () => false,
      );
      if (!pingOk) this.dead = errText(e);
      return { infra_error: msg };
    }
    return { spawn_error: msg };
  }

  async removeContainer(id: string): Promise<void> {
    const ac = new AbortController();
    const t = setTimeout(() => ac.abort(), REMOVE_TIMEOUT_MS);
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true, abortSignal: ac.signal } as object);
      this.live.delete(id);
    } catch (e) {
      // Left in `live` unless already gone; stop() sweeps by label.
      if ((e as { statusCode?: number }).statusCode === 404) this.live.delete(id);
    } finally {
      clearTimeout(t);
    }
  }

  stop(): Promise<void> {
    this.halt();
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    const sp = new TrialSpans();
    const sweep = async () => {
      this.pool.drain();
      // Staged trials that will not run now (their containers are this runner's, removed below).
      for (const root of [...this.staged.keys()]) await this.release({ root } as TrialDirs);
      // A container still being made is discarded once made: its removal joins `pending` then.
      const t0 = performance.now();
      for (let i = 0; i < 3 && this.pending.size > 0; i++)
        await waitAtMost(Promise.allSettled([...this.pending]), REMOVE_TIMEOUT_MS);
      sp.add('stop:removals', t0, performance.now());
      // Every container this runner made is accounted for once none is live and every create answered:
      // the listing (slow on a loaded daemon) is only for what may exist unrecorded.
      if (this.live.size > 0 || this.unsure) await sp.time('stop:sweep', sweepRun(this.docker, this.runId));
      this.live.clear();
    };
    let failure: unknown;
    await waitAtMost(
      sweep().catch((e) => (failure = e)),
      STOP_BUDGET_MS,
    );
    if (failure || this.live.size > 0)
      this.warn(
        `docker runner: could not remove the resources of run ${this.runId} (${failure ? errText(failure) : 'timed out'}); ` +
          'the next run removes them, or now: ' +
          `docker rm -f $(docker ps -aq --filter label=${RUN_LABEL}=${this.runId})`,
      );
    if (this.tmpRoot) {
      const dir = this.tmpRoot;
      // Socket folders of containers that could not be removed stay for the next run's sweep.
      if (this.live.size === 0) {
        await rm(dir, { recursive: true, force: true }).catch(() => {});
        this.tmpRoot = undefined;
      } else if ((await readdir(dir).catch(() => [])).length === 0) this.tmpRoot = undefined;
    }
    // Nothing of ours may keep the process alive: every stream and socket to the daemon goes.
    for (const s of this.streams) (s as unknown as { destroy?: () => void }).destroy?.();
    this.streams.clear();
    this.events.close();
    this.conn.close();
    recordSpans('stop', sp);
    if (!this.hasResources()) active.delete(this);
  }

  /** Synchronous last-resort clean-up of host-side folders (process exit). */
  removeTmpSync(): void {
    if (this.tmpRoot) rmSync(this.tmpRoot, { recursive: true, force: true });
  }
}

/** The last lines a container wrote (why its main process exited), as text; empty when unreadable. */
async function containerLogs(container: Docker.Container): Promise<string> {
  const buf = (await container.logs({ stdout: true, stderr: true, tail: 20 }).catch(() => undefined)) as
    | Buffer
    | undefined;
  if (!buf) return '';
  // Multiplexed frames (8-byte headers) unless a TTY: keep the payloads.
  const parts: Buffer[] = [];
  for (let i = 0; i + 8 <= buf.length; ) {
    const len = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + len));
    i += 8 + len;
  }
  return Buffer.concat(parts)
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' | ')
    .slice(-500);
}
