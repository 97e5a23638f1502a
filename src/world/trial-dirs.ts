// The trial's folders on the host: ROOT/{workspace,home,tmp,bin}, private to the current user, plus the
// world files and the `svc` shim. Everything a case names is kept inside its folder.
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseCasePath } from '../cases/paths.js';

/** The trial's folders on the host. */
export interface TrialDirs {
  root: string;
  workspace: string;
  home: string;
  tmp: string;
  /** Holds the `svc` CLI and other helpers put on the harness's PATH. */
  bin: string;
}

const PRIVATE = 0o700;

/** The engine's trial folders are `trial-<random>`: opaque, so a harness reading its path learns no case. */
export const TRIAL_DIR_PREFIX = 'trial';

/**
 * Creates a fresh, unique trial root under `baseDir` (created if missing) with its four folders, named
 * `prefix-<random>`. The engine's prefix names no case (the harness can read its own path).
 */
export async function createTrialDirs(baseDir: string, prefix: string): Promise<TrialDirs> {
  await mkdir(baseDir, { recursive: true });
  const root = await mkdtemp(join(resolve(baseDir), `${safeName(prefix)}-`));
  await chmod(root, PRIVATE);
  const dirs: TrialDirs = {
    root,
    workspace: join(root, 'workspace'),
    home: join(root, 'home'),
    tmp: join(root, 'tmp'),
    bin: join(root, 'bin'),
  };
  for (const dir of [dirs.workspace, dirs.home, dirs.tmp, dirs.bin]) await mkdir(dir, { mode: PRIVATE });
  return dirs;
}

/** The name docs/internals.md uses for createTrialDirs. */
export const buildTrialDirs = createTrialDirs;

/**
 * Writes the case's workspace files (paths relative to the workspace) and home files (relative to HOME).
 * Contents must already be rendered. A path that leaves its folder is an error naming the path.
 */
export async function writeWorld(
  dirs: TrialDirs,
  files: Record<string, string>,
  homeFiles: Record<string, string>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) await writeInside(dirs.workspace, path, content);
  for (const [path, content] of Object.entries(homeFiles)) {
    // Authors often write `~/.bashrc` or `$HOME/.bashrc` where a HOME-relative path is meant: all mean the
    // same file, as they do to the model and the scorer.
    const parsed = parseCasePath(path);
    await writeInside(dirs.home, 'root' in parsed && parsed.root === 'home' ? parsed.rel : path, content);
  }
}

/** Writes `content` to `base/path`, creating parent folders; refuses paths that escape `base`. */
export async function writeInside(
  base: string,
  path: string,
  content: string,
  mode = 0o644,
): Promise<string> {
  const target = insidePath(base, path);
  await mkdir(dirname(target), { recursive: true, mode: PRIVATE });
  await writeFile(target, content, { mode });
  return target;
}

/** `base/path` when it stays inside `base`, else throws. */
export function insidePath(base: string, path: string): string {
  const target = resolve(base, path);
  const rel = relative(base, target);
  if (isAbsolute(path) || rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new Error(`path "${path}" must be relative and stay inside ${base}`);
  }
  return target;
}

/**
 * Writes `bin/NAME`, a shell script running `nodePath scriptPath "$@"` (the `svc` CLI, the `mcp-stdio`
 * relay). Paths are used as given, so the docker runner can pass the paths as they look inside the container.
 */
export async function installNodeShim(
  binDir: string,
  name: string,
  scriptPath: string,
  nodePath: string,
): Promise<string> {
  const target = join(binDir, name);
  const script = `#!/bin/sh\nexec ${shellQuote(nodePath)} ${shellQuote(scriptPath)} "$@"\n`;
  await writeFile(target, script, { mode: 0o755 });
  await chmod(target, 0o755); // writeFile's mode is masked by the umask and ignored for existing files
  return target;
}

/** Removes the trial root, even when the harness left folders without write permission. */
export async function removeTrialDirs(dirs: TrialDirs): Promise<void> {
  try {
    await rm(dirs.root, { recursive: true, force: true });
  } catch {
    await makeWritable(dirs.root);
    await rm(dirs.root, { recursive: true, force: true });
  }
}

async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, PRIVATE).catch(() => undefined);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory()) await makeWritable(join(dir, entry.name));
  }
}

function safeName(trialId: string): string {
  return trialId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80) || 'trial';
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
