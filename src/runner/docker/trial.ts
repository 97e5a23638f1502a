// One trial in its container: take a started container (its relay already running), open the endpoint
// bridge, tell the relay the ports while the folders are copied in, exec the harness under the guard,
// kill whatever is left, read the limits and copy the folders back (while the host folders are emptied),
// discard the container. It sees the runner only through TrialHost (trial-host.ts).

import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { mark, sinceMs } from '../../elapsed.js';
import { TrialLimits, trialLimitMessage } from '../../evidence/limits.js';
import { findFileOfSize } from '../big-file.js';
import { EOF_EXIT_GRACE_MS, KILL_GRACE_MS, leftProcessLines, Tail } from '../shared.js';
import type { PolicedEnv, TrialLaunch } from '../types.js';
import { waitAtMost } from './daemon.js';
import { ending, execExit, guard, startExec, writeAll } from './exec.js';
import { copyIn, killAndCopyOut } from './filetree.js';
import { limitsHit, mergeFacts, parseProbe, ranProbe } from './limits.js';
import { EndpointBridge } from './network.js';
import { TRIAL_KEYS } from './options.js';
import type { Slot } from './pool.js';
import { recordSpans, type TrialSpans } from './spans.js';
import { TarLimitError } from './tar.js';
import type { DockerProcessOutcome, TrialHost } from './trial-host.js';

/** Copy-outs whose script could not start (a pids cgroup still full): the first retry raises the limit. */
const COPY_OUT_RETRIES = 4;

const FLUSH_MS = 500;

/** Room for the copy-back's shell and its kill loop beyond a pids limit the trial filled. */
const PIDS_MARGIN = 64;

async function raisePidsLimit(slot: Slot, pids: number): Promise<void> {
  await slot.container.update({ PidsLimit: pids + PIDS_MARGIN }).catch(() => undefined);
}

interface Io {
  out: Tail;
  err: Tail;
  startedAt: number;
}

function outcomeOf(io: Io, rest: Partial<DockerProcessOutcome>): DockerProcessOutcome {
  return {
    exit_code: null,
    signal: null,
    timed_out: false,
    duration_ms: sinceMs(io.startedAt),
    stdout: io.out.text(),
    stderr: io.err.text(),
    ...rest,
  };
}

async function emptyDir(dir: string): Promise<void> {
  for (const name of await readdir(dir)) await rm(path.join(dir, name), { recursive: true, force: true });
}

/** The policed environment as the daemon takes it (`NAME=value`); the engine policed it already. */
export const envBlock = (env: PolicedEnv): string[] => Object.entries(env).map(([k, v]) => `${k}=${v}`);

/** A trial made ready before its harness slot: its container, copied in, its endpoint bridged. */
export interface StagedTrial {
  slot: Slot;
  bridge: EndpointBridge;
  sp: TrialSpans;
}

/**
 * Everything before the harness: the checks, a started container, the endpoint bridge, the relay told
 * the ports and the folders copied in. Either the staged trial, or the outcome that ends it.
 */
export async function stageTrial(
  r: TrialHost,
  launch: TrialLaunch,
  sp: TrialSpans,
): Promise<StagedTrial | DockerProcessOutcome> {
  const io: Io = { out: new Tail(), err: new Tail(), startedAt: mark() };
  const fail = (rest: Partial<DockerProcessOutcome>) => outcomeOf(io, rest);
  const refused = r.refusal();
  if (refused) return fail(refused);
  if (launch.signal?.aborted) return fail({ infra_error: 'trial aborted before start' });
  if (launch.command.length === 0) return fail({ spawn_error: 'empty command' });
  // The one port the engine's endpoint listens on (the launch's `endpoint_port`): the only way out.
  const ports = [String(launch.endpoint_port)];
  const tDirs = performance.now();
  for (const k of TRIAL_KEYS) {
    const ok = await readdir(launch.dirs[k]).then(
      () => true,
      () => false,
    );
    if (!ok)
      return fail({ spawn_error: `docker runner: trial folder ${k} (${launch.dirs[k]}) does not exist` });
  }
  sp.add('check-dirs', tDirs, performance.now());
  let slot: Slot;
  try {
    const ro = await sp.time('ro-mounts', r.roMounts(launch.read_only, launch.hide));
    slot = await sp.time('take-slot', r.takeSlot(ro));
    for (const [name, a, b] of slot.made ?? []) sp.add(name, a, b);
  } catch (e) {
    return fail(await r.classify(e, 'create'));
  }
  let bridge: EndpointBridge | undefined;
  try {
    bridge = await sp.time('bridge', EndpointBridge.open(slot.dir, ports, launch.max_connections));
    // The relay (the container's main process, already up) and the copy-in do not depend on each other.
    await Promise.all([
      sp.time('relay-listen', slot.control.relay(ports)),
      sp.time('copy-in', copyIn(slot.container, r.user!, launch.dirs, r.trackStream, r.events, sp)),
    ]);
    return { slot, bridge, sp };
  } catch (e) {
    bridge?.close();
    r.discard(slot);
    return fail(await r.classify(e, 'prepare'));
  }
}

