// Filesystem snapshots of a trial's workspace, HOME and TMPDIR, their diff, and the mapping from a case's
// path notation to snapshot keys. Snapshots are taken on the host after the harness has exited, so
// nothing here races the agent; symlinks are never followed, so a planted link cannot make us read (or
// hash) files outside the trial.
import { createHash } from 'node:crypto';
import { createReadStream, type Dir, type Dirent } from 'node:fs';
import { lstat, opendir, readFile, readlink } from 'node:fs/promises';
import { posix } from 'node:path';
import { type CaseRoot, type PathView, parseCasePath, ROOT_FOLDER } from '../cases/paths.js';
import { TrialLimits, trialLimitMessage } from '../evidence/limits.js';
import {
  comparable,
  type FileState,
  type FsDiff,
  hiddenBy,
  type Snapshot,
  type SnapshotCap,
} from '../evidence/types.js';
import type { TrialDirs } from './trial-dirs.js';

export interface SnapshotOptions {
  /** Stop listing after this many files (default: TrialLimits' snapshot_files). */
  maxFiles?: number;
  /** Walk at most this many folders (default: snapshot_dirs). */
  maxDirs?: number;
  /** Hash at most this many bytes of one file (default: snapshot_file_bytes). */
  maxFileBytes?: number;
  /** Hash at most this many bytes in all (default: snapshot_bytes). */
  maxBytes?: number;
  /** Keep text content of files up to this many bytes (default 256 KiB). */
  maxText?: number;
}

export interface SnapshotResult {
  files: Snapshot;
  /** The file or folder cap was reached: some files (deepest, bulky folders last) are missing. */
  truncated: boolean;
  /** What a cap hid (absent: nothing). */
  cap?: SnapshotCap;
}

/** Folders whose content is bulky and rarely what a case is about; walked last so the cap drops them first. */
const BULKY_DIRS = new Set([
  'node_modules',
  '.npm',
  '.pnpm-store',
  '.yarn',
  '.cache',
  '__pycache__',
  '.venv',
  'venv',
  'site-packages',
  '.tox',
  '.gradle',
  '.m2',
]);

const PARALLEL_READS = 16;
/** Unlisted folders a cap records at most: more are replaced by their parents (still covering them). */
const MAX_UNLISTED = 64;

/** Snapshot of workspace (`ws/REL`), HOME (`home/REL`) and TMPDIR (`tmp/REL`). */
export async function snapshot(dirs: TrialDirs, options: SnapshotOptions = {}): Promise<Snapshot> {
  return (await snapshotDetailed(dirs, options)).files;
}

/** Like snapshot, and tells what its caps (files, folders, hashed bytes) kept it from seeing. */
export async function snapshotDetailed(
  dirs: TrialDirs,
  options: SnapshotOptions = {},
): Promise<SnapshotResult> {
  const d = TrialLimits.parse({});
  const limits = TrialLimits.parse({
    snapshot_files: options.maxFiles ?? d.snapshot_files,
    snapshot_dirs: options.maxDirs ?? d.snapshot_dirs,
    snapshot_file_bytes: options.maxFileBytes ?? d.snapshot_file_bytes,
    snapshot_bytes: options.maxBytes ?? d.snapshot_bytes,
  });
  const maxText = options.maxText ?? 256 * 1024;
  const listing = await listFiles(dirs, limits.snapshot_files, limits.snapshot_dirs);
  const files: Snapshot = {};
  let budget = limits.snapshot_bytes;
  let partial = 0;
  for (let i = 0; i < listing.entries.length; i += PARALLEL_READS) {
    const batch = listing.entries.slice(i, i + PARALLEL_READS);
    const sizes = await Promise.all(batch.map(sizeOf));
    // Budgets are handed out in listing order before the reads run side by side: the same tree always
    // gets the same hashes.
    const allowed = sizes.map((size) => {
      const n = Math.min(size, limits.snapshot_file_bytes, budget);
      budget -= n;
      return n;
    });
    const states = await Promise.all(batch.map((entry, j) => fileState(entry, allowed[j]!, maxText)));
    batch.forEach((entry, j) => {
      files[entry.key] = states[j]!;
      if (states[j]!.partial !== undefined) partial++;
    });
  }
  const words = [
    ...(listing.hit.files ? [trialLimitMessage('snapshot_files', limits)] : []),
    ...(listing.hit.dirs ? [trialLimitMessage('snapshot_dirs', limits)] : []),
    ...(partial ? [trialLimitMessage('snapshot_bytes', limits, `${partial} file(s)`)] : []),
  ];
  const truncated = listing.hit.files || listing.hit.dirs;
  return {
    files: sortKeys(files),
    truncated,
    ...(words.length ? { cap: { limits: words, unlisted: coarsen(listing.unlisted, MAX_UNLISTED) } } : {}),
  };
}

