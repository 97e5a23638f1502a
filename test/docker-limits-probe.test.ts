// The docker runner reads which limit a trial hit from inside the container right after killing it; after
// a fork bomb the pids cgroup can still be full, so the probe must not need a fork. Run with an empty PATH
// (every external command fails, like a fork refused), the probe still reads its lines.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyLine, parseProbe } from '../src/runner/docker/limits.js';

const dir = mkdtempSync(join(tmpdir(), 'hr-probe-'));
const v2 = join(dir, 'pids.events');
const oom = join(dir, 'memory.oom_control');
writeFileSync(v2, 'max 17\n');
writeFileSync(oom, 'oom_kill_disable 0\nunder_oom 0\noom_kill 2\n');

/** stderr of a script run by /bin/sh with no PATH: only builtins work. */
function stderrOf(script: string): string {
  return execFileSync('/bin/sh', ['-c', `{ ${script}; } 2>&1`], { env: { PATH: '' }, encoding: 'utf8' });
}

describe('the limits probe uses shell builtins only', () => {
  it('reads the refused forks and OOM kills without running a command', () => {
    const text = stderrOf(
      [
        keyLine([join(dir, 'missing'), v2], 'max'),
        keyLine([join(dir, 'memory.events'), oom], 'oom_kill'),
      ].join('; '),
    );
    expect(parseProbe(text)).toMatchObject({ forksRefused: 17, oomKills: 2 });
  });

  it('prints nothing for files that are not there', () => {
    expect(stderrOf(keyLine([join(dir, 'nope')], 'max'))).toBe('');
  });
});
