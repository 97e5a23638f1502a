// The trial folders inside the container: a size-capped tmpfs at /trial (so a 2 GB file stops at the
// cap inside the container, never on the host's disk), filled before the harness starts and copied back
// after it, with a byte and file budget. Both copies run the image's own `sh` and `tar` as the
// container's user (all capabilities are dropped, so only the owner of the files can read them all).
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import type { TrialDirs } from '../../world/trial-dirs.js';
import { LEFT_RUNNING_SH, Tail } from '../shared.js';
import type { RunEvents } from './events.js';
import { execExit, startExec, writeAll } from './exec.js';
import { PROBE_SH } from './limits.js';
import { SANDBOX_PATHS, TRIAL_KEYS } from './options.js';
import type { TrialSpans } from './spans.js';
import { extractTree, packTree, prefetch } from './tar.js';

type Track = (s: NodeJS.ReadWriteStream) => () => void;
/** How much of the packed trial folders may be read ahead while the copy-in's exec starts. */
const PREFETCH_BYTES = 8 * 1024 * 1024;
const trialDirsOf = (dirs: Pick<TrialDirs, (typeof TRIAL_KEYS)[number]>) =>
  Object.fromEntries(TRIAL_KEYS.map((k) => [k, dirs[k]]));

/** Copies the host trial folders into /trial (the image's tar, as the trial's user); rejects naming why not. */
export async function copyIn(
  container: Docker.Container,
  user: string,
  dirs: TrialDirs,
  track: Track,
  events?: RunEvents,
  sp?: TrialSpans,
): Promise<void> {
  // No -p: busybox tar lacks it; the umask only clears group/other write bits, which no check reads.
  const packed = prefetch(packTree(trialDirsOf(dirs)), PREFETCH_BYTES);
  const err = new Tail(4096);
  const s = await startExec(
    container,
    { cmd: ['tar', '-xf', '-', '-C', SANDBOX_PATHS.trial], user, stdin: true },
    (b) => err.push(b),
    (b) => err.push(b),
    track,
    undefined,
    events,
  );
  sp?.add('copy-in:exec-create', s.t[0], s.t[1]);
  sp?.add('copy-in:exec-start', s.t[1], s.t[2]);
  try {
    const tw = performance.now();
    await writeAll(s.stream, packed);
    sp?.add('copy-in:tar-write', tw, performance.now());
    const tx = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, rej) => {
      timer = setTimeout(() => rej(new Error('timed out after 60 s')), 60_000);
    });
    timeout.catch(() => {});
    const code = await execExit(s, timeout).finally(() => clearTimeout(timer));
    sp?.add('copy-in:untar-exit', tx, performance.now());
    if (code !== 0)
      throw new Error(
        `cannot copy the trial folders in (tar): exit ${code}: ${err.text().trim().slice(-500)}`,
      );
  } finally {
    (s.stream as unknown as { destroy?: () => void }).destroy?.();
  }
}

/**
 * Kills every process of the container's user (the harness and anything it left), reads which limits
 * were hit, and copies /trial back into the host folders once `emptied` says they are empty (emptying
 * them runs while the container kills, probes and packs). `maxBytes` bounds the copy.
 */
export async function killAndCopyOut(
  container: Docker.Container,
  user: string,
  dirs: TrialDirs,
  budget: { maxBytes: number; maxEntries: number },
  track: Track,
  emptied: Promise<void>,
  sp?: TrialSpans,
): Promise<{ probe: string; extracted?: Awaited<ReturnType<typeof extractTree>>; error?: Error }> {
  const script = [
    // First what the harness left running (evidence: runner/shared.ts), then the kill.
    LEFT_RUNNING_SH,
    // kill(-1) reaches every process of this uid but the shell itself; repeat until none is left.
    'i=0; while kill -9 -1 2>/dev/null && [ $i -lt 200 ]; do i=$((i+1)); done',
    PROBE_SH,
    `chmod -R u+rwX ${SANDBOX_PATHS.trial} 2>/dev/null`,
    `cd ${SANDBOX_PATHS.trial} && exec tar -cf - ${TRIAL_KEYS.join(' ')}`,
  ].join('; ');
  const pass = new PassThrough({ highWaterMark: 1024 * 1024 });
  // Room for the left-running list (64 lines of up to ~310 bytes) and the probe's lines.
  const err = new Tail(64 * 1024);
  const s = await startExec(
    container,
    { cmd: ['/bin/sh', '-c', script], user },
    (b) => pass.write(b),
    (b) => err.push(b),
    track,
    (resume) => pass.once('drain', resume),
  );
  sp?.add('copy-back:exec-create', s.t[0], s.t[1]);
  sp?.add('copy-back:exec-start', s.t[1], s.t[2]);
  void s.flushed.then(() => pass.end());
  const tX = performance.now();
  let extracted: Awaited<ReturnType<typeof extractTree>> | undefined;
  let error: Error | undefined;
  try {
    await emptied;
    extracted = await extractTree(pass, trialDirsOf(dirs), budget);
    sp?.add('copy-back:kill+probe+tar+extract', tX, performance.now());
  } catch (e) {
    error = e as Error;
  } finally {
    (s.stream as unknown as { destroy?: () => void }).destroy?.();
    pass.destroy();
  }
  return { probe: err.text(), extracted, error };
}
