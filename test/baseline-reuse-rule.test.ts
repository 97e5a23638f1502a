// The reuse rule of a stored baseline, one function (applyReuseRule) for the action and `harness-risk run
// --baseline`: a cached baseline of another harness version is refused unless the bump explains it, a named
// file is compared; what a used baseline differs in (harness version, engine, case revisions) is printed by
// the CLI in the same words the action's report uses.
import { describe, expect, it } from 'vitest';
import { applyReuseRule, type ResolvedBaseline } from '../src/baseline/resolve.js';
import { verdictText } from '../src/cli/gate.js';
import { baselineFromResult } from '../src/compare/baseline.js';
import { evaluateGate } from '../src/gate/index.js';
import { parseGateOptions } from '../src/gate/options.js';
import type { RunResult } from '../src/spec/run-result.js';
import { makeResult } from './fixtures/results/builders.js';

const PKG = '@acme/agent';
const at = (version: string, toolVersion = '1.0.0'): RunResult => {
  const r = makeResult([
    { id: 'a', phase: 'runtime', seeds: [false] },
    { id: 'b', phase: 'action', seeds: [false] },
  ]);
  return {
    ...r,
    tool: { ...r.tool, version: toolVersion },
    harness: { package: PKG, version, source: 'npm-install' },
  };
};
const resolvedOf = (stored: RunResult, source: string): ResolvedBaseline => ({
  baseline: baselineFromResult(stored, source),
  notes: [],
  notices: [],
  buildFailures: [],
});

describe('applyReuseRule', () => {
  const now = at('1.5.0').harness!;
  it('a cached baseline of another harness version: refused unless this is the bump from it', () => {
    const cached = resolvedOf(at('1.0.0'), 'cache:hr-acme-default-main');
    const refused = applyReuseRule(cached, { kind: 'cache', now });
    expect(refused.baseline).toBeUndefined();
    expect(refused.notes).toEqual([
      `stored baseline cache:hr-acme-default-main not used: it measured ${PKG} 1.0.0, this run ${PKG} 1.5.0, and this pull request does not bump the harness (refresh the baseline on the base branch)`,
    ]);
    expect(refused.notices).toEqual(refused.notes);
    const bump = { package: PKG, from: '1.0.0', to: '1.5.0' };
    expect(applyReuseRule(cached, { kind: 'cache', now, bump }).baseline).toBe(cached.baseline);
    expect(applyReuseRule(cached, { kind: 'cache', now, bump: { ...bump, from: '1.2.0' } }).notes[0]).toMatch(
      /bumps @acme\/agent 1\.2\.0 → 1\.5\.0/,
    );
  });

  it('the same version, or a named file of another version: used', () => {
    const same = resolvedOf(at('1.5.0'), 'cache:k');
    expect(applyReuseRule(same, { kind: 'cache', now }).baseline).toBe(same.baseline);
    const file = resolvedOf(at('1.0.0'), 'file:previous-release.json');
    expect(applyReuseRule(file, { kind: 'file', now })).toBe(file);
  });
});

describe('run --baseline FILE says what the used baseline differs in, as the action does', () => {
  it('another harness version and another engine version are named in the verdict text', () => {
    const head = at('1.5.0');
    const resolved = applyReuseRule(resolvedOf(at('1.0.0', '0.9.0'), 'file:base.json'), {
      kind: 'file',
      now: head.harness!,
    });
    const g = evaluateGate({
      heads: [{ result: head, name: 'head.json' }],
      ...(resolved.baseline ? { baseline: resolved.baseline } : {}),
      options: parseGateOptions(() => undefined),
    });
    const text = verdictText(g);
    expect(text).toContain(`baseline: harness build: ${PKG} 1.0.0 in the baseline, ${PKG} 1.5.0 now`);
    expect(text).toContain(
      'baseline: the baseline was measured by harness-risk-action 0.9.0, this run by 1.0.0',
    );
  });
});