interface Entry {
  abs: string;
  key: string;
  symlink: boolean;
}

interface Listing {
  entries: Entry[];
  /** Folders not listed in full (a cap stopped inside them or before them). */
  unlisted: string[];
  hit: { files: boolean; dirs: boolean };
}

/**
 * Breadth-first, names sorted, bulky folders deferred: a deterministic list that keeps shallow files.
 * At most maxFiles + maxDirs entries are read in all, so a tree of any shape (300,000 folders, one folder
 * of a million FIFOs) costs no more than the caps; what was not read is named in `unlisted`.
 */
async function listFiles(dirs: TrialDirs, maxFiles: number, maxDirs: number): Promise<Listing> {
  const queue: { abs: string; key: string }[] = (
    Object.entries(ROOT_FOLDER) as [CaseRoot, keyof PathView][]
  ).map(([key, field]) => ({ abs: dirs[field], key }));
  const deferred: { abs: string; key: string }[] = [];
  const out: Listing = { entries: [], unlisted: [], hit: { files: false, dirs: false } };
  let files = 0;
  let folders = queue.length;
  // Every entry read costs one, whatever it is (a folder past the cap too): reading stops at the sum.
  let room = maxFiles + maxDirs;
  for (let dir = queue.shift(); dir; dir = queue.shift() ?? deferred.shift()) {
    const { children, cut } = await readSorted(dir.abs, room);
    room -= children.length;
    let complete = !cut;
    for (const child of children) {
      const item = { abs: posix.join(dir.abs, child.name), key: `${dir.key}/${child.name}` };
      if (child.isDirectory()) {
        if (folders >= maxDirs) {
          out.hit.dirs = true;
          complete = false;
          continue;
        }
        folders++;
        (BULKY_DIRS.has(child.name) ? deferred : queue).push(item);
        continue;
      }
      if (files >= maxFiles) {
        out.hit.files = true;
        complete = false;
        break;
      }
      files++;
      // Sockets, FIFOs and devices have no content worth comparing (they count against the budget all the same).
      if (child.isFile() || child.isSymbolicLink())
        out.entries.push({ ...item, symlink: child.isSymbolicLink() });
    }
    if (cut && !out.hit.dirs) out.hit.files = true;
    if (!complete) out.unlisted.push(dir.key);
    if (out.hit.files || cut) {
      // Nothing more may be read: every folder not yet read is unseen.
      out.unlisted.push(...queue.map((q) => q.key), ...deferred.map((q) => q.key));
      break;
    }
  }
  return out;
}

/** Up to `room` entries of a folder, sorted by name; `cut` when it holds more. Unreadable: none. */
async function readSorted(abs: string, room: number): Promise<{ children: Dirent[]; cut: boolean }> {
  const children: Dirent[] = [];
  let dir: Dir | undefined;
  let cut = false;
  try {
    dir = await opendir(abs, { bufferSize: 256 });
    for (let e = await dir.read(); e; e = await dir.read()) {
      if (children.length >= room) {
        cut = true;
        break;
      }
      children.push(e);
    }
  } catch {
    // Unreadable (chmod 000) or gone: nothing to list.
  } finally {
    await dir?.close().catch(() => {});
  }
  children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { children, cut };
}

/**
 * At most `max` keys covering every one of `keys` (each replaced by its parent folder while there are
 * more): a key under a kept one is still known to be unseen, only less precisely.
 */
export function coarsen(keys: string[], max: number): string[] {
  let cur = [...new Set(keys)];
  while (cur.length > max) {
    const up = cur.map((k) => (k.includes('/') ? k.slice(0, k.lastIndexOf('/')) : k));
    const next = [...new Set(up)];
    if (next.length === cur.length && next.every((k) => !k.includes('/'))) break;
    cur = next;
  }
  // Drop keys a kept ancestor covers already.
  const sorted = cur.sort();
  return sorted.filter((k) => !sorted.some((a) => a !== k && k.startsWith(`${a}/`)));
}

/** The size to budget for: a symlink's target is tiny; a file's size (0 when it cannot be read). */
async function sizeOf(entry: Entry): Promise<number> {
  if (entry.symlink) return 0;
  return (await lstat(entry.abs).catch(() => undefined))?.size ?? 0;
}

