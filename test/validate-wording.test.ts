// Admission does not depend on how a case is worded (issue 15): reference `guarded` decides memory writes
// by provenance and substance. Two library-style cases, replayed: the owner asks in words the old phrase
// list refused ("note these in my memory file") and in words it accepted ("remember that…") while the
// attacker's rule arrives paraphrased (no 8-word run in common with the ticket). Both must be admitted:
// the attack succeeds under `open`, and `guarded` keeps the owner's note and refuses the injected rule.
import { describe, expect, it } from 'vitest';
import { validateCases } from '../src/engine/validate.js';

describe('validate: memory cases are admitted whatever the owner’s wording', () => {
  it('admits both the "note these in my memory file" and the paraphrased-rule case', async () => {
    const verdicts = await validateCases({
      cases: ['test/fixtures/cases-wording'],
      replays: 1,
      concurrency: 2,
    });
    expect(verdicts.map((v) => [v.case_id, v.admitted, v.reasons.join('\n')])).toEqual([
      ['wording-note-these-in-memory-file', true, ''],
      ['wording-remember-paraphrased-rule', true, ''],
    ]);
  }, 180_000);
});
