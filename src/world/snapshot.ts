// Filesystem snapshots of a trial's workspace, HOME and TMPDIR, their diff, and the mapping from a case's
// path notation to snapshot keys. Snapshots are taken on the host after the harness has exited, so
// nothing here races the agent; symlinks are never followed, so a planted link cannot make us read (or
// hash) files outside the trial.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { posix } from 'node:path';
import { type CaseRoot, type PathView, parseCasePath, ROOT_FOLDER } from '../cases/paths.js';
import type { FileState, FsDiff, Snapshot } from '../evidence/types.js';
import type { TrialDirs } from '../runner/types.js';

export interface SnapshotOptions {
  /** Stop after this many files (default 20 000). */
  maxFiles?: number;
  /** Keep text content of files up to this many bytes (default 256 KiB). */
  maxText?: number;
}

export interface SnapshotResult {
  files: Snapshot;
  /** The file cap was reached: some files (deepest, bulky folders last) are missing. */
  truncated: boolean;
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

/** Snapshot of workspace (`ws/REL`), HOME (`home/REL`) and TMPDIR (`tmp/REL`). */
export async function snapshot(dirs: TrialDirs, options: SnapshotOptions = {}): Promise<Snapshot> {
  return (await snapshotDetailed(dirs, options)).files;
}

/** Like snapshot, and tells whether the file cap cut it short. */
export async function snapshotDetailed(
  dirs: TrialDirs,
  options: SnapshotOptions = {},
): Promise<SnapshotResult> {
  const maxFiles = options.maxFiles ?? 20_000;
  const maxText = options.maxText ?? 256 * 1024;
  const { entries, truncated } = await listFiles(dirs, maxFiles);
  const files: Snapshot = {};
  for (let i = 0; i < entries.length; i += PARALLEL_READS) {
    const batch = entries.slice(i, i + PARALLEL_READS);
    const states = await Promise.all(batch.map((entry) => fileState(entry, maxText)));
    batch.forEach((entry, j) => {
      files[entry.key] = states[j];
    });
  }
  return { files: sortKeys(files), truncated };
}

interface Entry {
  abs: string;
  key: string;
  symlink: boolean;
}

/** Breadth-first, names sorted, bulky folders deferred: a deterministic list that keeps shallow files. */
async function listFiles(
  dirs: TrialDirs,
  maxFiles: number,
): Promise<{ entries: Entry[]; truncated: boolean }> {
  const queue: { abs: string; key: string }[] = (
    Object.entries(ROOT_FOLDER) as [CaseRoot, keyof PathView][]
  ).map(([key, field]) => ({ abs: dirs[field], key }));
  const deferred: { abs: string; key: string }[] = [];
  const entries: Entry[] = [];
  for (let dir = queue.shift(); dir; dir = queue.shift() ?? deferred.shift()) {
    const children = await readdir(dir.abs, { withFileTypes: true }).catch(() => []);
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      const item = { abs: posix.join(dir.abs, child.name), key: `${dir.key}/${child.name}` };
      if (child.isDirectory()) (BULKY_DIRS.has(child.name) ? deferred : queue).push(item);
      else if (child.isFile() || child.isSymbolicLink()) {
        if (entries.length >= maxFiles) return { entries, truncated: true };
        entries.push({ ...item, symlink: child.isSymbolicLink() });
      }
      // Sockets, FIFOs and devices have no content worth comparing.
    }
  }
  return { entries, truncated: false };
}

async function fileState(entry: Entry, maxText: number): Promise<FileState> {
  try {
    if (entry.symlink) {
      const target = await readlink(entry.abs);
      // Hash differs from a regular file holding the same text, so swapping one for the other is a change.
      return { hash: sha256(`symlink\u0000${target}`), size: Buffer.byteLength(target), text: target };
    }
    const { size } = await lstat(entry.abs);
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

function hashStream(path: string): Promise<string> {
  return new Promise((resolveHash, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
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

/** Added, modified (hash differs) and deleted keys, each sorted. */
export function diffSnapshots(before: Snapshot, after: Snapshot): FsDiff {
  const added: string[] = [];
  const modified: string[] = [];
  const deleted: string[] = [];
  for (const [key, state] of Object.entries(after)) {
    if (!Object.hasOwn(before, key)) added.push(key);
    else if (before[key].hash !== state.hash) modified.push(key);
  }
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) deleted.push(key);
  return { added: added.sort(), modified: modified.sort(), deleted: deleted.sort() };
}

export type { PathView };

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
