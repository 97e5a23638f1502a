// The trial workspace as a git repository: one commit of the case's files, the same on every run, made
// without the host's git configuration, hooks or templates; skipped when the case says so or brings its
// own .git; unavailable (and the workspace left plain) when git is missing. A snapshot diff of a trial in
// which nothing changed reports nothing under .git.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { gitArgs, gitEnv, initWorkspaceRepo } from '../src/world/git-repo.js';
import { diffSnapshots, snapshot } from '../src/world/snapshot.js';

const roots: string[] = [];
function trial(files: Record<string, string> = { 'README.md': '# demo\n', 'src/a.js': 'x\n' }) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hr-git-'));
  roots.push(root);
  const dirs = {
    root,
    workspace: path.join(root, 'ws'),
    home: path.join(root, 'home'),
    tmp: path.join(root, 'tmp'),
    bin: path.join(root, 'bin'),
  };
  for (const d of [dirs.workspace, dirs.home, dirs.tmp, dirs.bin]) mkdirSync(d);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dirs.workspace, rel)), { recursive: true });
    writeFileSync(path.join(dirs.workspace, rel), text);
  }
  return dirs;
}
const git = (ws: string, home: string, ...args: string[]) =>
  execFileSync('git', gitArgs(args), { cwd: ws, env: gitEnv(home), encoding: 'utf8' }).trim();
const hasGit = (() => {
  try {
    execFileSync('git', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

afterEach(() => vi.unstubAllEnvs());
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe.skipIf(!hasGit)('workspace repository', () => {
  it('commits the case files once, the same commit on every trial, with no hooks or templates', async () => {
    const a = trial();
    const b = trial();
    const ra = await initWorkspaceRepo(a.workspace, a.home, true);
    const rb = await initWorkspaceRepo(b.workspace, b.home, true);
    expect(ra.state).toBe('created');
    expect(ra).toEqual(rb);
    expect(git(a.workspace, a.home, 'ls-files')).toBe('README.md\nsrc/a.js');
    expect(git(a.workspace, a.home, 'status', '--porcelain')).toBe('');
    expect(git(a.workspace, a.home, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(existsSync(path.join(a.workspace, '.git', 'hooks'))).toBe(false);
    expect(readdirSync(a.home)).toEqual([]);
  });

  it("ignores the host's and HOME's git configuration", async () => {
    const t = trial();
    const hostHome = mkdtempSync(path.join(os.tmpdir(), 'hr-host-'));
    roots.push(hostHome);
    const evil =
      '[user]\n\tname = Host User\n[init]\n\ttemplateDir = /nonexistent\n[commit]\n\tgpgSign = true\n';
    writeFileSync(path.join(hostHome, '.gitconfig'), evil);
    writeFileSync(path.join(t.home, '.gitconfig'), evil);
    vi.stubEnv('HOME', hostHome);
    vi.stubEnv('GIT_CONFIG_GLOBAL', path.join(hostHome, '.gitconfig'));
    const r = await initWorkspaceRepo(t.workspace, t.home, true);
    expect(r.state).toBe('created');
    expect(git(t.workspace, t.home, 'log', '-1', '--format=%an <%ae>')).toBe(
      'Project Owner <owner@workspace.invalid>',
    );
  });

  it('is skipped when the case says no or brings its own .git', async () => {
    const off = trial();
    expect(await initWorkspaceRepo(off.workspace, off.home, false)).toMatchObject({ state: 'skipped' });
    expect(existsSync(path.join(off.workspace, '.git'))).toBe(false);
    const own = trial({
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/objects/.keep': '',
      '.git/refs/heads/.keep': '',
    });
    expect(await initWorkspaceRepo(own.workspace, own.home, true)).toMatchObject({
      state: 'skipped',
      reason: expect.stringMatching(/own \.git/),
    });
    expect(readdirSync(path.join(own.workspace, '.git')).sort()).toEqual(['HEAD', 'objects', 'refs']);
  });

  it('a .git of a few files (a HEAD alone) is made a repository around them, keeping what the case wrote', async () => {
    // Before, such a stub was kept as it was: every git command in the trial failed ("not a git repository").
    const stub = trial({ 'README.md': '# app\n', '.git/HEAD': 'ref: refs/heads/trunk\n' });
    expect(await initWorkspaceRepo(stub.workspace, stub.home, true)).toMatchObject({ state: 'created' });
    expect(git(stub.workspace, stub.home, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('trunk');
    expect(git(stub.workspace, stub.home, 'ls-files')).toBe('README.md');
  });

  it('a snapshot diff shows no .git internals when the harness changed nothing, and its commit when it did', async () => {
    const t = trial();
    await initWorkspaceRepo(t.workspace, t.home, true);
    const before = await snapshot(t);
    expect(Object.keys(before).some((k) => k.startsWith('ws/.git/'))).toBe(true);
    const same = diffSnapshots(before, await snapshot(t));
    expect([...same.added, ...same.modified, ...same.deleted]).toEqual([]);
    writeFileSync(path.join(t.workspace, '.git', 'hooks-made-by-harness'), 'x');
    const changed = diffSnapshots(before, await snapshot(t));
    expect(changed.added).toContain('ws/.git/hooks-made-by-harness');
  });
});

describe('without git', () => {
  it('says the workspace is not a repository and leaves it plain', async () => {
    const t = trial();
    vi.stubEnv('PATH', t.bin);
    const r = await initWorkspaceRepo(t.workspace, t.home, true);
    expect(r).toEqual({ state: 'unavailable', reason: 'git is not installed' });
    expect(existsSync(path.join(t.workspace, '.git'))).toBe(false);
  });
});
