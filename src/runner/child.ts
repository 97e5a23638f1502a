// The host side of a trial's processes under the process runner: signalling a whole tree (a setsid
// daemon leaves the group), handing the trial folders to the sandbox uid, spawn failures in words, and the
// stdio a launch needs.
import type { StdioOptions } from 'node:child_process';
import { existsSync, lchownSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TrialDirs } from '../world/trial-dirs.js';
import { killQuietly } from './shared.js';
import type { TrialLaunch } from './types.js';

/** Signals the process group of `pid` and every descendant (a setsid daemon leaves the group). */
export function killTree(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  for (const p of descendants(pid)) killQuietly(p, signal);
  killQuietly(-pid, signal);
  killQuietly(pid, signal);
}

/** Host pids below `root`, read from /proc (children before the parent is signalled would re-parent). */
function descendants(root: number): number[] {
  const kids = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = kids.get(ppid) ?? [];
      list.push(Number(name));
      kids.set(ppid, list);
    } catch {}
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of kids.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** Gives a folder and everything under it to uid:gid; lstat: never follows a link out of it. */
export function chownTreeSync(path: string, uid: number, gid: number): void {
  lchownSync(path, uid, gid);
  if (!lstatSync(path).isDirectory()) return;
  for (const e of readdirSync(path)) chownTreeSync(join(path, e), uid, gid);
}

/**
 * Hands the trial folders to the sandbox uid (root mode: the engine wrote the world files as root).
 * Synchronous: a world is tens of files, and an awaited lchown + lstat per file was 10-20 ms of thread-pool
 * round trips on the first trial's way to its harness.
 */
export async function chownTree(dirs: TrialDirs, uid: number, gid: number): Promise<void> {
  for (const d of [dirs.workspace, dirs.home, dirs.tmp, dirs.bin]) chownTreeSync(d, uid, gid);
}

/**
 * A spawn failure in words: Node says ENOENT both for a command that does not exist and for a cwd that
 * does not exist, and the fixes are in different fields of the adapter.
 */
export function spawnErrorText(e: NodeJS.ErrnoException, exe: string, cwd?: string): string {
  if (e.code !== 'ENOENT') return e.message;
  if (cwd !== undefined && !existsSync(cwd))
    return `launch.cwd ${cwd} does not exist in the trial (set launch.cwd to a folder that exists, e.g. {{workspace}})`;
  return `command not found: ${exe}`;
}

/** Calls `onLine` with each whole line `stream` sends (the sandbox init's status lines). */
export function eachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buf = '';
  stream.on('data', (b: Buffer | string) => {
    buf += b.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      onLine(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  stream.on('error', () => {});
}

/** stdin only when something is written to it; fd 3 only for a sandbox init's status lines. */
export function stdioOf(launch: TrialLaunch, status: boolean): StdioOptions {
  return [
    launch.stdin === undefined && !launch.converse ? 'ignore' : 'pipe',
    'pipe',
    'pipe',
    status ? 'pipe' : 'ignore',
  ];
}
