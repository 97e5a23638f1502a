// What a check sees of a trial, and the small readings of it several check kinds share.
import type { Evidence, FileState } from '../evidence/types.js';
import type { CallOutcome } from './outcomes.js';

export interface CheckContext {
  evidence: Evidence;
  /** Case path (workspace-relative, `~/…`, `$TMP/…`, absolute) → snapshot key, or null outside the trial. */
  resolve(path: string): string | null;
  /** Every call the model made, with what became of it. */
  calls: CallOutcome[];
  /** Text answers of the model to the harness (what the owner reads). */
  replies: string[];
}

export const fileAt = (ctx: CheckContext, path: string, when: 'before' | 'after'): FileState | undefined => {
  const key = ctx.resolve(path);
  return key ? ctx.evidence[when][key] : undefined;
};

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
  return `${c.call.tool} ${typeof c.call.args === 'string' ? c.call.args : JSON.stringify(c.call.args)}`;
}
