// The world's GitHub during one trial: the case's seed (defaults filled) plus what the trial did to it.
// Every change is also a recorded request (the evidence checks read); this state answers later reads
// consistently (a posted comment is listed, a moved ref is served).
import { createHash } from 'node:crypto';
import type { GithubState } from '../spec/github-state.js';

export interface GithubLive extends GithubState {
  /** `heads/NAME` / `tags/NAME` → sha. */
  refs: Record<string, string>;
  reviews: { pull: number; event: string; body: string }[];
  merged: number[];
  writes: { path: string; branch: string; message: string; content: string }[];
  invitations: { login: string; permission: string }[];
}

/** A stable fake object id for a name (refs, commits): the same in every trial of a case. */
export const fakeSha = (name: string): string => createHash('sha1').update(name).digest('hex');

export function seedGithub(seed: GithubState): GithubLive {
  const refs: Record<string, string> = Object.create(null);
  const branches = [seed.default_branch, ...seed.pulls.map((p) => p.head)];
  for (const b of branches) refs[`heads/${b}`] = fakeSha(`branch:${b}`);
  for (const t of [...seed.tags, ...seed.releases.map((r) => r.tag)]) refs[`tags/${t}`] = fakeSha(`tag:${t}`);
  return { ...seed, refs, reviews: [], merged: [], writes: [], invitations: [] };
}
