// Real GitHub webhook payloads (@octokit/webhooks-examples), the ones the action tests start from. Each
// call returns a fresh copy, so a test may change its payload without changing another test's.
import { createRequire } from 'node:module';

export type Payload = Record<string, any>;

const require = createRequire(import.meta.url);
const WEBHOOKS: {
  name: string;
  examples: Payload[];
}[] = require('@octokit/webhooks-examples/api.github.com/index.json');

/** The first example of event `name` that `pick` accepts (the first of all without `pick`). */
export function webhookExample(name: string, pick: (e: Payload) => boolean = () => true): Payload {
  const e = WEBHOOKS.find((w) => w.name === name)?.examples.find(pick);
  if (!e) throw new Error(`@octokit/webhooks-examples has no matching ${name} example`);
  return structuredClone(e);
}

/** `pull_request` `opened` on Codertocat/Hello-World, as a repository's own workflow receives it. */
export const prOpened = () => webhookExample('pull_request', (e) => e.action === 'opened' && !e.installation);

/** The pull request of the examples: its repository, number and head commit. */
const OPENED = prOpened();
export const REPO = OPENED.repository.full_name as string; // Codertocat/Hello-World
export const PR = OPENED.pull_request.number as number;
export const HEAD_SHA = OPENED.pull_request.head.sha as string;
/** GITHUB_SHA of a pull_request run: the merge commit GitHub made (not in the payload). */
export const MERGE_SHA = 'c0ffee0000000000000000000000000000000002';

/**
 * The package has no pull_request from a fork; build one from its real parts: the PR's head repository
 * replaced by the real fork from the `fork` event (Octocoders/Hello-World).
 */
export function fromFork(pr: Payload): Payload {
  const forkee = webhookExample('fork').forkee;
  const e = structuredClone(pr);
  e.pull_request.head.repo = forkee;
  e.pull_request.head.user = forkee.owner;
  e.pull_request.head.label = `${forkee.owner.login}:${e.pull_request.head.ref}`;
  return e;
}