/** Gives up a staged trial that will not run (the run stopped while it waited for its slot). */
export function unstage(r: TrialHost, staged: StagedTrial): void {
  staged.bridge.close();
  r.discard(staged.slot);
}

/** The harness, the kill, the limits probe and the copy-back, in the staged trial's container. */
export async function runStaged(
  r: TrialHost,
  launch: TrialLaunch,
  staged: StagedTrial,
): Promise<DockerProcessOutcome> {
  const io: Io = { out: new Tail(), err: new Tail(), startedAt: mark() };
  try {
    return await runSpanned(r, launch, staged, io);
  } finally {
    recordSpans(launch.trial_id, staged.sp);
  }
}

async function runSpanned(
  r: TrialHost,
  launch: TrialLaunch,
  staged: StagedTrial,
  io: Io,
): Promise<DockerProcessOutcome> {
  const { slot, bridge, sp } = staged;
  try {
    if (r.stopping) return outcomeOf(io, { infra_error: 'docker runner: the run is stopping (interrupted)' });
    r.running.set(launch.dirs.root, slot);
    const result = await sp
      .time('harness', execHarness(r, slot, launch, io, sp))
      .finally(() => r.running.delete(launch.dirs.root));
    // The harness is gone: what follows (the kill, the probe, the copy-back) needs no harness slot.
    launch.harness_exited?.();
    if (result.infra_error && r.dead) return result;
    if (!r.readOnlyRootfs) result.container_changes = await changes(slot);
    // The host folders get exactly what the trial left in /trial (nothing of it runs any more); they are
    // emptied while the container kills what is left, probes the limits and packs /trial.
    const tOut = performance.now();
    const emptied = sp.time(
      'empty-host-dirs',
      Promise.all(TRIAL_KEYS.map((k) => emptyDir(launch.dirs[k]))).then(() => {}),
    );
    emptied.catch(() => {});
    const copyOut = () =>
      killAndCopyOut(
        slot.container,
        r.user!,
        launch.dirs,
        // The tmpfs holds at most `disk` bytes in `inodes` entries; tar adds a header (and a long name's pax
        // header) per entry: anything beyond did not come from /trial.
        { maxBytes: r.limits.disk + r.limits.inodes * 3072 + 1024 ** 2, maxEntries: r.limits.inodes },
        r.trackStream,
        emptied,
        sp,
      ).catch((e: Error) => ({ probe: '', error: e, extracted: undefined }));
    let copied = await copyOut();
    // The counters only grow, so what any attempt printed counts (a later one may not start at all).
    const probes = [copied.probe];
    // The process limit can still be full when the harness is gone (sleepers or a fork bomb it left fill
    // every slot), and the exec's own shell then cannot start: its script never ran (no `disk` line,
    // nothing packed). The container serves no other trial, so its limit is raised for the kill and the
    // copy-back: the shell gets a slot, kills everything, and the refusals counted before stay counted.
    for (let i = 0; i < COPY_OUT_RETRIES && !ranProbe(copied.probe); i++) {
      if (i === 0) await raisePidsLimit(slot, r.limits.pids);
      else await new Promise((ok) => setTimeout(ok, 250 * i));
      copied = await copyOut();
      probes.push(copied.probe);
    }
    sp.add('kill+probe+copy-back', tOut, performance.now());
    const left = probes.map(leftProcessLines).find((l) => l !== undefined);
    if (left) result.left_running = left;
    const tBig = performance.now();
    const facts = mergeFacts(probes.map(parseProbe));
    const limits = limitsHit(
      {
        ...facts,
        sigxfsz: result.signal === 'SIGXFSZ',
        bigFile: copied.error ? undefined : await findFileOfSize(launch.dirs, r.limits.fileSize),
      },
      r.limits,
    );
    sp.add('find-big-file', tBig, performance.now());
    if (bridge.dropped)
      limits.push(
        trialLimitMessage(
          'connections',
          TrialLimits.parse({ connections: launch.max_connections }),
          `${bridge.dropped} closed by the endpoint bridge`,
        ),
      );
    if (limits.length) result.limit_hit = limits.join('; ');
    if (copied.error) {
      const why =
        copied.error instanceof TarLimitError
          ? `docker runner: cannot copy the trial folders back: they hold ${copied.error.message}`
          : (await r.classify(copied.error, 'copy-back')).infra_error;
      return { ...interrupted(r, result), infra_error: why };
    }
    return interrupted(r, result);
  } finally {
    bridge?.close();
    r.discard(slot);
  }
}

async function changes(slot: Slot): Promise<DockerProcessOutcome['container_changes']> {
  const list = (await slot.container.changes().catch(() => null)) as { Path: string; Kind: number }[] | null;
  if (!list) return undefined;
  return list
    .filter((c) => !/^\/(trial|opt\/hr)(\/|$)/.test(c.Path))
    .map((c) => ({ path: c.Path, kind: c.Kind === 1 ? 'added' : c.Kind === 2 ? 'deleted' : 'modified' }));
}

