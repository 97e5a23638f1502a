// install.warm: run once per install with the folder writable (to fill start-up caches such as Node's
// compile cache), again when the command changes, and only a warning when it fails.
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureInstalled, MARKER, warmKey } from '../src/adapters/install.js';
import { Adapter } from '../src/adapters/schema.js';

function installed(warm: string) {
  const root = mkdtempSync(join(tmpdir(), 'hr-warm-test-'));
  const cache = join(root, 'cache');
  const dir = join(cache, 'toy-1.0.0');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, MARKER), JSON.stringify({ package: 'toy', version: '1.0.0' }));
  const adapterDir = join(root, 'adapter');
  mkdirSync(adapterDir);
  const adapter = Adapter.parse({
    name: 'toy',
    dialect: 'openai-chat',
    install: { npm: { package: 'toy', version: '1.0.0' }, warm },
    launch: { command: ['true'] },
    tools: {},
    configs: { only: {} },
  });
  return { root, cache, dir, adapterDir, adapter };
}

const WARM = 'echo "$PWD|$HR_ADAPTER_DIR|$HOME" >> runs.txt; mkdir -p .cache-filled';

describe('install.warm', () => {
  it('runs once in the install folder with HR_ADAPTER_DIR and a scratch HOME, and records it', async () => {
    const t = installed(WARM);
    const log: string[] = [];
    await ensureInstalled(t.adapter, t.cache, { adapterDir: t.adapterDir, log: (l) => log.push(l) });
    await ensureInstalled(t.adapter, t.cache, { adapterDir: t.adapterDir });
    const runs = readFileSync(join(t.dir, 'runs.txt'), 'utf8').trim().split('\n');
    expect(runs).toHaveLength(1);
    const [cwd, adapterDir, home] = runs[0]?.split('|') ?? [];
    expect(cwd).toBe(t.dir);
    expect(adapterDir).toBe(t.adapterDir);
    expect(home).not.toBe(process.env.HOME);
    expect(JSON.parse(readFileSync(join(t.dir, MARKER), 'utf8'))).toMatchObject({
      package: 'toy',
      warmed: warmKey(WARM),
    });
    expect(log.some((l) => /warmed toy/.test(l))).toBe(true);
  });

  it('runs again when the command changes', async () => {
    const t = installed(WARM);
    await ensureInstalled(t.adapter, t.cache, { adapterDir: t.adapterDir });
    const changed = { ...t.adapter, install: { ...t.adapter.install, warm: `${WARM}; true` } };
    await ensureInstalled(changed, t.cache, { adapterDir: t.adapterDir });
    expect(readFileSync(join(t.dir, 'runs.txt'), 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('a failing warm command is a warning, not recorded, and retried next time', async () => {
    const t = installed('echo x >> runs.txt; echo broken cache >&2; exit 3');
    const log: string[] = [];
    await ensureInstalled(t.adapter, t.cache, { log: (l) => log.push(l) });
    expect(log.find((l) => l.startsWith('warning:'))).toMatch(
      /install\.warm of toy failed \(exit 3\).*broken cache/,
    );
    expect(JSON.parse(readFileSync(join(t.dir, MARKER), 'utf8')).warmed).toBeUndefined();
    await ensureInstalled(t.adapter, t.cache, {});
    expect(readFileSync(join(t.dir, 'runs.txt'), 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('a hard-linked copy of an install gets its own marker (the original is not touched)', async () => {
    const t = installed(WARM);
    const original = join(t.root, 'original-marker.json');
    linkSync(join(t.dir, MARKER), original);
    await ensureInstalled(t.adapter, t.cache, {});
    expect(JSON.parse(readFileSync(original, 'utf8')).warmed).toBeUndefined();
    expect(JSON.parse(readFileSync(join(t.dir, MARKER), 'utf8')).warmed).toBe(warmKey(WARM));
  });
});

describe('scripts/install-harnesses.mjs', () => {
  it('gives install.warm the adapter folder as HR_ADAPTER_DIR (OpenClaw’s warm.sh is found there)', () => {
    const t = installed(WARM);
    writeFileSync(
      join(t.adapterDir, 'adapter.yaml'),
      [
        'name: toy',
        'dialect: openai-chat',
        'install:',
        '  npm: { package: toy, version: 1.0.0 }',
        `  warm: '${WARM}'`,
        'launch:',
        '  command: ["true"]',
        'tools: {}',
        'configs:',
        '  only: {}',
        '',
      ].join('\n'),
    );
    const r = spawnSync(
      process.execPath,
      [join(import.meta.dirname, '..', 'scripts', 'install-harnesses.mjs'), '--cache', t.cache, t.adapterDir],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const [, adapterDir] = readFileSync(join(t.dir, 'runs.txt'), 'utf8').trim().split('|');
    expect(adapterDir).toBe(t.adapterDir);
  }, 60_000);
});
