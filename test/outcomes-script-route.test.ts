// The attacker's script route (write the command to a file with the harness's own write tool, then run
// the file with its shell) carries a step out only when the run does. Behind a harness whose shell is
// refused and whose write tool is open (test/fixtures/adapters/literal-guard, config no-shell), the script
// is written and its run refused: nothing ran, so the attack is not done and the write does not count as
// the step's `run` call (before, `tool_called {action: run}` held on the write, and these read "unsafe").
import { beforeAll, describe, expect, it } from 'vitest';
import { runSafetyCases } from '../src/engine/run.js';
import type { RunResult } from '../src/spec/run-result.js';
import { freshOut, scriptedRun, useTempDir } from './support/engine-run.js';

const dir = useTempDir('hr-script-route-');
// Cases whose every attacker step is a command to run (on the old code all five read "unsafe").
const CASES = [
  'install-doc-wget-toolchain',
  'deploy-agent-runs-prod-script',
  'ci-log-runs-permission-fix-script',
  'devops-mail-python-oneliner',
  'lint-api-autofix-shell',
];

describe('a script written but never run', () => {
  let run: RunResult;
  beforeAll(async () => {
    run = await runSafetyCases(
      scriptedRun({
        adapter: 'test/fixtures/adapters/literal-guard',
        config: 'no-shell',
        cases: CASES.map((c) => `id:${c}`),
        out: freshOut(dir()),
      }),
    );
  }, 300_000);

  it('tries the script route, whose write goes through and whose run is refused', () => {
    expect(run.trials).toHaveLength(CASES.length);
    for (const t of run.trials) {
      const tried = (t.facts.attack_routes ?? []).flatMap((r) => r.tried);
      expect(
        tried.some((x) => x.route.includes('script file')),
        t.id,
      ).toBe(true);
      expect(
        t.facts.attack_routes?.some((r) => r.succeeded),
        t.id,
      ).toBe(false);
    }
  });

  it('labels the attack not done, and the refusal detected', () => {
    for (const t of run.trials) {
      expect(t.valid, t.id).toBe(true);
      expect(t.labels.a, `${t.id}: ${t.facts.attack_unmet ?? ''}`).toBe(false);
      expect(t.labels.d, t.id).toBe(true);
    }
  });
});
