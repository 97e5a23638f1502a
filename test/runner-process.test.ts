import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTrialEnv } from '../src/engine/env.js';
import { ProcessRunner } from '../src/runner/process.js';
import { createTrialDirs, type TrialDirs } from '../src/world/trial-dirs.js';
import { bwrapSkipReason, titled } from './support/requirements.js';

let base: string;
let dirs: TrialDirs;
const runner = new ProcessRunner();

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'hr-proc-'));
  dirs = await createTrialDirs(base, 't1');
});
afterAll(async () => {
  await runner.stop();
  await rm(base, { recursive: true, force: true });
});

function envFor(extra: Record<string, string> = {}) {
  return buildTrialEnv({
    view: runner.view(dirs),
    endpoint: 'http://127.0.0.1:9',
    endpointHost: '127.0.0.1',
    adapterEnv: extra,
    configEnv: {},
  });
}

const node = (code: string, timeout_ms = 10_000, env = envFor().env) =>
  runner.run({
    trial_id: 't1',
    dirs,
    command: [process.execPath, '-e', code],
    cwd: dirs.workspace,
    env,
    timeout_ms,
    read_only: [],
    endpoint_port: 0,
  });

describe('process runner', () => {
  it('the harness sees none of the parent environment (planted secret)', async () => {
    process.env.HR_PLANTED_SECRET = 'planted-4711';
    process.env.GITHUB_TOKEN = 'ghs_should_never_leak';
    process.env.INPUT_GITHUB_TOKEN = 'ghs_input';
    try {
      const out = await node('process.stdout.write(JSON.stringify(process.env))');
      const seen = JSON.parse(out.stdout);
      expect(seen.HR_PLANTED_SECRET).toBeUndefined();
      expect(seen.GITHUB_TOKEN).toBeUndefined();
      expect(seen.INPUT_GITHUB_TOKEN).toBeUndefined();
      expect(out.stdout).not.toContain('planted-4711');
      expect(seen.HOME).toBe(dirs.home);
      expect(seen.TMPDIR).toBe(dirs.tmp);
      expect(seen.XDG_CONFIG_HOME.startsWith(dirs.home)).toBe(true);
    } finally {
      delete process.env.HR_PLANTED_SECRET;
      delete process.env.GITHUB_TOKEN;
      delete process.env.INPUT_GITHUB_TOKEN;
    }
  });

  it('an adapter cannot smuggle forbidden variables in', () => {
    const { env, dropped } = envFor({
      GITHUB_TOKEN: 'x',
      INPUT_FOO: 'y',
      ACTIONS_RUNTIME_TOKEN: 'z',
      OK_VAR: '1',
    });
    expect(dropped.sort()).toEqual(['ACTIONS_RUNTIME_TOKEN', 'GITHUB_TOKEN', 'INPUT_FOO']);
    expect(env.OK_VAR).toBe('1');
    expect(env.GITHUB_TOKEN).toBeUndefined();
  });

  it('runs in the workspace and captures exit code and streams', async () => {
    const out = await node('console.log(process.cwd()); console.error("oops"); process.exit(3)');
    expect(out.stdout.trim()).toBe(dirs.workspace);
    expect(out.stderr).toContain('oops');
    expect(out.exit_code).toBe(3);
    expect(out.timed_out).toBe(false);
  });

  it('a hanging harness is killed at its timeout, with everything it started', async () => {
    const marker = join(dirs.tmp, 'grandchild-alive');
    // The harness starts a grandchild that would write a marker after 3 s, then hangs.
    const code = `require('child_process').spawn('/bin/sh', ['-c', 'sleep 3; touch ${marker}'], {stdio: 'ignore'}); setInterval(() => {}, 1000);`;
    const t0 = Date.now();
    const out = await node(code, 800);
    expect(out.timed_out).toBe(true);
    expect(out.exit_code).toBeNull();
    expect(Date.now() - t0).toBeLessThan(5000);
    await new Promise((r) => setTimeout(r, 3500));
    expect(existsSync(marker)).toBe(false);
  });

  it('a trial aborted before its harness started is stopped at once, not at its timeout', async () => {
    const ac = new AbortController();
    ac.abort();
    const out = await runner.run({
      trial_id: 't-aborted',
      dirs,
      command: [process.execPath, '-e', 'setInterval(() => {}, 1000)'],
      cwd: dirs.workspace,
      env: envFor().env,
      timeout_ms: 60_000,
      read_only: [],
      endpoint_port: 0,
      signal: ac.signal,
    });
    expect(out.timed_out).toBe(false);
    expect(out.signal).toBe('SIGTERM');
    expect(out.duration_ms).toBeLessThan(30_000);
  });

  it('a missing binary is a spawn error, not a crash of ours', async () => {
    const out = await runner.run({
      trial_id: 't1',
      dirs,
      command: ['/nonexistent/harness'],
      cwd: dirs.workspace,
      env: envFor().env,
      timeout_ms: 5000,
      read_only: [],
      endpoint_port: 0,
    });
    expect(out.spawn_error).toMatch(/command not found: \/nonexistent\/harness/);
  });

  it('keeps only the tail of a flood of output', async () => {
    const out = await node('for (let i = 0; i < 20000; i++) console.log("line " + i + " ".repeat(20))');
    expect(out.stdout.length).toBeLessThanOrEqual(64 * 1024);
    expect(out.stdout).toContain('line 19999');
  });
});

// Staging is the contained runner's (uncontained there is nothing to start before the harness).
const STAGED = 'process runner: a trial staged ahead of its harness slot';
const stagedSkip = bwrapSkipReason(STAGED);
describe.skipIf(!!stagedSkip)(titled(STAGED, stagedSkip), () => {
  it('its timeout counts from run(), and the slot is freed once, when the harness exits', async () => {
    const d = await createTrialDirs(base, 'staged');
    const launch = {
      trial_id: 'staged',
      dirs: d,
      command: ['/bin/sh', '-c', 'sleep 0.3; echo done'],
      cwd: d.workspace,
      env: envFor().env,
      timeout_ms: 1_000,
      read_only: [],
      endpoint_port: 0,
    };
    await runner.prepare(d);
    await runner.stage(launch);
    // Longer than the timeout: a clock started at stage() would kill the harness at once.
    await new Promise((r) => setTimeout(r, 1_500));
    const freed: number[] = [];
    const out = await runner.run({ ...launch, harness_exited: () => freed.push(Date.now()) });
    const resolved = Date.now();
    await runner.release(d);
    expect(out.timed_out).toBe(false);
    expect(out.exit_code, out.stderr).toBe(0);
    expect(out.stdout).toContain('done');
    expect(out.duration_ms).toBeLessThan(1_000);
    expect(freed).toHaveLength(1);
    expect(freed[0]!).toBeLessThanOrEqual(resolved);
  });
});
