// Which commit an event compares with, read from real webhook payloads (@octokit/webhooks-examples): a
// pull request's base, a merge queue group's base (the queue tests the merged result on the branch it
// merges into), the commit before a push; an event with none names none.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseOfEvent, readActionContext } from '../src/action/context.js';
import { baseCommitOf } from '../src/action/paired.js';
import { webhookExample } from './support/webhooks.js';

const example = webhookExample;

function contextOf(eventName: string, payload: unknown, sha = 'f'.repeat(40)) {
  const dir = mkdtempSync(join(tmpdir(), 'hr-ctx-'));
  writeFileSync(join(dir, 'event.json'), JSON.stringify(payload));
  return readActionContext({
    GITHUB_EVENT_NAME: eventName,
    GITHUB_EVENT_PATH: join(dir, 'event.json'),
    GITHUB_SHA: sha,
    GITHUB_REPOSITORY: 'octo-org/octo-repo',
    GITHUB_REF: 'refs/heads/x',
  });
}

describe('the base of an event', () => {
  it('merge_group: the queue base commit and branch; the group commit is the head', () => {
    const mg = example('merge_group');
    const ctx = contextOf('merge_group', mg, mg.merge_group.head_sha);
    expect(ctx.mergeGroup).toEqual({
      headSha: mg.merge_group.head_sha,
      headRef: mg.merge_group.head_ref,
      baseSha: mg.merge_group.base_sha,
      baseRef: 'main',
    });
    expect(baseCommitOf(ctx)).toEqual({ sha: mg.merge_group.base_sha, ref: 'main' });
  });

  it('pull_request: base.sha and base.ref; push: before (never the all-zero SHA of a new branch)', () => {
    const pr = example('pull_request', (e) => e.action === 'opened');
    expect(baseCommitOf(contextOf('pull_request', pr))).toEqual({
      sha: pr.pull_request.base.sha,
      ref: pr.pull_request.base.ref,
    });
    const push = example('push', (e) => e.ref === 'refs/heads/master');
    expect(baseOfEvent(contextOf('push', { ...push, before: 'a'.repeat(40) })).sha).toBe('a'.repeat(40));
    expect(baseOfEvent(contextOf('push', { ...push, before: '0'.repeat(40) })).sha).toBeUndefined();
  });

  it('an event without a base (a release) names none', () => {
    const release = example('release');
    expect(baseCommitOf(contextOf('release', release))).toBeUndefined();
    // A payload that merely contains a merge_group key is not a merge queue event.
    expect(contextOf('push', { merge_group: { base_sha: 'x' } }).mergeGroup).toBeUndefined();
  });
});