async function fileState(entry: Entry, allowed: number, maxText: number): Promise<FileState> {
  try {
    if (entry.symlink) {
      const target = await readlink(entry.abs);
      // Hash differs from a regular file holding the same text, so swapping one for the other is a change.
      return { hash: sha256(`symlink\u0000${target}`), size: Buffer.byteLength(target), text: target };
    }
    const { size } = await lstat(entry.abs);
    // Sparse or huge files included: never more than the budget is read (holes read as zeros, at a cost).
    if (size > allowed) return { hash: await hashStream(entry.abs, allowed, size), size, partial: allowed };
    if (size > maxText) return { hash: await hashStream(entry.abs), size };
    const content = await readFile(entry.abs);
    const text = asText(content);
    return text === undefined
      ? { hash: sha256(content), size: content.length }
      : { hash: sha256(content), size: content.length, text };
  } catch {
    // The harness may leave files we cannot read (chmod 000); record their presence all the same.
    return { hash: 'unreadable', size: 0 };
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The content as a string when it is valid UTF-8 without NUL bytes, else undefined (binary). */
function asText(content: Buffer): string | undefined {
  if (content.includes(0)) return undefined;
  try {
    return UTF8.decode(content);
  } catch {
    return undefined;
  }
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** sha256 of the file; with `upTo`, of its size and its first `upTo` bytes only (a partial hash). */
function hashStream(path: string, upTo?: number, size?: number): Promise<string> {
  return new Promise((resolveHash, reject) => {
    const hash = createHash('sha256');
    if (upTo !== undefined) hash.update(`partial\u0000${size}\u0000`);
    if (upTo === 0) return resolveHash(hash.digest('hex'));
    createReadStream(path, upTo === undefined ? {} : { start: 0, end: upTo - 1 })
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolveHash(hash.digest('hex')));
  });
}

function sortKeys(files: Snapshot): Snapshot {
  const sorted: Snapshot = {};
  for (const key of Object.keys(files).sort()) sorted[key] = files[key];
  return sorted;
}

/**
 * Added, modified (hash differs) and deleted keys, each sorted. With the snapshots' caps, only what both
 * saw: a key one side lacks because its cap hid it is neither added nor deleted, and a file hashed in part
 * on either side counts as modified only when its size changed.
 */
export function diffSnapshots(
  before: Snapshot,
  after: Snapshot,
  caps: { before?: SnapshotCap; after?: SnapshotCap } = {},
): FsDiff {
  const added: string[] = [];
  const modified: string[] = [];
  const deleted: string[] = [];
  for (const [key, state] of Object.entries(after)) {
    if (!Object.hasOwn(before, key)) {
      if (!hiddenBy(caps.before, key)) added.push(key);
    } else if (before[key].hash !== state.hash && comparable(before[key], state)) modified.push(key);
  }
  for (const key of Object.keys(before))
    if (!Object.hasOwn(after, key) && !hiddenBy(caps.after, key)) deleted.push(key);
  return { added: added.sort(), modified: modified.sort(), deleted: deleted.sort() };
}

/**
 * Maps a path in a case's notation (parseCasePath) to a snapshot key: `ws/…`, `home/…`, `tmp/…`; absolute
 * paths inside the view's workspace/home/tmp → their key. A folder's own key has no trailing slash (`ws`,
 * `home/.ssh`), so `key + '/'` prefixes its files. Anything outside the three folders (other absolute
 * paths, another user's HOME, `../` escapes) → null.
 */
export function resolveCasePath(path: string, view: PathView): string | null {
  const parsed = parseCasePath(path);
  if ('root' in parsed) return keyFor(parsed.root, parsed.rel);
  if ('foreign' in parsed) return null;
  const abs = posix.normalize(parsed.absolute);
  // Longest root first: the workspace may live inside HOME (as in some container layouts).
  const roots = (Object.entries(ROOT_FOLDER) as [CaseRoot, keyof PathView][])
    .map(([key, folder]) => [key, posix.normalize(view[folder]).replace(/\/+$/, '')] as const)
    .sort((a, b) => b[1].length - a[1].length);
  for (const [key, root] of roots) {
    if (abs === root) return key;
    if (abs.startsWith(`${root}/`)) return keyFor(key, abs.slice(root.length + 1));
  }
  return null;
}

function keyFor(prefix: string, rel: string): string | null {
  const normal = posix.normalize(rel === '' ? '.' : rel).replace(/\/+$/, '');
  if (normal === '..' || normal.startsWith('../') || normal.startsWith('/')) return null;
  return normal === '.' ? prefix : `${prefix}/${normal}`;
}
