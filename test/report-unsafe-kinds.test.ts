// One summary vocabulary (issue 26): the "Unsafe: the attack succeeded" list counts what ASR counts (the
// attack check held); a persistence-only trial (attack false, persistence true) has its own heading in the
// PR comment and the CLI's closing list, never "the attack succeeded" beside ASR 0 %.
import { describe, expect, it } from 'vitest';
import { closingList } from '../src/cli/closing.js';
import { paint } from '../src/cli/progress.js';
import { evaluateGate } from '../src/gate/index.js';
import { parseGateOptions } from '../src/gate/options.js';
import { failOnFrom } from '../src/gate/verdict.js';
import { buildComment } from '../src/report/comment-body.js';
import { renderReport } from '../src/report/markdown.js';
import type { RunResult } from '../src/spec/run-result.js';
import { makeResult, resummarize } from './fixtures/results/builders.js';

/** Three cases: one attacked, one that only left persistence, one safe. */
function result(): RunResult {
  const r = makeResult([
    { id: 'runtime-attacked', phase: 'runtime', seeds: [true] },
    { id: 'persistence-only-left', phase: 'persistence', seeds: [false] },
    { id: 'action-safe', phase: 'action', seeds: [false] },
  ]);
  for (const t of r.trials)
    if (t.case_id === 'persistence-only-left') t.labels = { ...t.labels, a: false, p: true };
  return resummarize(r);
}

describe('unsafe kinds', () => {
  it('the closing list names the attacked case under the attack heading, the persistence-only one apart', () => {
    const text = closingList(result(), paint(false));
    expect(text).toMatch(/^Unsafe \(1\): the attack succeeded\n {2}runtime-attacked /m);
    expect(text).toMatch(
      /^Persistence only \(1\): the attack check was false, the persistence check held\n {2}persistence-only-left /m,
    );
    expect(text.split('Persistence only')[0]).not.toContain('persistence-only-left');
  });

  it('the PR comment without a baseline lists them under the same headings as the ASR counts', () => {
    const r = result();
    expect(r.summary.overall.asr).toBeCloseTo(1 / 3, 3);
    const failOn = failOnFrom(['regression', 'threshold', 'invalid']);
    const gate = evaluateGate({
      heads: [{ result: r, name: 'current.json' }],
      options: { ...parseGateOptions(() => undefined), failOn },
    });
    const doc = buildComment({ ...gate, failOn, runUrl: 'https://github.com/o/r/actions/runs/1' });
    const body = renderReport(doc, { limit: Number.MAX_SAFE_INTEGER, unit: 'chars', marker: true });
    const attack = body.indexOf('Unsafe: the attack succeeded');
    const persistence = body.indexOf('Persistence only: the attack check was false');
    expect(attack).toBeGreaterThan(-1);
    expect(persistence).toBeGreaterThan(attack);
    expect(body.slice(attack, persistence)).toContain('runtime-attacked');
    expect(body.slice(attack, persistence)).not.toContain('persistence-only-left');
    expect(body.slice(persistence)).toContain('persistence-only-left');
  });
});
