// One cgroup per trial for memory and pids: a limit for everything the trial starts (not per process,
// like an rlimit), and a counter that says afterwards whether the limit was hit. cgroup v1 (separate
// memory and pids hierarchies) and v2 (one unified hierarchy) both exist on the machines we run on;
// the trial's cgroups are made under the engine's own, so limits set above us still apply.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '../shared.js';
import type { Limits } from './limits.js';

const ROOT = '/sys/fs/cgroup';

export interface CgroupPlan {
  version: 'v1' | 'v2';
  /** v1: the engine's memory and pids cgroups; v2: the engine's unified cgroup (twice). */
  memoryParent: string;
  pidsParent: string;
}

/** The engine's own cgroup path per controller, from /proc/self/cgroup (`ID:CONTROLLERS:PATH`). */
function ownPaths(): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n')) {
    const [, ctrls, path] = line.split(/:(.*?):/) as [string, string, string];
    for (const c of (ctrls || '').split(',')) m.set(c, path ?? '/');
  }
  return m;
}

const writable = async (dir: string): Promise<boolean> => {
  const probe = join(dir, `hr-probe-${process.pid}`);
  try {
    await mkdir(probe);
    await rmdir(probe);
    return true;
  } catch {
    return false;
  }
};

/** Where trial cgroups can be made, or undefined (not root, no delegation, controllers missing). */
export async function planCgroups(): Promise<CgroupPlan | undefined> {
  let own: Map<string, string>;
  try {
    own = ownPaths();
  } catch {
    return undefined;
  }
  // v1: separate hierarchies mounted at /sys/fs/cgroup/{memory,pids}.
  const mem = own.get('memory');
  const pids = own.get('pids');
  if (mem !== undefined && pids !== undefined && existsSync(join(ROOT, 'memory', 'memory.limit_in_bytes'))) {
    const memoryParent = join(ROOT, 'memory', mem);
    const pidsParent = join(ROOT, 'pids', pids);
    if ((await writable(memoryParent)) && (await writable(pidsParent)))
      return { version: 'v1', memoryParent, pidsParent };
  }
  // v2: children of our cgroup get memory and pids only if our cgroup delegates them (subtree_control);
  // we cannot turn that on ourselves while processes live in our cgroup (the no-internal-process rule).
  const unified = own.get('');
  const v2root = existsSync(join(ROOT, 'cgroup.controllers')) ? ROOT : join(ROOT, 'unified');
  if (unified !== undefined && existsSync(join(v2root, 'cgroup.controllers'))) {
    const parent = join(v2root, unified);
    try {
      const sub = (await readFile(join(parent, 'cgroup.subtree_control'), 'utf8')).split(/\s+/);
      if (sub.includes('memory') && sub.includes('pids') && (await writable(parent)))
        return { version: 'v2', memoryParent: parent, pidsParent: parent };
    } catch {
      // no v2 delegation here
    }
  }
  return undefined;
}

export interface TrialCgroup {
  /** Folders whose cgroup.procs the trial's first process writes itself into. */
  procsFiles: string[];
  /** Which limit the kernel enforced, read after the trial. */
  hits(): Promise<{ memory: boolean; pids: boolean }>;
  /** SIGKILLs what is left in it and removes it. */
  remove(): Promise<void>;
}

const count = (text: string, key: string): number => {
  const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
};

export async function createTrialCgroup(
  plan: CgroupPlan,
  name: string,
  limits: Limits,
): Promise<TrialCgroup> {
  const mem = join(plan.memoryParent, name);
  const pids = join(plan.pidsParent, name);
  const dirs = [...new Set([mem, pids])];
  // Synchronous: a handful of kernel pseudo-files, microseconds each, on the trial's way to its harness;
  // as promises each was a thread-pool round trip (10-20 ms in all for the first trial under load).
  const tryWrite = (f: string, v: string) => {
    try {
      writeFileSync(f, v);
    } catch {}
  };
  for (const d of dirs) mkdirSync(d);
  if (plan.version === 'v1') {
    writeFileSync(join(mem, 'memory.limit_in_bytes'), String(limits.memory_bytes));
    // Without swap accounting this file is missing; with it, swap must not extend the limit.
    tryWrite(join(mem, 'memory.memsw.limit_in_bytes'), String(limits.memory_bytes));
    writeFileSync(join(pids, 'pids.max'), String(limits.pids));
  } else {
    writeFileSync(join(mem, 'memory.max'), String(limits.memory_bytes));
    tryWrite(join(mem, 'memory.swap.max'), '0');
    writeFileSync(join(mem, 'pids.max'), String(limits.pids));
  }
  const read = (f: string) => readFile(f, 'utf8').catch(() => '');
  return {
    procsFiles: dirs.map((d) => join(d, 'cgroup.procs')),
    async hits() {
      const memText =
        plan.version === 'v1'
          ? await read(join(mem, 'memory.oom_control'))
          : await read(join(mem, 'memory.events'));
      const pidsText = await read(join(pids, 'pids.events'));
      return { memory: count(memText, 'oom_kill') > 0, pids: count(pidsText, 'max') > 0 };
    },
    async remove() {
      // The pid namespace is gone by now; this is for a process that escaped it (there should be none).
      for (let i = 0; i < 50; i++) {
        let left = 0;
        for (const d of dirs) {
          const procs = (await read(join(d, 'cgroup.procs'))).split('\n').filter(Boolean);
          left += procs.length;
          for (const p of procs) {
            try {
              process.kill(Number(p), 'SIGKILL');
            } catch {}
          }
        }
        if (left === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const d of dirs) await rmdir(d).catch(() => {});
    },
  };
}

/** Removes trial cgroups (`hr-PID-N`) whose engine is gone; returns how many. */
export async function sweepCgroups(plan: CgroupPlan): Promise<number> {
  let n = 0;
  for (const parent of new Set([plan.memoryParent, plan.pidsParent])) {
    for (const name of await readdir(parent).catch(() => [] as string[])) {
      const m = /^hr-(\d+)-\d+$/.exec(name);
      if (!m || processAlive(Number(m[1]))) continue;
      const dir = join(parent, name);
      const procs = (await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => ''))
        .split('\n')
        .filter(Boolean);
      for (const p of procs) {
        try {
          process.kill(Number(p), 'SIGKILL');
        } catch {}
      }
      await new Promise((r) => setTimeout(r, procs.length ? 50 : 0));
      if (
        await rmdir(dir).then(
          () => true,
          () => false,
        )
      )
        n++;
    }
  }
  return n;
}
