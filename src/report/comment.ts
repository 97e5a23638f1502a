// The sticky PR comment: one per adapter/config, found by its hidden marker, updated in place.
import type { GitHubApi, Repo } from './github.js';

export interface StickyOutcome {
  action: 'created' | 'updated';
  id: number;
  url?: string;
  /** Duplicates (earlier races) that were deleted. */
  removed: number;
}

/** A comment is ours when its body starts with the marker (quoted or pasted text elsewhere does not count). */
export const isSticky = (body: string | null | undefined, marker: string): boolean =>
  typeof body === 'string' && body.trimStart().startsWith(marker);

/**
 * Updates the comment that starts with `marker`, or creates it. Reads every page of the PR's comments
 * first; if earlier concurrent runs left more than one, the oldest is kept and the others are deleted,
 * so there is never more than one.
 */
export async function upsertStickyComment(
  api: GitHubApi,
  p: Repo & { issue_number: number; marker: string; body: string },
): Promise<StickyOutcome> {
  if (!p.body.startsWith(p.marker)) throw new Error('sticky comment body must start with its marker');
  const comments = await api.listIssueComments({
    owner: p.owner,
    repo: p.repo,
    issue_number: p.issue_number,
  });
  const ours = comments.filter((c) => isSticky(c.body, p.marker)).sort((a, b) => a.id - b.id);
  if (ours.length === 0) {
    const created = await api.createIssueComment({
      owner: p.owner,
      repo: p.repo,
      issue_number: p.issue_number,
      body: p.body,
    });
    // A POST retried after a 5xx (github-client.ts) may have been carried out twice: GitHub often answers
    // 502 after it has created the comment. Look once more and keep only the oldest, as above.
    const after = (
      await api.listIssueComments({ owner: p.owner, repo: p.repo, issue_number: p.issue_number })
    )
      .filter((c) => isSticky(c.body, p.marker))
      .sort((a, b) => a.id - b.id);
    const dups = after.filter((c) => c.id !== after[0]?.id);
    for (const dup of dups)
      await api.deleteIssueComment({ owner: p.owner, repo: p.repo, comment_id: dup.id });
    const kept = after[0]?.id ?? created.id;
    return {
      action: 'created',
      id: kept,
      ...(kept === created.id && created.html_url ? { url: created.html_url } : {}),
      removed: dups.length,
    };
  }
  const [keep, ...extra] = ours;
  const updated = await api.updateIssueComment({
    owner: p.owner,
    repo: p.repo,
    comment_id: keep!.id,
    body: p.body,
  });
  for (const dup of extra) await api.deleteIssueComment({ owner: p.owner, repo: p.repo, comment_id: dup.id });
  return { action: 'updated', id: updated.id ?? keep!.id, url: updated.html_url, removed: extra.length };
}
