// What a check sees of a trial, and the small readings of it several check kinds share. A snapshot a cap
// cut short (evidence.snapshot_caps) did not see everything: a reading that depends on what it missed
// throws Undecided instead of answering "absent" or "unchanged", so no cap can make a trial look safe.
import { comparable, type Evidence, type FileState, hiddenBy } from '../evidence/types.js';
import { type CallOutcome, callOutcomes } from './call-outcomes.js';

/** A check cannot be decided: what it reads lies where a capped snapshot did not look. */
export class Undecided extends Error {}

export interface CheckContext {
  evidence: Evidence;
  /** Case path (workspace-relative, `~/…`, `$TMP/…`, absolute) → snapshot key, or null outside the trial. */
  resolve(path: string): string | null;
  /** Every call the model made, with what became of it. */
  calls: CallOutcome[];
  /** Text answers of the model to the harness (what the owner reads). */
  replies: string[];
}

/** The context checks read for one trial: its evidence, the per-call outcomes and the model's replies. */
export function makeCheckContext(evidence: Evidence, resolve: CheckContext['resolve']): CheckContext {
  const replies = evidence.model
    .filter((ex) => !ex.review && ex.response.kind === 'text')
    .map((ex) => (ex.response as { text: string }).text);
  return { evidence, resolve, calls: callOutcomes(evidence), replies };
}

export const fileAt = (ctx: CheckContext, path: string, when: 'before' | 'after'): FileState | undefined => {
  const key = ctx.resolve(path);
  return key ? stateAt(ctx, key, when) : undefined;
};

/** The state at a snapshot key; throws Undecided when the key is missing where a cap hid it. */
export function stateAt(ctx: CheckContext, key: string, when: 'before' | 'after'): FileState | undefined {
  const state = ctx.evidence[when][key];
  if (state === undefined && hiddenBy(ctx.evidence.snapshot_caps?.[when], key))
    throw new Undecided(`${key}: the ${when} snapshot was capped before it reached this path`);
  return state;
}

/** A file's text, for content checks; throws Undecided when the file was hashed in part. */
export function textOf(key: string, state: FileState | undefined): string | undefined {
  if (state?.partial !== undefined)
    throw new Undecided(`${key}: hashed in part (snapshot byte cap); its content was not read`);
  return state?.text;
}

/** Whether a file changed between the snapshots (either side absent counts); Undecided when unseen. */
export function changedAt(ctx: CheckContext, key: string): boolean {
  const before = stateAt(ctx, key, 'before');
  const after = stateAt(ctx, key, 'after');
  if (!before || !after) return before !== after;
  if (!comparable(before, after) || (before.hash === after.hash && before.partial !== undefined))
    throw new Undecided(
      `${key}: hashed in part (snapshot byte cap); a change after the first bytes is unseen`,
    );
  return before.hash !== after.hash;
}

/**
 * Throws Undecided when something under one of `prefixes` (snapshot keys; all of them when empty) may
 * have changed unseen: a folder a cap kept from being listed, or a file hashed in part. For checks over
 * the diff that found nothing.
 */
export function assertSeen(ctx: CheckContext, prefixes: string[], except: string[] = []): void {
  const { snapshot_caps: caps, before, after } = ctx.evidence;
  const relevant = (k: string) =>
    (prefixes.length === 0 || prefixes.some((p) => under(k, [p]) || under(p, [k]))) && !under(k, except);
  const unlisted = [...(caps?.before?.unlisted ?? []), ...(caps?.after?.unlisted ?? [])].find(relevant);
  if (unlisted) throw new Undecided(`${unlisted}: a capped snapshot did not list this folder in full`);
  if (!caps) return;
  for (const snap of [before, after])
    for (const [k, s] of Object.entries(snap))
      if (s.partial !== undefined && relevant(k))
        throw new Undecided(`${k}: hashed in part (snapshot byte cap); a change in it is unseen`);
}

/** The value at a dotted key (`a.b.c`) of a parsed document. */
export function getKey(obj: unknown, dotted: string): unknown {
  let cur: unknown = obj;
  for (const part of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Keys under one of the given snapshot prefixes (folders). */
export const under = (key: string, prefixes: string[]) =>
  prefixes.some((p) => key === p || key.startsWith(`${p.replace(/\/$/, '')}/`));

/** A call as text, for `contains` filters: the tool name and its arguments. */
export function callText(c: CallOutcome): string {
  const args = typeof c.call.args === 'string' ? c.call.args : JSON.stringify(c.call.args);
  return `${c.call.tool} ${args}${c.call.carries === undefined ? '' : ` ${c.call.carries}`}`;
}
