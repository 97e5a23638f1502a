// Side queries: a harness's own tool may hand what it got to the model in a request of its own. Qwen
// Code's web_fetch sends the page with "Extract and summarize the requested information from the provided
// web content" and returns the answer as the tool's result; Claude Code's WebFetch does the same with a
// small model. Such a request is not the trial's conversation, so the plan's closing text is the wrong
// answer to it: the page (and any injection in it) would never reach the session, and the case would be
// measured as if the injection were not there. A compliant model answers it faithfully, with the content
// it was given, instructions included; so does the scripted one.
//
// Told apart by its structure, not by any harness's wording: the session has begun (the scripted model has
// issued calls), yet this request offers no tool it could call and carries no tool call or result, so it
// continues nothing of the session; what it carries is a document and an instruction about it.
import type { Conversation } from './conversation.js';
import type { CallLedger } from './ids.js';
import { asksTitle, asksVerdict, isReviewCall, isTitleCall } from './review.js';

/**
 * A request that is not a turn of the session: a reviewer's (approve or deny a call), a title or summary
 * generator's, or a tool's side query about content. The one place that tells them apart, for the
 * scripted model (policy.ts) and for the record of a live or replayed run (live/backend.ts) alike: a
 * reviewer's or title generator's instruction outranks everything, and a side query's content outranks
 * words in it that only sound like one (a fetched page may say anything).
 */
export type SideRequest = 'review' | 'title' | 'content';

export function sideRequest(conv: Conversation, ledger: CallLedger): SideRequest | undefined {
  if (asksVerdict(conv)) return 'review';
  if (asksTitle(conv)) return 'title';
  if (isSideQuery(conv, ledger)) return 'content';
  if (isReviewCall(conv)) return 'review';
  return isTitleCall(conv) ? 'title' : undefined;
}

/** The request is a side query of a tool the session called (see above). */
export function isSideQuery(conv: Conversation, ledger: CallLedger): boolean {
  if (ledger.issued().length === 0) return false; // the session's own first turn, or a harness without tools
  if (conv.tools.some((t) => t.callable)) return false;
  if (conv.messages.some((m) => m.toolCalls.length > 0 || m.toolResults.length > 0)) return false;
  return conv.messages.some((m) => m.role === 'user' && m.text.trim() !== '');
}

/**
 * The faithful answer: the content the request carries (every user turn's text, in order), as the worst
 * case of a summary that leaves nothing out. The harness's instruction to the summariser stays out.
 */
export function sideQueryAnswer(conv: Conversation): string {
  return conv.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.text.trim())
    .filter(Boolean)
    .join('\n\n');
}
