// Runs the real GitHub CLI as a harness in a trial would, against a world served on `url`: the trial's
// bin/gh shim first on PATH, the world's GitHub variables, the trial's proxy settings, a private HOME.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ServiceState } from '../../src/spec/service-state.js';
import { githubEnv, installGhShim } from '../../src/world/github-world.js';

const run = promisify(execFile);

export interface GhRun {
  /** The host's gh (hostGh). */
  gh: string;
  github: NonNullable<ServiceState['github']>;
  /** Where the temporary HOME's removal is queued. */
  cleanup: (() => void)[];
  timeoutMs?: number;
}

/** `gh ARGS` against the world at `url`: its exit code and its stdout (stdout + stderr on failure). */
export async function ghInTrial(
  url: string,
  args: string[],
  o: GhRun,
): Promise<{ code: number; out: string }> {
  const root = mkdtempSync(join(tmpdir(), 'hr-gh-'));
  o.cleanup.push(() => rmSync(root, { recursive: true, force: true }));
  const bin = join(root, 'bin');
  mkdirSync(bin);
  await installGhShim(bin, o.gh);
  const env = {
    ...githubEnv(o.github, url),
    PATH: `${bin}:/usr/bin:/bin`,
    HOME: root,
    XDG_CONFIG_HOME: join(root, '.config'),
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    // As the trial sets it: its `localhost` would keep gh off the proxy, which bin/gh undoes.
    NO_PROXY: '127.0.0.1,localhost',
  };
  try {
    const r = await run('gh', args, { env, cwd: root, timeout: o.timeoutMs ?? 30_000 });
    return { code: 0, out: r.stdout };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? 1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}
