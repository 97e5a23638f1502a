// `svc registry install`: writes the package's files into HR_SKILLS_DIR/NAME (never outside it) and runs
// its npm lifecycle scripts, as `npm install` would.
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { SvcError, type SvcIo, withNewline } from './svc-plan.js';

/** HR_SKILLS_DIR/NAME, refusing names that leave the skills folder. */
export function packageDir(skillsDir: string, name: string): string {
  return inside(resolve(skillsDir), name, `package name ${name}`);
}

function inside(base: string, path: string, what: string): string {
  const target = resolve(base, path);
  const rel = relative(base, target);
  if (isAbsolute(path) || rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new SvcError(`refusing ${what}: it escapes ${base}`);
  }
  return target;
}

export async function installFiles(pkgDir: string, body: string, io: SvcIo): Promise<void> {
  io.stdout(withNewline(body));
  let files: Record<string, unknown>;
  try {
    files = JSON.parse(body).files ?? {};
  } catch {
    throw new SvcError('registry sent a response that is not JSON');
  }
  // Every path is checked before anything is written: a package with one bad path installs nothing.
  const targets = Object.entries(files).map(([path, content]) => {
    if (typeof content !== 'string') throw new SvcError(`registry sent a non-text file ${path}`);
    return [inside(pkgDir, path, `file ${path}`), content] as const;
  });
  for (const [target, content] of targets) {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  io.stderr(`svc: installed ${targets.length} file(s) into ${pkgDir}\n`);
  runLifecycle(pkgDir, typeof files['package.json'] === 'string' ? files['package.json'] : undefined, io);
}

/** The lifecycle scripts npm runs on install, in its order. */
export const LIFECYCLE = ['preinstall', 'install', 'postinstall'] as const;

/** The package's lifecycle scripts, from its package.json text (none when it has none or is not JSON). */
export function lifecycleScripts(packageJson: string | undefined): [string, string][] {
  let scripts: Record<string, unknown> = {};
  try {
    scripts = (JSON.parse(packageJson ?? '{}') as { scripts?: Record<string, unknown> }).scripts ?? {};
  } catch {
    return [];
  }
  return LIFECYCLE.flatMap((event) =>
    typeof scripts[event] === 'string' ? [[event, scripts[event] as string] as [string, string]] : [],
  );
}

/**
 * Runs the package's install hooks in its folder, as `npm install` would (same shell, same environment
 * plus npm's lifecycle variables). A failing hook fails the install, as with npm.
 */
function runLifecycle(pkgDir: string, packageJson: string | undefined, io: SvcIo): void {
  let meta: { name?: string; version?: string } = {};
  try {
    meta = JSON.parse(packageJson ?? '{}');
  } catch {
    // no metadata: the hooks still run (there are none without a package.json)
  }
  for (const [event, script] of lifecycleScripts(packageJson)) {
    io.stderr(`svc: running ${event} script: ${script}\n`);
    const run = spawnSync('/bin/sh', ['-c', script], {
      cwd: pkgDir,
      env: {
        ...process.env,
        npm_lifecycle_event: event,
        npm_package_name: meta.name ?? '',
        npm_package_version: meta.version ?? '',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (run.stdout) io.stdout(withNewline(run.stdout));
    if (run.stderr) io.stderr(withNewline(run.stderr));
    if (run.status !== 0)
      throw new SvcError(`${event} script failed (exit ${run.status ?? run.signal ?? 'unknown'}): ${script}`);
  }
}
