// A result names the engine that produced it: the commit of the checkout it ran from (and whether the
// files it runs differ from that commit), or the action's ref when it ran from no checkout.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { engineBuild } from '../src/engine/engine-build.js';
import { actionRoot } from '../src/paths.js';
import { describeEngine } from '../src/result/engine-name.js';

const SHA = 'a'.repeat(40);
/** A git that answers from a table: `rev-parse --show-toplevel`, `rev-parse HEAD`, `status …`. */
const fakeGit =
  (answers: { top?: string; head?: string; status?: string }) =>
  (args: string[]): string | undefined =>
    args[0] === 'status' ? answers.status : args.includes('--show-toplevel') ? answers.top : answers.head;

describe('engineBuild', () => {
  const root = actionRoot(); // a real folder, so the top-of-checkout comparison can resolve it
  const action = { GITHUB_ACTION_REPOSITORY: 'org/harness-risk-action', GITHUB_ACTION_REF: 'v1' };
  const cases: [string, Parameters<typeof fakeGit>[0], NodeJS.ProcessEnv, object][] = [
    ['a clean checkout', { top: root, head: SHA, status: '' }, {}, { commit: SHA }],
    [
      'a checkout with edited dist/',
      { top: root, head: SHA, status: ' M dist/cli.js' },
      {},
      { commit: SHA, modified: true },
    ],
    ['status unreadable: not claimed clean', { top: root, head: SHA }, {}, { commit: SHA, modified: true }],
    ['vendored inside a team repository: not its commit', { top: '/', head: SHA, status: '' }, {}, {}],
    ['no checkout, run as an action', {}, action, { ref: 'org/harness-risk-action@v1' }],
    [
      'a checkout run as an action (uses: ./): the commit',
      { top: root, head: SHA, status: '' },
      action,
      { commit: SHA },
    ],
    ['no checkout, no action', {}, {}, {}],
    ['a HEAD that is not a commit id', { top: root, head: 'HEAD', status: '' }, {}, {}],
  ];
  it.each(cases)('%s', (_name, git, env, expected) => {
    expect(engineBuild(root, env, fakeGit(git))).toEqual(expected);
  });

  it('reads the real checkout the tests run from', () => {
    const head = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(engineBuild(root, {}).commit).toBe(head);
  });
});

describe('describeEngine', () => {
  it.each([
    [{ version: '1.0.0' }, '1.0.0'],
    [{ version: '1.0.0', commit: SHA }, '1.0.0 (aaaaaaa)'],
    [{ version: '1.0.0', commit: SHA, modified: true }, '1.0.0 (aaaaaaa, modified)'],
    [{ version: '1.0.0', ref: 'org/x@v1' }, '1.0.0 (org/x@v1)'],
  ])('%j → %s', (tool, text) => {
    expect(describeEngine(tool)).toBe(text);
  });
});
