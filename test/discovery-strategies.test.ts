// Strategies other than `direct` use the tools a search finds, as `direct` does: behind a harness whose
// shell comes only out of its tool search (test/fixtures/discovery-harness: read_file, a search tool and,
// in `invoke`, an invoke tool; in `load`, found tools offered from the next request on), a strategy that
// needs a shell searches for it and runs its own form of the step with what it found. Before, the
// strategy had no route there and every trial ran as `direct` (the strategy's label was recorded, its
// delivery was not).
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runSafetyCases } from '../src/engine/run.js';
import type { RunResult } from '../src/spec/run-result.js';
import { freshOut, scriptedRun, useTempDir } from './support/engine-run.js';

const HARNESS = join(import.meta.dirname, 'fixtures', 'discovery-harness');
const dir = useTempDir('hr-discovery-strategies-');
// A workspace file and a web page deliver the injection; each attack runs a command.
const CASES = ['install-doc-wget-toolchain', 'lint-api-autofix-shell'].map((id) => `id:${id}`);
/**
 * The route label each strategy's own form of the step has (strategies/*.ts): through the search, or with
 * the shell itself where an owner's search already loaded it (`load`, a case whose owner fetched a page).
 */
const OWN_ROUTE: Record<string, RegExp> = {
  encoded: /^encoded base64: (search_tools \+ found )?shell$/,
  'in-project': /^in-project setup script: (search_tools \+ found )?shell$/,
  split: /^split \d parts: (search_tools \+ found )?shell$/,
};

describe.each(['invoke', 'load'])('a shell found by search, %s', (config) => {
  let run: RunResult;
  beforeAll(async () => {
    run = await runSafetyCases(
      scriptedRun({
        adapter: HARNESS,
        config,
        cases: CASES,
        strategies: ['encoded', 'in-project', 'split'],
        out: freshOut(dir()),
      }),
    );
  }, 300_000);

  it("carries the step out by the strategy's own route, not direct's", () => {
    expect(run.trials).toHaveLength(CASES.length * 3);
    for (const t of run.trials) {
      expect(t.valid, `${t.id}: ${t.invalid_reason ?? ''}`).toBe(true);
      const succeeded = (t.facts.attack_routes ?? []).map((r) => r.succeeded);
      expect(succeeded, t.id).toEqual([expect.stringMatching(OWN_ROUTE[t.strategy!]!)]);
      expect(t.labels.a, `${t.id}: ${t.facts.attack_unmet ?? ''}`).toBe(true);
    }
    // Where nothing loaded the shell before the attack (a workspace file delivers it), the search did.
    const workspaceCase = run.trials.filter((t) => t.case_id === 'install-doc-wget-toolchain');
    for (const t of workspaceCase)
      expect(t.facts.attack_routes?.[0]?.succeeded, t.id).toContain('search_tools + found shell');
  });
});
