// Issue 33, "an engine a harness cannot knock over": two trials flooding their own endpoints with
// connections, under an engine whose file descriptors are few (RLIMIT_NOFILE 400). The engine must finish
// the run with a result, every trial marked (a limit hit or invalid with a reason, never an uncaught
// EMFILE), and leave nothing behind: no mount of the run, no cgroup, no work root, no socket folder.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledSupport } from './support/bundle-support.js';
import { dockerSkipReason } from './support/docker.js';
import { useTempDir } from './support/engine-run.js';

const ROOT = join(import.meta.dirname, '..');
const ADAPTER = join(import.meta.dirname, 'fixtures', 'adapters', 'hostile-connections');
const NOFILE = 400;
const dir = useTempDir('hr-survive-');

const engineHost = () => bundledSupport('engine-host');

/** Cgroup folders named after engine `pid` (hr-PID-N), anywhere under /sys/fs/cgroup. */
function cgroupsOf(pid: number): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    if (depth > 5) return;
    let names: string[] = [];
    try {
      names = readdirSync(d, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    } catch {
      return;
    }
    for (const n of names) {
      if (n.startsWith(`hr-${pid}-`)) out.push(join(d, n));
      else walk(join(d, n), depth + 1);
    }
  };
  walk('/sys/fs/cgroup', 0);
  return out;
}

const GROUP = 'a connection flood against the engine';
const runners: { runner: string; skip?: string }[] = [
  { runner: 'process' },
  { runner: 'process-uncontained' },
  { runner: 'docker', skip: await dockerSkipReason(`${GROUP} (docker)`) },
];

describe(GROUP, () => {
  it.for(runners)(
    '$runner: the run ends with a result, the floods are marked, nothing is left',
    { timeout: 180_000 },
    async ({ runner, skip }, ctx) => {
      ctx.skip(!!skip, skip);
      const host = await engineHost();
      const tmp = join(dir(), `${runner}-tmp`);
      mkdirSync(tmp, { recursive: true });
      const out = join(dir(), `${runner}.json`);
      const opts = {
        adapter: ADAPTER,
        config: 'default',
        cases: ['id:invoice-mail-changes-payee', 'id:refund-ticket-extra-refunds'],
        runner,
        ...(runner === 'docker' ? { image: 'harness-risk/node:local' } : {}),
        concurrency: 2,
        seeds: 1,
        model: 'scripted',
        keep_evidence: false,
        out,
      };
      // Hard and soft: Node raises its soft limit to the hard one at start.
      const p = spawn(
        'prlimit',
        [`--nofile=${NOFILE}:${NOFILE}`, '--', process.execPath, host, JSON.stringify(opts)],
        {
          cwd: ROOT,
          env: { ...process.env, TMPDIR: tmp },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (b) => (stdout += b));
      p.stderr.on('data', (b) => (stderr += b));
      const code = await new Promise<number | null>((ok) => p.on('close', ok));
      expect(stderr).not.toMatch(/EMFILE|Uncaught|at .*\(node:/);
      expect(code, stderr).toBe(0);
      const run = JSON.parse(stdout.trim().split('\n').pop()!) as {
        status: string;
        has_summary: boolean;
        trials: { id: string; valid: boolean; reason?: string; limit_hit?: string }[];
      };
      expect(run.status).toBe('complete');
      expect(run.has_summary).toBe(true);
      expect(existsSync(out)).toBe(true);
      expect(run.trials).toHaveLength(2);
      for (const t of run.trials) {
        expect(t.valid, t.id).toBe(false);
        // No cap was asked for: the default (256) is fitted to the engine's 400 descriptors, two trials at
        // once, up to three descriptors a connection: 400 / 2 / (2 × 3) = 33.
        expect(t.limit_hit, JSON.stringify(t)).toMatch(/^connection limit \(33 concurrent connections/);
        expect(t.reason).toMatch(/connection limit/);
      }
      // Nothing of the run is left: mounts, cgroups, the work root, the socket folders.
      expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(`hr-trial-${p.pid} `);
      expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(tmp);
      expect(cgroupsOf(p.pid!)).toEqual([]);
      expect(readdirSync(tmp).filter((n) => n.startsWith('harness-risk-') || n.startsWith('hr-ep-'))).toEqual(
        [],
      );
    },
  );
});

it('prlimit is here (the test above needs it)', () => {
  expect(spawnSync('prlimit', ['--version']).status).toBe(0);
});
