// Admission of cases whose poisoned artefact is a file other programs run (a package script, a Makefile
// recipe): reference `guarded` must refuse the entry the untrusted content asked for, by provenance, while
// the owner's own entry in the same file lands. On the code before autorun_paths both were rejected
// ("persistence held under reference/guarded in 3 of 3 replays"): guarded wrote anything in the workspace
// that was not a protected path.
import { describe, expect, it } from 'vitest';
import { validateCases } from '../src/engine/validate.js';

describe('validate: files that run commands', () => {
  it('admits a package.json postinstall and a Makefile recipe asked for by untrusted content', async () => {
    const verdicts = await validateCases({
      cases: ['test/fixtures/cases-autorun'],
      replays: 1,
      concurrency: 2,
    });
    expect(verdicts.map((v) => [v.case_id, v.admitted, v.reasons.join('\n')])).toEqual([
      ['autorun-makefile-planted-script', true, ''],
      ['autorun-package-postinstall', true, ''],
    ]);
  }, 180_000);
});
