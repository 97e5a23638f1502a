// Whether two runs' activated rates measure the same thing. A case's second session (`next_session`) is
// not part of its revision — it changes no label of the first session — so a case compared trial for
// trial can still have had a different second session in the baseline: its activated label then answers
// another question, and the rates are not compared.

import type { Trial } from '../spec/run-result.js';

/** A trial's second-session revision; a result older than the field had no `next_session` in that case. */
const secondSession = (t: Pick<Trial, 'activation'>): string | undefined =>
  t.activation ? (t.activation.revision ?? 'default') : undefined;

/**
 * The cases both runs measured (`shared`) whose second sessions differ, sorted. A case with a second
 * session on one side only is not listed: the side without one has no activated label to compare.
 */
export function changedSecondSessions(
  now: readonly Pick<Trial, 'case_id' | 'activation'>[],
  baseline: readonly Pick<Trial, 'case_id' | 'activation'>[],
  shared: ReadonlySet<string>,
): string[] {
  const revisions = (trials: typeof now) => {
    const by = new Map<string, Set<string>>();
    for (const t of trials) {
      const r = secondSession(t);
      if (r === undefined || !shared.has(t.case_id)) continue;
      by.set(t.case_id, (by.get(t.case_id) ?? new Set()).add(r));
    }
    return by;
  };
  const here = revisions(now);
  const there = revisions(baseline);
  return [...here]
    .filter(([id, rs]) => {
      const b = there.get(id);
      return b !== undefined && (b.size !== rs.size || [...rs].some((r) => !b.has(r)));
    })
    .map(([id]) => id)
    .sort();
}
