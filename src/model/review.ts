// Calls that are not agent turns: reviewer/approval calls (OpenClaw's exec safety reviewer wants
// {"decision": …}; Codex --approve-for-me asks for structured output with `outcome`) and title or
// summary calls. They get a fixed answer: the configuration's reviewer's verdict (REVIEWERS), or a short
// text.
import type { ScriptContext } from '../evidence/types.js';
import { type ReviewerMode, reviewerMode } from '../spec/reviewer-modes.js';
import type { Conversation } from './conversation.js';
import type { CallLedger } from './ids.js';

type Verdict = 'allow' | 'deny';

/**
 * What each reviewer mode answers (spec/reviewer-modes.ts names and documents them). The call under
 * review is the one the scripted model issued last: a harness reviews a call before it runs it, and the
 * model issues one call per answer.
 */
export const REVIEWERS: Record<ReviewerMode, (ledger: CallLedger) => Verdict> = {
  approve: () => 'allow',
  deny: () => 'deny',
  'follow-policy': (ledger) => (ledger.issued().at(-1)?.step.role === 'attack' ? 'deny' : 'allow'),
};

/** The verdict of the trial's reviewer on the call under review. */
export const reviewVerdict = (ctx: ScriptContext, ledger: CallLedger): Verdict =>
  REVIEWERS[ctx.reviewer ?? reviewerMode({ reviewer_verdict: ctx.reviewer_verdict })](ledger);
type Schema = { type?: unknown; properties?: Record<string, Schema>; enum?: unknown[]; items?: Schema };

const REVIEW_PROMPT =
  /\b(safety|security|risk|approval)[ -](review(er)?|decision|check)\b|\breviewer\b|\ballow\b[^.\n]{0,40}\bdeny\b|"(decision|outcome)"\s*:/i;
// Only the system prompt decides "title": an owner's task may well mention titles or summaries.
const TITLE_SYSTEM = /\btitle\b/i;
const SUMMARY_PROMPT = /\bsummar(y|ize|ise)\b[^.\n]{0,40}\b(conversation|session|thread)\b/i;

const VERDICT_KEYS = ['outcome', 'decision', 'verdict', 'result', 'action', 'approval'];
const ALLOW_WORDS = ['allow', 'allowed', 'approve', 'approved', 'yes', 'accept', 'permit'];
const DENY_WORDS = ['deny', 'denied', 'reject', 'rejected', 'no', 'block', 'refuse'];

const callableTools = (conv: Conversation) => conv.tools.filter((t) => t.callable);
const lastUserText = (conv: Conversation) =>
  conv.messages.filter((m) => m.role === 'user').at(-1)?.text ?? '';
const promptText = (conv: Conversation) => `${conv.system}\n${lastUserText(conv)}`;

/** The schema property that carries the verdict: one whose enum offers allow/deny words, else a known key. */
function verdictKey(schema: Schema | undefined): string | undefined {
  const props = schema?.properties ?? {};
  const byEnum = Object.keys(props).find((k) =>
    (props[k]?.enum ?? []).some(
      (v) => typeof v === 'string' && [...ALLOW_WORDS, ...DENY_WORDS].includes(v.toLowerCase()),
    ),
  );
  return byEnum ?? VERDICT_KEYS.find((k) => k in props);
}

/** A reviewer call: structured output with a verdict field, or a tool-less request whose prompt asks for one. */
export function isReviewCall(conv: Conversation): boolean {
  return asksVerdict(conv) || (callableTools(conv).length === 0 && REVIEW_PROMPT.test(promptText(conv)));
}

/**
 * A reviewer call by its instruction alone (a verdict field in the structured output, or a tool-less
 * request whose system prompt asks for a verdict), not by words in its content: a fetched page that talks
 * about reviewers is still a page (side-query.ts).
 */
export function asksVerdict(conv: Conversation): boolean {
  if (verdictKey(conv.outputSchema as Schema | undefined)) return true;
  return callableTools(conv).length === 0 && REVIEW_PROMPT.test(conv.system);
}

export function isTitleCall(conv: Conversation): boolean {
  return asksTitle(conv) || (callableTools(conv).length === 0 && SUMMARY_PROMPT.test(promptText(conv)));
}

/** A title call by its system prompt alone (its content, a page or a task, may say anything). */
export const asksTitle = (conv: Conversation): boolean =>
  callableTools(conv).length === 0 && TITLE_SYSTEM.test(conv.system);

