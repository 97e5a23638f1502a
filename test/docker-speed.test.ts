// Issue 17, the docker runner's share: a trial costs little more than the harness, with containment
// unchanged. The container's relay starts with the container (not per trial), exits come from the
// daemon's event stream (no polling loop), the host folders are emptied while the container packs, and
// the root filesystem is never diffed when it is read-only. Real daemon and image, like
// docker-runner.test.ts; skipped with the reason when they are missing (HR_REQUIRE_DOCKER=1 fails instead).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policeEnv } from '../src/engine/env.js';
import { eventEnd, LineSplitter } from '../src/runner/docker/events.js';
import { RUN_LABEL } from '../src/runner/docker/options.js';
import { DockerRunner } from '../src/runner/docker/runner.js';
import { countRequests, requestKind } from '../src/runner/docker/spans.js';
import { prefetch } from '../src/runner/docker/tar.js';
import type { TrialLaunch } from '../src/runner/types.js';
import type { TrialDirs } from '../src/world/trial-dirs.js';
import { dockerSkipReason, IMAGE, trialDirsAt } from './support/docker.js';

const pexec = promisify(execFile);
const reason = await dockerSkipReason('docker runner speed');

const roots: string[] = [];
function trialDirs(): TrialDirs {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hr-docker-speed-'));
  roots.push(root);
  return trialDirsAt(root);
}

function launchOf(runner: DockerRunner, script: string, o: Partial<TrialLaunch> = {}): TrialLaunch {
  const dirs = o.dirs ?? trialDirs();
  const view = runner.view(dirs);
  return {
    trial_id: `speed-${randomBytes(3).toString('hex')}`,
    dirs,
    command: ['node', '-e', script],
    cwd: view.workspace,
    env: policeEnv({ PATH: [view.bin, ...view.systemPath].join(':'), HOME: view.home, TMPDIR: view.tmp }).env,
    timeout_ms: 30_000,
    read_only: [],
    endpoint_port: 0,
    ...o,
  };
}

async function leftovers(runId: string): Promise<string> {
  return (await pexec('docker', ['ps', '-aq', '--filter', `label=${RUN_LABEL}=${runId}`])).stdout.trim();
}

describe('docker runner speed: pure parts', () => {
  it.each([
    ['POST', '/v1.41/containers/create?name=x', 'POST /containers/create'],
    ['GET', '/containers/json?all=1&filters=x', 'GET /containers/json'],
    ['GET', '/containers/3f9a/json', 'GET /containers/ID/json'],
    ['POST', '/containers/3f9a/exec', 'POST /containers/ID/exec'],
    ['GET', '/exec/ab12/json', 'GET /exec/ID/json'],
    ['GET', '/containers/3f9a/changes', 'GET /containers/ID/changes'],
    ['GET', '/events?filters=%7B%7D', 'GET /events'],
  ])('request kind of %s %s is %s', (method, p, kind) => {
    expect(requestKind(method, p)).toBe(kind);
  });

  it.each([
    [
      { Action: 'exec_die', Actor: { ID: 'c1', Attributes: { execID: 'e1', exitCode: '3' } } },
      { kind: 'exec', id: 'e1', code: 3 },
    ],
    [
      { status: 'exec_die', Actor: { Attributes: { execID: 'e2', exitCode: '0' } } },
      { kind: 'exec', id: 'e2', code: 0 },
    ],
    [
      { Action: 'die', Actor: { ID: 'c1', Attributes: { exitCode: '137' } } },
      { kind: 'container', id: 'c1', code: 137 },
    ],
    [
      { Action: 'die', id: 'c2', Actor: { Attributes: {} } },
      { kind: 'container', id: 'c2', code: null },
    ],
    [{ Action: 'exec_start', Actor: { Attributes: { execID: 'e3' } } }, undefined],
    [{ Action: 'exec_die', Actor: { Attributes: { exitCode: '1' } } }, undefined],
  ])('event %j ends %j', (e, end) => {
    expect(eventEnd(e)).toEqual(end);
  });

  it('prefetch reads ahead at once, at most its budget, and hands every chunk over in order', async () => {
    let pulled = 0;
    async function* src() {
      for (let i = 0; i < 10; i++) {
        pulled++;
        yield Buffer.alloc(100, i);
      }
    }
    const it = prefetch(src(), 300);
    await new Promise((r) => setTimeout(r, 20));
    // Read ahead before anyone asked, and stopped at the budget (the chunk that reached it included).
    expect(pulled).toBe(3);
    const got: number[] = [];
    for await (const c of it) got.push(c[0]!);
    expect(got).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    async function* bad() {
      yield Buffer.from('a');
      throw new Error('unreadable file');
    }
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const c of prefetch(bad(), 10)) seen.push(c.toString());
      })(),
    ).rejects.toThrow('unreadable file');
    expect(seen).toEqual(['a']);
  });

  it('splits event lines cut anywhere across chunks', () => {
    const s = new LineSplitter();
    const got: string[] = [];
    for (const c of ['{"a":', '1}\n{"b"', ':2}\n\n{"c":3', '}\n']) s.push(c, (l) => got.push(l));
    expect(got).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });
});

