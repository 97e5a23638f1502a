// The case path notation, in one place: the scripted model (which turns a case path into the path it
// asks the harness to touch), the world (which writes a case's files) and the scorer (which looks the
// path up in the snapshots) all read paths with this parser, so a path means the same file to all three.
import { posix } from 'node:path';

/** The trial folder a case path lives in: the workspace, HOME or TMPDIR (also the snapshot key prefixes). */
export type CaseRoot = 'ws' | 'home' | 'tmp';

export type ParsedCasePath =
  /** Inside one of the trial's folders; `rel` is as written ('' for the folder itself), not normalized. */
  | { root: CaseRoot; rel: string }
  /** An absolute path: inside the trial only if it lies under one of the folders as some party sees them. */
  | { absolute: string }
  /** `~user/…`: another user's HOME, never the trial's. */
  | { foreign: string };

// `~`, `$HOME`, `${HOME}` name HOME; `$TMP`, `$TMPDIR` and their braced forms name TMPDIR.
const PREFIXED = /^(~|\$HOME|\$\{HOME\}|\$TMPDIR|\$\{TMPDIR\}|\$TMP|\$\{TMP\})(?:\/(.*))?$/s;

/**
 * Relative paths are inside the workspace; `~/…`, `$HOME/…`, `${HOME}/…` inside HOME; `$TMP/…`,
 * `$TMPDIR/…` (braced or not) inside TMPDIR; absolute paths are left as they are.
 */
export function parseCasePath(path: string): ParsedCasePath {
  const trimmed = path.trim();
  const prefixed = PREFIXED.exec(trimmed);
  if (prefixed) return { root: prefixed[1].includes('TMP') ? 'tmp' : 'home', rel: prefixed[2] ?? '' };
  if (trimmed.startsWith('~')) return { foreign: trimmed };
  if (trimmed.startsWith('/')) return { absolute: trimmed };
  return { root: 'ws', rel: trimmed };
}

/** The trial's folders as some party sees them (host paths, or the paths inside the sandbox). */
export interface PathView {
  workspace: string;
  home: string;
  tmp: string;
}

export const ROOT_FOLDER: Record<CaseRoot, keyof PathView> = { ws: 'workspace', home: 'home', tmp: 'tmp' };

/** The absolute path a case path names, as the given party sees the trial's folders. */
export function absoluteCasePath(path: string, view: PathView): string {
  const parsed = parseCasePath(path);
  if ('root' in parsed) return posix.join(view[ROOT_FOLDER[parsed.root]], parsed.rel);
  return 'absolute' in parsed ? parsed.absolute : parsed.foreign;
}

/**
 * What is wrong with a `world.files` (root `ws`) or `world.home_files` (root `home`) key, if anything: it
 * must name a file inside that folder. Checked when the case loads, so a path that would leave the trial
 * (`../../x`, `/etc/x`) is the author's error with the field named, not an "infrastructure" failure of
 * every trial.
 */
export function worldPathProblem(key: string, root: 'ws' | 'home'): string | undefined {
  const field = root === 'ws' ? 'world.files' : 'world.home_files';
  const folder = root === 'ws' ? 'the workspace' : 'HOME';
  if (key.trim() === '') return `${field}: an empty path names no file`;
  if (key.includes('\0')) return `${field}: "${key}" holds a NUL byte`;
  const parsed = parseCasePath(key);
  if ('absolute' in parsed)
    return `${field}: "${key}" is an absolute path; write a path relative to ${folder}${root === 'home' ? ' (e.g. .bashrc or ~/.bashrc)' : ''}`;
  if ('foreign' in parsed)
    return `${field}: "${key}" is another user's HOME; write a path relative to ${folder}`;
  if (parsed.root === 'tmp')
    return `${field}: "${key}" is in TMPDIR, which a world does not fill; write a path relative to ${folder}`;
  if (root === 'ws' && parsed.root === 'home')
    return `${field}: "${key}" is not in the workspace; put it in world.home_files as ${parsed.rel || '.'}`;
  const rel = parsed.rel;
  const norm = posix.normalize(rel.replace(/\\/g, '/'));
  if (norm === '.' || norm === '' || norm.endsWith('/'))
    return `${field}: "${key}" names ${folder} itself or a folder, not a file`;
  if (norm === '..' || norm.startsWith('../'))
    return `${field}: "${key}" leaves ${folder}; every world file must stay inside the trial`;
  return undefined;
}
