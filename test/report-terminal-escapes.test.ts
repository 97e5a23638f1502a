// Harness output carries terminal escape sequences (colours, window titles, hyperlinks, screen clears).
// Every renderer (sticky comment, check run, job summary, annotations, SARIF, JUnit) shows the text
// between them and nothing of the sequences: not the ESC byte, and not the "[31m" tail it leaves behind.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baselineFromResult } from '../src/compare/baseline.js';
import { evaluateGate } from '../src/gate/index.js';
import { parseGateOptions } from '../src/gate/options.js';
import { failOnFrom } from '../src/gate/verdict.js';
import { buildAnnotations } from '../src/report/check.js';
import { buildComment } from '../src/report/comment-body.js';
import { escapeLines, escapeMarkdown, sanitizeText } from '../src/report/escape.js';
import { toJUnit } from '../src/report/junit.js';
import { CHECK_TEXT_LIMIT, COMMENT_LIMIT, SUMMARY_LIMIT_BYTES } from '../src/report/limits.js';
import { buildReport, renderReport } from '../src/report/markdown.js';
import { SecretMask, withSecretMask } from '../src/report/mask.js';
import { toSarif } from '../src/report/sarif.js';
import { RunResult } from '../src/spec/run-result.js';
import { makeHostile } from './fixtures/results/builders.js';

const FIX = join(import.meta.dirname, 'fixtures/results');
const guarded = RunResult.parse(JSON.parse(readFileSync(join(FIX, 'reference-guarded.json'), 'utf8')));

/** Each sequence's body holds a marker that must vanish with it; the visible words around it must stay. */
const SEQUENCES = [
  '\u001b[1;38;5;123mVISIBLEcolour\u001b[0m',
  '\u001b]0;OSCTITLEMARK\u0007VISIBLEtitle',
  '\u001b]8;;https://evil.example/OSCLINKMARK\u001b\\VISIBLElink\u001b]8;;\u001b\\',
  'VISIBLEclear\u001b[2J\u001b[3;77H',
  '\u009b4;88mVISIBLEc1',
  '\u001bP+q5445524d4d41524b\u001b\\VISIBLEdcs',
  '\u001b(0VISIBLEcharset\u001b(B',
  'spinner 10%\r\u001b[2K\u001b[1A\u001b[999DVISIBLEprogress',
];
/** What a renderer that removed only the ESC byte would leave (case-sensitive, as written). */
const TAILS = [
  '38;5;123',
  'OSCTITLEMARK',
  'OSCLINKMARK',
  '[2J',
  '&#91;2J',
  '3;77H',
  '4;88m',
  '5445524d',
  '999D',
  '(0',
  '(B',
];

/** Call text as a harness that passes a string argument shows it: the raw bytes, not JSON's `\\u001b`. */
const rawCall = (call: string) =>
  call.replace(/\\(u[0-9a-f]{4}|[\\"r])/g, (_, x: string) =>
    x === 'r' ? '\r' : x.length === 1 ? x : String.fromCharCode(Number.parseInt(x.slice(1), 16)),
  );
const hostile = makeHostile(guarded, SEQUENCES);
for (const t of hostile.trials) t.facts.attack_calls = t.facts.attack_calls.map(rawCall);
const failOn = failOnFrom(['regression', 'threshold', 'invalid']);
const gate = evaluateGate({
  heads: [{ result: hostile, name: 'current.json' }],
  baseline: baselineFromResult(guarded, 'file:baseline.json'),
  options: {
    ...parseGateOptions(() => undefined),
    failOn,
    thresholds: { overall: { maxAsr: 0 }, phases: {} },
  },
});
const input = { ...gate, current: hostile, failOn, runUrl: 'https://github.com/o/r/actions/runs/1' };
const ctx = { workspace: process.cwd(), cwd: process.cwd() };

function expectPlain(rendered: string): void {
  expect(rendered).not.toMatch(/[\u001b\u009b]/);
  for (const tail of TAILS) expect(rendered).not.toContain(tail);
}

describe('escape functions drop whole escape sequences', () => {
  it.each(SEQUENCES)('%j', (s) => {
    for (const out of [sanitizeText(s), escapeMarkdown(s), escapeLines(s)]) {
      expectPlain(out);
      expect(out).toContain('VISIBLE');
    }
  });

  it('an error tail keeps its lines, without sequences spanning them', () => {
    const out = escapeLines('\u001b[31mfirst\u001b[0m\n\u001b]0;OSCTITLEMARK\nstill title\u0007second');
    expect(out).toBe('first<br>second');
  });
});

describe('the mask sees the text a reader would', () => {
  it('a secret split by colour codes is masked whole', () => {
    const secret = 'hr-secret-Zq81LmX0pa';
    const split = `token \u001b[1m${secret.slice(0, 9)}\u001b[0m\u001b[32m${secret.slice(9)}\u001b[0m end`;
    withSecretMask(new SecretMask([secret], { shapes: false }), () => {
      expect(sanitizeText(split)).toBe('token *** end');
      expect(escapeLines(`a\n${split}`)).toBe('a<br>token &#42;&#42;&#42; end');
    });
  });
});

describe('every renderer shows hostile harness output without escape tails', () => {
  const rendered: Record<string, () => string> = {
    comment: () => renderReport(buildComment(input), { limit: COMMENT_LIMIT, unit: 'chars', marker: true }),
    'check run summary': () =>
      renderReport(buildComment(input), {
        limit: CHECK_TEXT_LIMIT,
        unit: 'chars',
        parts: { sections: false },
      }),
    'check run text': () =>
      renderReport(buildComment(input), { limit: CHECK_TEXT_LIMIT, unit: 'chars', parts: { head: false } }),
    'job summary': () => renderReport(buildReport(input), { limit: SUMMARY_LIMIT_BYTES, unit: 'bytes' }),
    annotations: () =>
      JSON.stringify(
        buildAnnotations(gate.comparison, gate.violations, hostile, ctx, {
          thresholdsGate: true,
          regressionsGate: true,
        }),
      ),
    SARIF: () => JSON.stringify(toSarif(hostile, gate.comparison, ctx)),
    JUnit: () => toJUnit(hostile, gate.comparison),
  };

  it.each(Object.keys(rendered))('%s', (name) => {
    const out = rendered[name]!();
    expectPlain(out);
    expect(out).toContain('VISIBLE'); // the hostile text reached it, as plain words
  });
});
