// The base tree's I/O with real git: a commit resolved or fetched (a --depth 1 clone), a worktree made
// and removed, the build run with the job's environment minus the inputs and runner tokens.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  addWorktree,
  buildEnv,
  FETCH_DEPTH_HINT,
  resolveBaseCommit,
  runBuild,
  tailOf,
} from '../src/baseline/base-tree.js';
import { git } from './support/git-harness-repo.js';

let origin: string;
let first: string;
let second: string;

beforeAll(() => {
  origin = mkdtempSync(join(tmpdir(), 'hr-bt-origin-'));
  git(origin, 'init', '-q', '-b', 'main');
  writeFileSync(join(origin, 'f.txt'), 'one\n');
  git(origin, 'add', '-A');
  git(origin, 'commit', '-q', '-m', 'one');
  first = git(origin, 'rev-parse', 'HEAD');
  writeFileSync(join(origin, 'f.txt'), 'two\n');
  git(origin, 'commit', '-q', '-am', 'two');
  second = git(origin, 'rev-parse', 'HEAD');
});

const shallow = () => {
  const ws = mkdtempSync(join(tmpdir(), 'hr-bt-ws-'));
  execFileSync('git', ['clone', '-q', '--depth', '1', `file://${origin}`, ws], { stdio: 'pipe' });
  return ws;
};

describe('resolveBaseCommit', () => {
  it('resolves a SHA or a ref the checkout holds', async () => {
    expect(await resolveBaseCommit(origin, first)).toBe(first);
    expect(await resolveBaseCommit(origin, 'main~1')).toBe(first);
  });

  it('fetches a commit a --depth 1 clone lacks, by SHA and by branch name', async () => {
    const ws = shallow();
    expect(() => git(ws, 'cat-file', '-e', `${first}^{commit}`)).toThrow();
    const log: string[] = [];
    expect(await resolveBaseCommit(ws, first, (l) => log.push(l))).toBe(first);
    expect(log.join()).toContain('fetching it from origin');
    expect(await resolveBaseCommit(shallow(), 'origin/main')).toBe(second);
  });

  it('says exactly what to add when the commit cannot be fetched', async () => {
    const ws = shallow();
    git(ws, 'remote', 'remove', 'origin');
    await expect(resolveBaseCommit(ws, first)).rejects.toThrow(FETCH_DEPTH_HINT);
    const ws2 = shallow();
    await expect(resolveBaseCommit(ws2, 'f'.repeat(40))).rejects.toThrow(
      /the base commit f{40} is not in this checkout and could not be fetched.*\n.*add `fetch-depth: 0` to actions\/checkout/,
    );
  });

  it('a folder that is no checkout is named', async () => {
    const { repoTop } = await import('../src/baseline/base-tree.js');
    await expect(repoTop(mkdtempSync(join(tmpdir(), 'hr-bt-none-')))).rejects.toThrow(
      /is not a git checkout/,
    );
  });
});

describe('addWorktree', () => {
  it('checks the base commit out beside the checkout and takes it away again', async () => {
    const ws = shallow();
    await resolveBaseCommit(ws, first);
    const t = await addWorktree(ws, first);
    expect(readFileSync(join(t.dir, 'f.txt'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(ws, 'f.txt'), 'utf8')).toBe('two\n');
    await t.remove();
    expect(existsSync(t.dir)).toBe(false);
    expect(git(ws, 'worktree', 'list').split('\n')).toHaveLength(1);
  });
});

describe('runBuild', () => {
  it('runs in the folder with the environment it is given and reports a failure with its stderr tail', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hr-bt-build-'));
    const ok = await runBuild('echo "$X" > out.txt', dir, { PATH: process.env.PATH, X: 'same' });
    expect(ok).toMatchObject({ ok: true, code: 0 });
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('same\n');
    const bad = await runBuild(
      'echo progress; for i in $(seq 1 50); do echo "line $i" >&2; done; exit 3',
      dir,
      {
        PATH: process.env.PATH,
      },
    );
    expect(bad).toMatchObject({ ok: false, code: 3, timedOut: false });
    expect(bad.tail.split('\n')).toHaveLength(20);
    expect(bad.tail.endsWith('line 50')).toBe(true);
  });

  it('a build that outlives its timeout is killed, with everything it started', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hr-bt-slow-'));
    const r = await runBuild('(sleep 1; touch late) & sleep 30', dir, { PATH: process.env.PATH }, 300);
    expect(r).toMatchObject({ ok: false, timedOut: true });
    expect(r.tail).toContain('timed out');
    await new Promise((ok) => setTimeout(ok, 1500));
    expect(existsSync(join(dir, 'late'))).toBe(false);
  });
});

describe('buildEnv', () => {
  it.each([
    ['INPUT_GITHUB-TOKEN', false],
    ['INPUT_ADAPTER', false],
    ['ACTIONS_RUNTIME_TOKEN', false],
    ['ACTIONS_ID_TOKEN_REQUEST_TOKEN', false],
    ['ACTIONS_CACHE_URL', false],
    ['GITHUB_TOKEN', false],
    ['PATH', true],
    ['HOME', true],
    ['GITHUB_SHA', true],
    ['NPM_CONFIG_CACHE', true],
  ])('%s kept: %s', (name, kept) => {
    expect(name in buildEnv({ [name]: 'v' })).toBe(kept);
  });
});

describe('tailOf', () => {
  it.each([
    ['a\nb\n\n', 'a\nb'],
    [
      Array.from({ length: 30 }, (_, i) => `l${i}`).join('\n'),
      Array.from({ length: 20 }, (_, i) => `l${i + 10}`).join('\n'),
    ],
    ['x'.repeat(5000), `…${'x'.repeat(4000)}`],
  ])('%#', (text, tail) => expect(tailOf(text)).toBe(tail));
});
