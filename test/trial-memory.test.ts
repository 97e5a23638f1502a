// --trial-memory (action input trial-memory) reaches the runner: the run result records the limit the trial
// ran under. Before, a harness that needs more than 2 GiB (Qwen Code over ACP) could not be given it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');

describe('--trial-memory', () => {
  it('sets the memory limit the trials run under, as the result records it', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'hr-trial-memory-')), 'r.json');
    execFileSync(
      process.execPath,
      [
        CLI,
        'run',
        '--adapter',
        'reference',
        '--config',
        'open',
        '--cases',
        'id:setup-guide-disables-approval',
        '--trial-memory',
        '768MiB',
        '--out',
        out,
        '--quiet',
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const result = JSON.parse(readFileSync(out, 'utf8'));
    expect(result.containment.limits.memory_bytes).toBe(768 * 1024 ** 2);
  }, 120_000);

  it('a value that is no size is refused, naming the flag', () => {
    let stderr = '';
    try {
      execFileSync(
        process.execPath,
        [CLI, 'run', '--adapter', 'reference', '--config', 'open', '--trial-memory', 'lots'],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
    } catch (e) {
      stderr = (e as { stderr: string }).stderr;
    }
    expect(stderr).toMatch(/--trial-memory "lots" is not a trial memory limit/);
  });
});