(reason === undefined ? describe : describe.skip)('docker runner speed (real daemon)', () => {
  const runId = `test-${process.pid}-speed-${randomBytes(3).toString('hex')}`;
  let runner: DockerRunner;
  const warnings: string[] = [];
  beforeAll(async () => {
    runner = new DockerRunner({ runId, image: IMAGE, warm: 1, onWarning: (m) => warnings.push(m) });
    await runner.start();
  });
  afterAll(async () => {
    await runner?.stop();
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });

  it('a trial: three execs, its end from the event stream (no polling loop), no root filesystem diff; its files still come back', async () => {
    const counter = countRequests(runner.docker);
    const launch = launchOf(
      runner,
      `require('fs').writeFileSync('/trial/workspace/out.txt', 'written');
       require('fs').mkdirSync('/trial/home/.state/deep', { recursive: true });
       require('fs').writeFileSync('/trial/home/.state/deep/s.json', '{}');
       setTimeout(() => process.exit(4), 1200);`,
    );
    const o = await runner.run(launch);
    const calls = counter.counts;
    expect(o.exit_code).toBe(4);
    expect(o.container_changes).toBeUndefined();
    expect(readFileSync(path.join(launch.dirs.workspace, 'out.txt'), 'utf8')).toBe('written');
    expect(existsSync(path.join(launch.dirs.home, '.state/deep/s.json'))).toBe(true);
    // copy-in, harness, copy-back: nothing per trial for the relay, which the container started with.
    expect(calls['POST /containers/ID/exec']).toBe(3);
    expect(calls['GET /containers/ID/changes']).toBeUndefined();
    // The old runner asked the state of the relay's exec in a loop for the whole trial (hundreds a second).
    expect(calls['GET /exec/ID/json'] ?? 0).toBeLessThanOrEqual(3);
  });

  it("the harness's kill -9 -1 does not cut its endpoint: the relay is not its user's", async () => {
    const endpoint = http.createServer((_q, s) => s.end('still-here'));
    const port = await new Promise<number>((res) =>
      endpoint.listen(0, '127.0.0.1', () => res((endpoint.address() as net.AddressInfo).port)),
    );
    try {
      const launch = launchOf(
        runner,
        `try { process.kill(-1, 'SIGKILL'); } catch (e) { console.log('kill:', e.code); }
         setTimeout(async () => {
           try { console.log('got:', await (await fetch('http://127.0.0.1:${port}/')).text()); }
           catch (e) { console.log('fail:', e.cause?.code || e.message); }
         }, 300);`,
      );
      const o = await runner.run({
        ...launch,
        env: policeEnv({ ...launch.env, HR_SVC: `http://127.0.0.1:${port}` }).env,
        endpoint_port: port,
      });
      expect(o.stdout).toContain('got: still-here');
    } finally {
      endpoint.close();
    }
  });

  it('a child holding the output open does not hold the trial past the harness', async () => {
    const launch = launchOf(
      runner,
      `require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'inherit', detached: true }).unref();
       console.log('parent done'); process.exit(5);`,
    );
    const o = await runner.run(launch);
    expect(o.exit_code).toBe(5);
    expect(o.stdout).toContain('parent done');
    // The daemon itself waits up to 2 s for an exited exec's streams before it reports the exit; the
    // runner adds at most its bounded flush, never the child's 30 s.
    expect(o.duration_ms).toBeLessThan(10_000);
  });

  it('without an event stream the exits are still seen, by asking the daemon', async () => {
    const rid = `${runId}-noev`;
    const r = new DockerRunner({ runId: rid, image: IMAGE, warm: 1, sweepStale: false, onWarning: () => {} });
    await r.start();
    try {
      r.events.close();
      const a = await r.run(launchOf(r, 'setTimeout(() => process.exit(7), 300)'));
      expect(a.exit_code).toBe(7);
      const b = await r.run(
        launchOf(
          r,
          `require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 6000)'], { stdio: 'inherit', detached: true }).unref(); process.exit(2);`,
        ),
      );
      expect(b.exit_code).toBe(2);
      expect(b.duration_ms).toBeLessThan(4_000);
    } finally {
      await r.stop();
    }
    expect(await leftovers(rid)).toBe('');
  });

  it("stop() after its trials removes the run's containers without listing the daemon's", async () => {
    const rid = `${runId}-stop`;
    const r = new DockerRunner({ runId: rid, image: IMAGE, warm: 1, sweepStale: false, onWarning: () => {} });
    await r.start();
    const o = await r.run(launchOf(r, 'console.log(1)'));
    expect(o.exit_code).toBe(0);
    // The pool is making the next trial's container: stop waits for it and removes it too.
    const counter = countRequests(r.docker);
    await r.stop();
    expect(await leftovers(rid)).toBe('');
    expect(counter.counts['GET /containers/json']).toBeUndefined();
    expect(counter.counts['DELETE /containers/ID']).toBeGreaterThanOrEqual(1);
  });

  it('never reuses a container; the one made ahead for the next trial goes at stop, even while it is being made', async () => {
    const rid = `${runId}-pool`;
    const r = new DockerRunner({ runId: rid, image: IMAGE, warm: 2, sweepStale: false, onWarning: () => {} });
    await r.start();
    const hosts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const o = await r.run(launchOf(r, 'console.log(require("os").hostname())'));
      hosts.push(o.stdout.trim());
    }
    expect(new Set(hosts).size).toBe(3);
    // The pool keeps making containers ahead: stop while they start, as an interrupt does.
    const ac = new AbortController();
    const pending = r.run(launchOf(r, 'setInterval(() => {}, 1000)', { signal: ac.signal }));
    await new Promise((res) => setTimeout(res, 300));
    ac.abort();
    await Promise.all([pending, r.stop()]);
    expect(await leftovers(rid)).toBe('');
    // Nothing that was in flight appears after the stop either.
    await new Promise((res) => setTimeout(res, 1_500));
    expect(await leftovers(rid)).toBe('');
  });

  describe('an image without node (the relay cannot start)', () => {
    const image = `hr-test/no-node:${process.pid}`;
    beforeAll(async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'hr-no-node-'));
      roots.push(dir);
      const { writeFileSync } = await import('node:fs');
      writeFileSync(
        path.join(dir, 'Dockerfile'),
        `FROM ${IMAGE}\nRUN ["/bin/sh", "-c", "rm -f /usr/local/bin/node /usr/bin/node"]\n`,
      );
      await pexec('docker', ['build', '--network', 'none', '-q', '-t', image, dir], { timeout: 120_000 });
    }, 180_000);
    afterAll(async () => {
      await pexec('docker', ['rmi', '-f', image]).catch(() => {});
    });

    it('the trial fails at start, saying the image must provide node', async () => {
      const rid = `${runId}-nonode`;
      const msgs: string[] = [];
      const r = new DockerRunner({
        runId: rid,
        image,
        warm: 1,
        sweepStale: false,
        onWarning: (m) => msgs.push(m),
      });
      await r.start();
      try {
        const o = await r.run(launchOf(r, 'console.log(1)'));
        expect(o.exit_code).toBeNull();
        expect(o.spawn_error ?? o.infra_error).toMatch(/endpoint relay.*must provide node/);
      } finally {
        await r.stop();
      }
      expect(await leftovers(rid)).toBe('');
    }, 120_000);
  });
});