/**
 * A trial that failed to start while the run was being stopped failed because of the stop (the sweep
 * removed its container mid-exec), whatever the daemon's message says: never the harness's fault.
 */
function interrupted(r: TrialHost, outcome: DockerProcessOutcome): DockerProcessOutcome {
  if (!r.stopping || !outcome.spawn_error || outcome.infra_error) return outcome;
  const { spawn_error, ...rest } = outcome;
  return { ...rest, infra_error: `the run was stopped (interrupted) during the trial: ${spawn_error}` };
}

async function execHarness(
  r: TrialHost,
  slot: Slot,
  launch: TrialLaunch,
  io: Io,
  sp: TrialSpans,
): Promise<DockerProcessOutcome> {
  const hasStdin = launch.stdin !== undefined;
  const listeners: ((b: Buffer) => void)[] = [];
  let s: Awaited<ReturnType<typeof startExec>>;
  try {
    io.startedAt = mark();
    s = await startExec(
      slot.container,
      {
        cmd: launch.command,
        user: r.user!,
        env: envBlock(launch.env),
        cwd: launch.cwd,
        stdin: hasStdin || !!launch.converse,
      },
      (b) => {
        io.out.push(b);
        for (const l of listeners) l(b);
      },
      (b) => io.err.push(b),
      r.trackStream,
      undefined,
      r.events,
    );
  } catch (e) {
    return outcomeOf(io, await r.classify(e, 'exec'));
  }
  sp.add('harness:exec-create', s.t[0], s.t[1]);
  sp.add('harness:exec-start', s.t[1], s.t[2]);
  const tRun = performance.now();
  void s.done.then(() => sp.add('harness:stream-end', tRun, performance.now()));
  if (hasStdin) void writeAll(s.stream, launch.stdin!).catch(() => {});
  const user = r.user!;
  const signalAll = (sig: string) => async () => {
    const k = await slot.container.exec({ Cmd: ['kill', `-${sig}`, '-1'], User: user });
    await k.start({ Detach: true });
  };
  const g = guard(r.docker, launch, signalAll('TERM'), signalAll('KILL'));
  g.arm();
  let exited = () => {};
  let stoppedAfterConversation = false;
  if (launch.converse)
    converseOver(
      s.stream,
      listeners,
      new Promise<void>((res) => (exited = res)),
      launch.converse,
      () => {
        stoppedAfterConversation = true;
        return signalAll('TERM')();
      },
      signalAll('KILL'),
    );
  try {
    let code: number | null;
    try {
      code = await execExit(s, g.failed);
    } catch (e) {
      return outcomeOf(io, { ...(await r.classify(e, 'wait')), timed_out: g.timedOut });
    }
    sp.add('harness:run-to-exit', tRun, performance.now());
    g.disarm();
    // A child the harness left holding its output open would hold this forever: the output that came
    // within a moment of the exit is the harness's (the child is killed before the copy-back).
    await sp.time('harness:flush', waitAtMost(s.flushed, FLUSH_MS));
    const text = io.out.text() + io.err.text();
    if (!g.killed && !g.aborted && (code === 126 || code === 127) && /OCI runtime exec failed/.test(text))
      return outcomeOf(io, { spawn_error: `docker exec: ${text.trim().slice(0, 500)}` });
    return outcomeOf(io, {
      ...(ending(g, code, r.stopping !== undefined) as Partial<DockerProcessOutcome>),
      ...(stoppedAfterConversation ? { stopped_after_conversation: true as const } : {}),
    });
  } finally {
    exited();
    g.disarm();
    (s.stream as unknown as { destroy?: () => void }).destroy?.();
  }
}

/**
 * The engine's side of the harness's stdio (protocol: acp) over the exec's attach stream: when it is
 * done, stdin is half-closed, and the harness is stopped if it has not exited within EOF_EXIT_GRACE_MS
 * (SIGTERM, then SIGKILL after KILL_GRACE_MS).
 */
function converseOver(
  stream: NodeJS.ReadWriteStream,
  listeners: ((b: Buffer) => void)[],
  exited: Promise<void>,
  talk: NonNullable<TrialLaunch['converse']>,
  term: () => Promise<unknown>,
  kill: () => Promise<unknown>,
): void {
  let over = false;
  void exited.then(() => {
    over = true;
  });
  const io = {
    write: (text: string) => {
      if (!over) stream.write(text);
    },
    onStdout: (l: (b: Buffer) => void) => listeners.push(l),
    exited,
  };
  void talk(io)
    .catch(() => {})
    .then(() => {
      if (over) return;
      (stream as unknown as { end(): void }).end();
      // SIGTERM after the grace, then SIGKILL (as the process runner's stop): an agent may ignore TERM.
      let hard: NodeJS.Timeout | undefined;
      const t = setTimeout(() => {
        void term().catch(() => {});
        hard = setTimeout(() => void kill().catch(() => {}), KILL_GRACE_MS);
      }, EOF_EXIT_GRACE_MS);
      void exited.then(() => {
        clearTimeout(t);
        clearTimeout(hard);
      });
    });
}
