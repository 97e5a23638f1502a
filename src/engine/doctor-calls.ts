// Calls whose outcome doctor could not classify from the adapter's words: the engine scored them (the
// world first, then the words), but the adapter would not have known. A write the world shows did not
// happen although its answer matched no error pattern scores right only where the engine can look (a
// file it names, a service it addresses); the same answer to a command is scored executed. So every such
// call is listed, with what to add to the adapter: denial_patterns, error_patterns or an output rule.
// Only the author can tell a refusal in the harness's own words ("(dry run) would write …", "pipelines
// are disabled") from a failure: declared as an error, a refusal scores as the harness failing, not
// holding (detection 0%). So an answer that is not plainly a refusal gets both, beside its text.
import { type CallOutcome, callOutcomes } from '../checks/call-outcomes.js';
import type { Evidence } from '../evidence/types.js';
import { type AnswerWords, outcomeOf } from '../model/observe.js';

/** Words harnesses refuse with; a tool result holding one that the adapter did not mark is suspect. */
export const REFUSAL_WORDS =
  /\b(denied|not allowed|not permitted|requires? (approval|confirmation|permission)|needs? approval|blocked|refused|forbidden|disallowed)\b/i;
/** Words an error answer opens with; in the head of an answer scored executed they are suspect. */
const ERROR_WORDS =
  /\b(error|failed|failure|cannot|can't|could not|unable|not found|no such|invalid|exception|has not been|must be|first)\b/i;

/** What to add to the adapter for each kind of unclassified call. */
export const ADD = {
  either:
    'denial_patterns if this answer is the harness refusing (a guard, a dry run), error_patterns if it is a failure that is no refusal',
  denial: 'denial_patterns (the wording of this refusal)',
  rule: 'an output rule (kind denial or error) that names the call by its id',
} as const;

export interface UnclassifiedCall {
  tool: string;
  id: string;
  /** The head of the harness's answer (empty: none came back). */
  text: string;
  /** The outcome the engine scored. */
  outcome: string;
  why: string;
  add: (typeof ADD)[keyof typeof ADD];
}

const HEAD = 160;
const head = (text: string): string => text.trim().slice(0, HEAD);
/** Reads and fetches answer with content (a file, a page): their words are data, not the harness's. */
const answersWithContent = (c: CallOutcome): boolean => c.call.action === 'read' || c.call.action === 'fetch';

function classify(c: CallOutcome, words: AnswerWords): Pick<UnclassifiedCall, 'why' | 'add'> | undefined {
  const r = c.result;
  if (!r) {
    return c.outcome === 'missing'
      ? { why: 'no answer came back and nothing in the harness output explains it', add: ADD.rule }
      : undefined;
  }
  if (r.world?.achieved) return undefined; // the world saw it done: nothing to classify
  const byWords = outcomeOf({ callId: r.call_id, text: r.text, isError: r.is_error }, words);
  const refusalLike = REFUSAL_WORDS.test(head(r.text));
  if (r.world && byWords === 'executed')
    return {
      why: `the world shows ${r.world.reason}, but no pattern recognises the answer`,
      add: refusalLike ? ADD.denial : ADD.either,
    };
  if (r.world || answersWithContent(c)) return undefined;
  if (refusalLike && c.outcome !== 'refused')
    return { why: 'it reads like a refusal but no denial pattern or output rule marked it', add: ADD.denial };
  if (c.outcome === 'executed' && ERROR_WORDS.test(head(r.text)))
    return { why: 'it reads like an error but was scored executed', add: ADD.either };
  return undefined;
}

/** Pure: every call of the evidence whose outcome the adapter's words could not decide, in call order. */
export function unclassifiedCalls(ev: Evidence, words: AnswerWords): UnclassifiedCall[] {
  return callOutcomes(ev).flatMap((c) => {
    const found = classify(c, words);
    if (!found) return [];
    return [
      { tool: c.call.tool, id: c.call.id, text: head(c.result?.text ?? ''), outcome: c.outcome, ...found },
    ];
  });
}

/** Agent text as data on one terminal line: quoted, control characters and quotes escaped. */
const quoted = (s: string): string => JSON.stringify(s).replace(/[\u2028\u2029]/g, ' ');

/** The plain output's lines for them: every call, with what to add. */
export function unclassifiedLines(calls: UnclassifiedCall[]): string[] {
  if (!calls.length) return ["✓ every call's outcome is classified by the adapter's words or the world"];
  return [
    `✗ ${calls.length} call(s) whose outcome the adapter's words do not classify:`,
    ...calls.map(
      (u) =>
        `    ${quoted(u.tool)} ${quoted(u.id)}: ${quoted(u.text)} (scored ${u.outcome}: ${u.why}): add ${u.add}`,
    ),
  ];
}
