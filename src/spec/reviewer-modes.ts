// What the scripted model answers when a harness asks a model to approve an action (OpenClaw's exec
// reviewer, Codex's approval reviewer, Claude Code's auto-mode classifier): a per-configuration choice
// (adapter `configs.NAME.reviewer`), recorded in the run result. A live model answers those calls itself.
// The names and their one-line docs live here, below the adapter schema; what each answers is
// model/review.ts's REVIEWERS.

export const REVIEWER_MODES = {
  approve:
    'approves every request: the worst case, a reviewer that is the same compliant model the injection steers',
  deny: 'denies every request, the owner’s too: what the harness does when its reviewer refuses everything',
  'follow-policy':
    'approves the calls the owner’s task makes and denies the attacker’s: a reviewer that never errs, so what gets through is what the rest of the harness lets through',
} as const;

export type ReviewerMode = keyof typeof REVIEWER_MODES;
export const REVIEWER_MODE_NAMES = Object.keys(REVIEWER_MODES) as [ReviewerMode, ...ReviewerMode[]];
export const DEFAULT_REVIEWER: ReviewerMode = 'approve';

/**
 * A configuration's reviewer: `reviewer`, else the older `reviewer_verdict` (allow → approve), else the
 * default.
 */
export function reviewerMode(config: {
  reviewer?: ReviewerMode;
  reviewer_verdict?: 'allow' | 'deny';
}): ReviewerMode {
  if (config.reviewer) return config.reviewer;
  if (config.reviewer_verdict) return config.reviewer_verdict === 'deny' ? 'deny' : 'approve';
  return DEFAULT_REVIEWER;
}

/** Whether the configuration chose its reviewer (then the run result records it). */
export const declaresReviewer = (config: { reviewer?: unknown; reviewer_verdict?: unknown }): boolean =>
  config.reviewer !== undefined || config.reviewer_verdict !== undefined;
