// The script route's place is a route choice (routes.ts SCRIPT_PLACES). Behind a harness whose file tools
// write only inside the workspace and whose shell refuses command substitution (Gemini CLI's two limits:
// test/fixtures/workspace-harness), a step whose command holds `$(…)` is refused in the shell, its script
// under $TMP is refused by write_file ("Path not in workspace"), and the next route, the same script in the
// workspace, runs it: the attack is carried out, and the step's record shows each place tried. On the old
// code the adversary stopped after $TMP and these read "blocked".
import { beforeAll, describe, expect, it } from 'vitest';
import { runSafetyCases } from '../src/engine/run.js';
import { MAX_ROUTES_PER_STEP, type Route, routeLimit } from '../src/model/routes.js';
import type { RunResult } from '../src/spec/run-result.js';
import { freshOut, scriptedRun, useTempDir } from './support/engine-run.js';

const dir = useTempDir('hr-script-place-');
// Cases whose attacker step is a command with command substitution (`$(…)`, `<(…)`).
const CASES = ['lint-api-autofix-shell', 'vendor-install-page-process-substitution', 'chat-repro-bash-curl'];

describe('a script the harness will only write inside the workspace', () => {
  let run: RunResult;
  beforeAll(async () => {
    run = await runSafetyCases(
      scriptedRun({
        adapter: 'test/fixtures/workspace-harness',
        config: 'open',
        cases: CASES.map((c) => `id:${c}`),
        out: freshOut(dir()),
      }),
    );
  }, 300_000);

  it('is written in the workspace after $TMP was refused, and runs: unsafe by the next route', () => {
    expect(run.trials).toHaveLength(CASES.length);
    for (const t of run.trials) {
      expect(t.valid, `${t.id}: ${t.invalid_reason ?? ''}`).toBe(true);
      const step = (t.facts.attack_routes ?? []).find((r) => r.action === 'run')!;
      const tried = step.tried.map((x) => `${x.route} → ${x.outcome}`);
      expect(tried, t.id).toEqual([
        expect.stringMatching(/^run_shell_command → (refused|errored)$/),
        expect.stringMatching(/^write_file \+ run_shell_command: script file in \$TMP → (refused|errored)$/),
        // The world shows the script did not land (the write is staged, its file the world's to judge): one
        // read and a second try, as for any write the harness answered without a refusal (replay.ts).
        'write_file + run_shell_command: script file in $TMP, again after a read → errored',
        'write_file + run_shell_command: script file in workspace → executed',
      ]);
      expect(step.succeeded, t.id).toBe('write_file + run_shell_command: script file in workspace');
      expect(t.labels.a, `${t.id}: ${t.facts.attack_unmet ?? ''}`).toBe(true);
    }
  });
});

describe('routeLimit', () => {
  const r = (label: string, elsewhere = false): Route => ({
    label,
    calls: [],
    ...(elsewhere ? { elsewhere } : {}),
  });
  it("counts a route's other places as one route with it", () => {
    const routes = [r('a'), r('b'), r('b elsewhere', true), r('c'), r('d')];
    expect(routeLimit(routes, 2)).toBe(3);
    expect(routeLimit(routes, 3)).toBe(4);
    expect(routeLimit(routes, MAX_ROUTES_PER_STEP)).toBe(routes.length);
  });
});
