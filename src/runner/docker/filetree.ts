// The trial folders inside the container: a size-capped tmpfs at /trial (so a 2 GB file stops at the
// cap inside the container, never on the host's disk), filled before the harness starts and copied back
// after it, with a byte and file budget. Both copies run the image's own `sh` and `tar` as the
// container's user (all capabilities are dropped, so only the owner of the files can read them all).
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import type { TrialDirs } from '../types.js';
import { execExit, runHelper, startExec, Tail, writeAll } from './exec.js';
import { PROBE_SH } from './limits.js';
import { relayCommand } from './network.js';
import { SANDBOX_PATHS, TRIAL_KEYS } from './options.js';
import type { TrialSpans } from './spans.js';
import { extractTree, packTree } from './tar.js';

type Track = (s: NodeJS.ReadWriteStream) => () => void;
const trialDirsOf = (dirs: Pick<TrialDirs, (typeof TRIAL_KEYS)[number]>) =>
  Object.fromEntries(TRIAL_KEYS.map((k) => [k, dirs[k]]));

/**
 * Copies the host trial folders into /trial and then starts the endpoint relay (one exec: the relay
 * replaces the shell once tar is done). Resolves when the relay listens; rejects naming what failed.
 */
export async function copyInAndRelay(
  container: Docker.Container,
  user: string,
  dirs: TrialDirs,
  ports: string[],
  track: Track,
  sp?: TrialSpans,
): Promise<void> {
  // No -p: busybox tar lacks it; the umask only clears group/other write bits, which no check reads.
  const script = `tar -xf - -C ${SANDBOX_PATHS.trial} || exit 97; exec "$@"`;
  const out = new Tail(4096);
  const err = new Tail(4096);
  let ready!: () => void;
  const isReady = new Promise<void>((res) => (ready = res));
  const s = await startExec(
    container,
    { cmd: ['/bin/sh', '-c', script, 'sh', ...relayCommand(ports)], user, stdin: true },
    (b) => {
      out.push(b);
      if (out.text().includes('ready\n')) ready();
    },
    (b) => err.push(b),
    track,
  );
  sp?.add('copy-in:exec-create', s.t[0], s.t[1]);
  sp?.add('copy-in:exec-start', s.t[1], s.t[2]);
  try {
    await (sp
      ? sp.time('copy-in:tar-write', writeAll(s.stream, packTree(trialDirsOf(dirs))))
      : writeAll(s.stream, packTree(trialDirsOf(dirs))));
    const tReady = performance.now();
    const timeout = new Promise<never>((_, rej) =>
      setTimeout(() => rej(new Error('timed out')), 60_000).unref(),
    );
    const exited = execExit(s, timeout).then((code) => ({ code }));
    const r = await Promise.race([isReady.then(() => undefined), exited]);
    sp?.add('copy-in:untar+relay-ready', tReady, performance.now());
    if (r) {
      const what =
        r.code === 97 ? 'cannot copy the trial folders in (tar)' : 'the endpoint relay did not start';
      throw new Error(`${what}: exit ${r.code}: ${(err.text() || out.text()).trim().slice(-500)}`);
    }
  } finally {
    // The relay keeps running; only our end of its output goes.
    (s.stream as unknown as { destroy?: () => void }).destroy?.();
  }
}

/**
 * Kills every process of the container's user (the harness, anything it left, the relay), reads which
 * limits were hit, and copies /trial back into the (emptied) host folders. `maxBytes` bounds the copy.
 */
export async function killAndCopyOut(
  container: Docker.Container,
  user: string,
  dirs: TrialDirs,
  budget: { maxBytes: number; maxEntries: number },
  track: Track,
  sp?: TrialSpans,
): Promise<{ probe: string; extracted?: Awaited<ReturnType<typeof extractTree>>; error?: Error }> {
  const script = [
    // kill(-1) reaches every process of this uid but the shell itself; repeat until none is left.
    'i=0; while kill -9 -1 2>/dev/null && [ $i -lt 200 ]; do i=$((i+1)); done',
    PROBE_SH,
    `chmod -R u+rwX ${SANDBOX_PATHS.trial} 2>/dev/null`,
    `cd ${SANDBOX_PATHS.trial} && exec tar -cf - ${TRIAL_KEYS.join(' ')}`,
  ].join('; ');
  const pass = new PassThrough({ highWaterMark: 1024 * 1024 });
  const err = new Tail(16 * 1024);
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

/** For a harness that cannot be exec'd at all: nothing ran, but the relay may; stop it. */
export async function killAll(container: Docker.Container, user: string, track: Track): Promise<void> {
  await runHelper(
    container,
    { cmd: ['/bin/sh', '-c', 'kill -9 -1 2>/dev/null; true'], user },
    track,
    10_000,
  ).catch(() => {});
}
