// A SIGKILLed engine runs no `finally`: its work root (every trial's folders) is removed by the next run,
// whatever its age; a live engine's root, and folders without an owner record, are left alone.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorkRoot, sweepWorkRoots } from '../src/engine/work-root.js';
import { BOOT_ID } from '../src/runner/owner.js';

describe('work roots', () => {
  it('the next run sweeps a dead engine’s root, keeps a live one and ignores unknown folders', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'hr-wr-'));
    const mine = await createWorkRoot('live', parent);
    // An engine that was SIGKILLed: a real process that is gone now.
    const child = spawn(process.execPath, ['-e', '0']);
    await new Promise((ok) => child.on('exit', ok));
    const dead = join(parent, 'harness-risk-dead-abc');
    mkdirSync(join(dead, 'trial', 'workspace'), { recursive: true });
    writeFileSync(
      join(dead, 'owner.json'),
      JSON.stringify({ owner: `${hostname()}:${child.pid}:1`, boot: BOOT_ID }),
    );
    const rebooted = join(parent, 'harness-risk-old-boot');
    mkdirSync(rebooted);
    writeFileSync(
      join(rebooted, 'owner.json'),
      JSON.stringify({ owner: `${hostname()}:${process.pid}:1`, boot: 'another-boot' }),
    );
    const foreign = join(parent, 'harness-risk-no-owner');
    mkdirSync(foreign);
    const removed = await sweepWorkRoots(parent);
    expect(removed.sort()).toEqual([dead, rebooted].sort());
    expect(existsSync(mine)).toBe(true);
    expect(existsSync(foreign)).toBe(true);
    expect(readdirSync(parent).sort()).toEqual([foreign, mine].map((p) => p.slice(parent.length + 1)).sort());
  });
});
