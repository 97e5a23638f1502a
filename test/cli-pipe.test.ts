// `harness-risk run … | head` (or a pager quit early): the reader goes away while trials run. The run
// must stop as an interrupt does: non-zero exit (141, as a shell reports SIGPIPE), the result kept as
// `interrupted` and resumable, nothing of the sandbox left mounted, the work root gone. Before, the CLI
// exited 0 at the first failed write and left a `running` result with the trials' mounts behind.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ensureBundle, ROOT } from './support/action-bundle.js';

const dir = mkdtempSync(join(tmpdir(), 'hr-cli-pipe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a reader that goes away after 3 lines stops the run cleanly: interrupted, resumable, nothing left', async () => {
  ensureBundle();
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const out = join(dir, 'run.json');
  // stdout and stderr into one pipe, as `2>&1 | head -3` gives them.
  const p = spawn(
    process.execPath,
    [
      join(ROOT, 'dist/cli.js'),
      'run',
      '--adapter',
      'reference',
      '--config',
      'open',
      '--cases',
      'subset:standard',
      '--concurrency',
      '1',
      '--out',
      out,
    ],
    { cwd: dir, env: { ...process.env, TMPDIR: tmp, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let lines = 0;
  const readerGone = () => {
    p.stdout.destroy();
    p.stderr.destroy();
  };
  const count = (b: Buffer) => {
    lines += String(b).split('\n').length - 1;
    if (lines >= 3) readerGone();
  };
  p.stdout.on('data', count);
  p.stderr.on('data', count);
  const code = await new Promise<number | null>((ok) => p.on('close', (c) => ok(c)));
  expect(code).toBe(141);
  const result = JSON.parse(readFileSync(out, 'utf8'));
  expect(result.status).toBe('interrupted');
  // Far from all trials ran; those that did are kept for --resume, the rest are named as not run.
  const ran = result.trials.filter((t: { valid: boolean }) => t.valid);
  expect(ran.length).toBeLessThan(100);
  expect(
    result.trials.filter((t: { invalid_reason?: string }) => /interrupted/.test(t.invalid_reason ?? ''))
      .length,
  ).toBeGreaterThan(50);
  expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(tmp);
  expect(existsSync(tmp) ? readdirSync(tmp).filter((n) => n.startsWith('harness-risk-')) : []).toEqual([]);
}, 300_000);
