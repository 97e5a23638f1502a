// What a run result attests: the harness build read from the install or the adapter's `harness:` block,
// the adapter folder's digest and the selection a shard was cut from.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Adapter, type LoadedAdapter } from '../src/adapters/schema.js';
import { adapterDigest, harnessInfo, selectionOf } from '../src/engine/attest.js';

const adapterOf = (over: Record<string, unknown>, dir = '/x'): LoadedAdapter => ({
  adapter: Adapter.parse({
    name: 'mine',
    dialect: 'openai-chat',
    launch: { command: ['node', 'x.js'] },
    configs: { default: {} },
    ...over,
  }),
  dir,
  file: join(dir, 'adapter.yaml'),
});

describe('harness build', () => {
  const cache = mkdtempSync(join(tmpdir(), 'hr-attest-'));
  it('reads the version that was installed, not the pin', () => {
    const pkgDir = join(cache, 'mine-1.2.3', 'node_modules', '@me', 'agent');
    mkdirSync(pkgDir, { recursive: true });
    // What npm put there differs from the pin (a registry that resolved another build): the install wins.
    writeFileSync(
      join(pkgDir, 'package.json'),
      JSON.stringify({ name: '@me/agent', version: '1.2.3-hotfix' }),
    );
    const a = adapterOf({ install: { npm: { package: '@me/agent', version: '1.2.3' } } });
    expect(harnessInfo(a, cache, (s) => s)).toEqual({
      package: '@me/agent',
      version: '1.2.3-hotfix',
      source: 'npm-install',
    });
  });
  it("reads a team's package.json named in the adapter, with templates", () => {
    const repo = mkdtempSync(join(tmpdir(), 'hr-repo-'));
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'our-agent', version: '4.5.6' }));
    const a = adapterOf({ harness: { package_json: '{{repo}}/package.json' } });
    expect(harnessInfo(a, cache, (s) => s.replace('{{repo}}', repo))).toEqual({
      package: 'our-agent',
      version: '4.5.6',
      source: 'package.json',
    });
    expect(harnessInfo(adapterOf({ harness: { version: '7' } }), cache, (s) => s)).toEqual({
      version: '7',
      source: 'declared',
    });
    expect(harnessInfo(adapterOf({}), cache, (s) => s)).toBeUndefined();
  });
});

describe('adapter digest and selection', () => {
  it('changes with any file of the adapter folder, not with node_modules', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hr-adapter-'));
    writeFileSync(join(dir, 'adapter.yaml'), 'name: a\n');
    const d1 = adapterDigest(dir);
    mkdirSync(join(dir, 'node_modules'));
    writeFileSync(join(dir, 'node_modules', 'x.js'), '1');
    expect(adapterDigest(dir)).toBe(d1);
    writeFileSync(join(dir, 'wrapper.sh'), 'exec agent "$@"\n');
    expect(adapterDigest(dir)).not.toBe(d1);
  });
  it('a selection digest depends on ids and revisions, not order; shards keep the whole selection', () => {
    const cs = [
      { case: { id: 'b' }, revision: '2' },
      { case: { id: 'a' }, revision: '1' },
    ] as never[];
    const whole = selectionOf(cs);
    expect(selectionOf([...cs].reverse())).toEqual(whole);
    expect(selectionOf(cs, { index: 2, total: 3 })).toEqual({ ...whole, shard: { index: 2, total: 3 } });
    expect(selectionOf([{ case: { id: 'a' }, revision: '9' }, cs[0]!] as never[]).digest).not.toBe(
      whole.digest,
    );
  });
});
