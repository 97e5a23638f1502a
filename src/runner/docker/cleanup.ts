// Nothing of a run outlives it. Every container and host folder of a run names its owner (host, pid and
// the pid's start time, plus the boot id): stop() and the SIGINT/SIGTERM handlers remove a run's own
// resources; a detached sweeper does it when the process exits first; and the sweep at the start of every
// run removes whatever belongs to an owner that is gone (a SIGKILLed run), whatever its age. Owners on
// another host (a shared daemon) cannot be checked: their leftovers go after an hour.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { BOOT_LABEL, OWNER_LABEL, ownerGone } from '../owner.js';
import { connect, errText, hostRun, sleep } from './daemon.js';
import { RUN_LABEL, STANDARD_PATH, socketFromEnv, TMP_PREFIX } from './options.js';

// Who owns a resource, and whether that owner is gone: one definition for every sweeper (runner/owner.ts).

export function shortTag(runId: string): string {
  return createHash('sha256').update(runId).digest('hex').slice(0, 10);
}

/**
 * Removes every container (and legacy network) labelled with this run id. One listing of each, side by
 * side, when nothing is left (the usual end of a run); listed again after removing something.
 */
export async function sweepRun(
  docker: Docker,
  runId: string,
): Promise<{ containers: number; networks: number }> {
  const filters = JSON.stringify({ label: [`${RUN_LABEL}=${runId}`] });
  const removed = { containers: 0, networks: 0 };
  const list = () =>
    Promise.all([docker.listContainers({ all: true, filters }), docker.listNetworks({ filters })]);
  let [containers, networks] = await list();
  let last = '';
  for (let attempt = 0; attempt < 4 && containers.length + networks.length > 0; attempt++) {
    if (attempt > 0) await sleep(250 * attempt);
    await Promise.all(
      containers.map((c) =>
        docker
          .getContainer(c.Id)
          .remove({ force: true, v: true })
          .then(() => removed.containers++)
          .catch(() => {}),
      ),
    );
    const errors: string[] = [];
    for (const n of networks) {
      await docker
        .getNetwork(n.Id)
        .remove()
        .then(() => removed.networks++)
        .catch((e) => {
          if ((e as { statusCode?: number }).statusCode !== 404) errors.push(`${n.Name}: ${errText(e)}`);
        });
    }
    [containers, networks] = await list();
    const left = containers.length + networks.length;
    last = left === 0 ? '' : errors.join('; ') || `${left} resource(s) still listed`;
  }
  if (last) throw new Error(`leftovers of run ${runId}: ${last}`);
  return removed;
}

/** Firewall chains of earlier versions of this runner (which made one per run), when their run is gone. */
async function sweepLegacyFirewall(liveTags: Set<string>): Promise<string[]> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return [];
  const r = await hostRun('iptables', ['-w', '-S']);
  if (r.code !== 0) return [];
  const gone: string[] = [];
  for (const m of r.stdout.matchAll(/^-N HR-([0-9a-f]{10})$/gm)) {
    const tag = m[1];
    if (liveTags.has(tag)) continue;
    for (let i = 0; i < 8; i++)
      if ((await hostRun('iptables', ['-w', '-D', 'INPUT', '-i', `hr-${tag}`, '-j', `HR-${tag}`])).code !== 0)
        break;
    await hostRun('iptables', ['-w', '-F', `HR-${tag}`]);
    await hostRun('iptables', ['-w', '-X', `HR-${tag}`]);
    for (let i = 0; i < 8; i++)
      if ((await hostRun('ip6tables', ['-w', '-D', 'INPUT', '-i', `hr-${tag}`, '-j', 'DROP'])).code !== 0)
        break;
    gone.push(`HR-${tag}`);
  }
  return gone;
}

/** A host folder of a run: its owner.json names the owner (older folders: the pid in the name). */
async function folderGone(dir: string, name: string): Promise<boolean> {
  const text = await readFile(path.join(dir, 'owner.json'), 'utf8').catch(() => undefined);
  if (text) {
    try {
      const o = JSON.parse(text) as { owner?: string; boot?: string };
      return ownerGone(o.owner, o.boot) === true;
    } catch {}
  }
  const pid = Number(new RegExp(`^${TMP_PREFIX}(\\d+)-`).exec(name)?.[1]);
  return pid > 0 && pid !== process.pid && ownerGone(`${os.hostname()}:${pid}`, undefined) === true;
}

/**
 * Removes leftovers of runs whose owner process is gone: containers and networks labelled
 * `harness-risk.run`, firewall chains of older versions, and host folders. Owners on another host:
 * only when older than `olderThanMs` (default 1 h). Runs in `spareRunIds` are never touched.
 */