/** The enum value that says the verdict; the verdict itself when the enum has no such word. */
function verdictValue(schema: Schema | undefined, verdict: Verdict): unknown {
  if (schema?.type === 'boolean') return verdict === 'allow';
  const words = verdict === 'allow' ? ALLOW_WORDS : DENY_WORDS;
  const match = (schema?.enum ?? []).find((v) => typeof v === 'string' && words.includes(v.toLowerCase()));
  return match ?? verdict;
}

/** A value that satisfies a property's schema, so strict structured-output parsers accept the answer. */
function filler(key: string, schema: Schema | undefined, verdict: Verdict): unknown {
  if (schema?.enum?.length) {
    const risk = verdict === 'allow' ? 'low' : 'high';
    return schema.enum.includes(risk) ? risk : schema.enum[0];
  }
  switch (schema?.type) {
    case 'boolean':
      return verdict === 'allow';
    case 'number':
    case 'integer':
      return verdict === 'allow' ? 0 : 1;
    case 'array':
      return [];
    case 'object':
      return fill(schema, verdict, undefined);
    default:
      return /reason|rationale|explanation|justification|summary|message/i.test(key)
        ? `Scripted reviewer verdict: ${verdict}.`
        : '';
  }
}

function fill(schema: Schema, verdict: Verdict, key: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, prop] of Object.entries(schema.properties ?? {})) {
    out[k] = k === key ? verdictValue(prop, verdict) : filler(k, prop, verdict);
  }
  return out;
}

/** The JSON text a reviewer call gets, in the key the request asks for. */
export function reviewAnswer(conv: Conversation, verdict: Verdict): string {
  const schema = conv.outputSchema as Schema | undefined;
  const key = verdictKey(schema);
  if (schema && key) return JSON.stringify(fill(schema, verdict, key));
  const prompt = promptText(conv);
  const example = exampleInPrompt(prompt);
  if (example) return JSON.stringify(answerExample(example, verdict));
  const asked = /"?outcome"?\s*:/i.test(prompt) || /\boutcome\b/i.test(prompt) ? 'outcome' : 'decision';
  return JSON.stringify({ [asked]: verdict, reason: `Scripted reviewer verdict: ${verdict}.` });
}

/**
 * A JSON shape written out in the prompt, as OpenClaw's exec reviewer does:
 * `Output schema: {"decision":"allow|deny|ask","risk":"low|medium|high|unknown","rationale":"…"}`.
 * Its parser rejects extra or missing keys, so the answer must follow the example exactly.
 */
export function exampleInPrompt(prompt: string): Record<string, string> | undefined {
  const m =
    /(?:output schema|respond with(?: only)?(?: this)? json|json (?:schema|shape|format))\s*:?\s*(\{[^\n]*\})/i.exec(
      prompt,
    );
  if (!m) return undefined;
  try {
    const parsed: unknown = JSON.parse(m[1]!);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const entries = Object.entries(parsed as Record<string, unknown>);
    if (!entries.some(([k]) => VERDICT_KEYS.includes(k))) return undefined;
    return Object.fromEntries(entries.map(([k, v]) => [k, String(v)]));
  } catch {
    return undefined;
  }
}

function answerExample(example: Record<string, string>, verdict: Verdict): Record<string, string> {
  const words = verdict === 'allow' ? ALLOW_WORDS : DENY_WORDS;
  const out: Record<string, string> = {};
  for (const [key, shape] of Object.entries(example)) {
    const options = shape.includes('|') ? shape.split('|').map((o) => o.trim()) : [];
    if (VERDICT_KEYS.includes(key)) {
      // A reviewer that may not deny can still refuse to approve: "ask" sends it to a human.
      out[key] =
        options.find((o) => words.includes(o.toLowerCase())) ??
        (verdict === 'deny' && options.includes('ask') ? 'ask' : verdict);
    } else if (options.length) {
      const risk = verdict === 'allow' ? 'low' : 'high';
      out[key] = options.includes(risk) ? risk : options[0]!;
    } else {
      out[key] = `Scripted reviewer verdict: ${verdict}.`;
    }
  }
  return out;
}

/** A short, stable title: the first words of the owner's request. */
export function titleAnswer(conv: Conversation): string {
  const first = conv.messages.find((m) => m.role === 'user')?.text ?? '';
  const words = first
    .replace(/<[^>]*>/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 6)
    .join(' ');
  return words || 'Task';
}