export async function sweepStale(
  opts: { docker?: Docker; socketPath?: string; olderThanMs?: number; spareRunIds?: string[] } = {},
): Promise<{ containers: string[]; networks: string[]; folders: string[]; chains: string[] }> {
  const own = opts.docker ? undefined : connect(opts.socketPath ?? socketFromEnv());
  const docker = opts.docker ?? own!.docker;
  const cutoff = Date.now() - (opts.olderThanMs ?? 3_600_000);
  const spare = new Set(opts.spareRunIds ?? []);
  const removed = {
    containers: [] as string[],
    networks: [] as string[],
    folders: [] as string[],
    chains: [] as string[],
  };
  const stale = (labels: Record<string, string> | undefined, createdMs: number) => {
    if (!labels || spare.has(labels[RUN_LABEL] ?? '')) return false;
    const gone = ownerGone(labels[OWNER_LABEL], labels[BOOT_LABEL]);
    return gone ?? createdMs < cutoff;
  };
  try {
    const filters = JSON.stringify({ label: [RUN_LABEL] });
    for (const c of await docker.listContainers({ all: true, filters })) {
      if (!stale(c.Labels, c.Created * 1000)) continue;
      await docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .then(() => removed.containers.push(c.Id))
        .catch(() => {});
    }
    const liveTags = new Set<string>();
    for (const n of await docker.listNetworks({ filters })) {
      const runId = n.Labels?.[RUN_LABEL] ?? '';
      if (!stale(n.Labels, Date.parse(n.Created))) {
        liveTags.add(shortTag(runId));
        continue;
      }
      await docker
        .getNetwork(n.Id)
        .remove()
        .then(() => removed.networks.push(n.Name))
        .catch(() => liveTags.add(shortTag(runId)));
    }
    removed.chains = await sweepLegacyFirewall(liveTags);
  } finally {
    own?.close();
  }
  const tmp = os.tmpdir();
  for (const name of await readdir(tmp).catch(() => [] as string[])) {
    if (!name.startsWith(TMP_PREFIX)) continue;
    const dir = path.join(tmp, name);
    const st = await lstat(dir).catch(() => undefined);
    if (!st?.isDirectory() || !(await folderGone(dir, name))) continue;
    await rm(dir, { recursive: true, force: true }).catch(() => {});
    removed.folders.push(dir);
  }
  return removed;
}

// ---------------------------------------------------------------------------------------------------
// interrupts: once per process, for every live runner

export interface Stoppable {
  runId: string;
  socketPath: string;
  stop(): Promise<void>;
  hasResources(): boolean;
  removeTmpSync(): void;
}

export const active = new Set<Stoppable>();
let handlersInstalled = false;
/** SIGTERM/SIGINT → resources gone and, when nobody else handles the signal, dead of it within this. */
const SIGNAL_STOP_MS = 8_000;

/** A detached sweeper that outlives this process (used when the process exits before sweeping). */
const SWEEPER = `
const http = require('node:http');
const { sock, runs } = JSON.parse(process.argv[1]);
const call = (method, p) => new Promise((res) => {
  const r = http.request({ socketPath: sock, method, path: p, timeout: 10000 }, (s) => { let b = ''; s.on('data', (d) => (b += d)); s.on('end', () => res(b)); });
  r.on('error', () => res('[]')); r.on('timeout', () => { r.destroy(); res('[]'); }); r.end();
});
(async () => {
  for (const id of runs) {
    const f = encodeURIComponent(JSON.stringify({ label: ['${RUN_LABEL}=' + id] }));
    let cs = []; try { cs = JSON.parse(await call('GET', '/containers/json?all=1&filters=' + f)); } catch {}
    await Promise.all(cs.map((c) => call('DELETE', '/containers/' + c.Id + '?force=1&v=1')));
  }
})();
`;

export function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    const handler = () => {
      // Runs first (prepended): are there other handlers (the CLI's or the action's graceful stop)?
      const others = process.listenerCount(sig) > 1;
      const done = Promise.race([
        Promise.allSettled([...active].map((r) => r.stop())),
        new Promise((res) => setTimeout(res, SIGNAL_STOP_MS).unref()),
      ]);
      void done.finally(() => {
        // Someone else handles the signal: they decide when to exit (the run's resources are gone).
        if (others) return;
        // Nobody else does: die of it as if we had never listened.
        process.removeListener(sig, handler);
        process.kill(process.pid, sig);
      });
    };
    process.prependListener(sig, handler);
  }
  // Someone called process.exit() before the sweep finished: hand it to a detached sweeper.
  process.on('exit', () => {
    const left = [...active].filter((r) => r.hasResources());
    if (left.length === 0) return;
    for (const r of left) {
      try {
        r.removeTmpSync();
      } catch {}
    }
    try {
      const byDaemon = new Map<string, string[]>();
      for (const r of left) byDaemon.set(r.socketPath, [...(byDaemon.get(r.socketPath) ?? []), r.runId]);
      for (const [sock, runs] of byDaemon) {
        spawn(process.execPath, ['-e', SWEEPER, JSON.stringify({ sock, runs })], {
          detached: true,
          stdio: 'ignore',
          env: { PATH: STANDARD_PATH.join(':') },
        }).unref();
      }
    } catch {}
  });
}
