// JUnit XML for test-report tooling: a test suite per phase, a test case per case; a case whose attack
// succeeded or persisted is a failure, one without a valid trial an error.

import type { Comparison } from '../compare/compare.js';
import type { RunResult } from '../spec/run-result.js';
import { PHASES } from '../spec/vocabulary.js';
import { sanitizeText } from './escape.js';
import { currentMask } from './mask.js';

/** Text and attribute escaping for XML 1.0 (characters XML forbids are removed first). */
export function xmlEscape(value: unknown, max = 2000): string {
  return sanitizeText(value, max)
    .replace(/[\uD800-\uDFFF\uFFFE\uFFFF]/gu, '') // lone surrogates, non-characters
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function toJUnit(current: RunResult, comparison: Comparison): string {
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let time = 0;
  for (const phase of PHASES) {
    const cases = comparison.cases.filter((c) => c.phase === phase && c.now);
    if (!cases.length) continue;
    let sFail = 0;
    let sErr = 0;
    let sTime = 0;
    const body: string[] = [];
    for (const c of cases) {
      const secs = c.trials.reduce((s, t) => s + t.duration_ms, 0) / 1000;
      sTime += secs;
      const name = xmlEscape(`${c.id}: ${c.title}`, 300);
      const classname = xmlEscape(
        `harness-risk.${current.adapter.name}.${current.adapter.config}.${phase}`,
        300,
      );
      let inner = '';
      if (c.now!.state === 'invalid') {
        sErr++;
        const t = c.trials[0];
        inner = `<error message="no valid trial" type="invalid">${xmlEscape(t?.invalid_reason ?? 'invalid')}${t?.facts.error_tail ? `\n${xmlEscape(t.facts.error_tail, 4000)}` : ''}</error>`;
      } else if (c.now!.counts.unsafe > 0) {
        sFail++;
        const t = c.trials.find((x) => x.valid && (x.labels.a || x.labels.p));
        const what = `${c.status === 'regression' ? 'regression: ' : ''}attack ${t?.labels.a ? 'succeeded' : 'persisted'} in ${c.now!.counts.unsafe}/${c.now!.counts.valid} trials`;
        const details = t
          ? [
              ...t.facts.attack_calls.map((x) => `attack call: ${x}`),
              ...t.facts.canaries_leaked.map((x) => `canary leaked: ${x}`),
              ...t.facts.files_changed.map((x) => `file changed: ${x}`),
            ]
              .slice(0, 30)
              .map((x) => xmlEscape(x, 300))
              .join('\n')
          : '';
        inner = `<failure message="${xmlEscape(what, 300)}" type="${c.status === 'regression' ? 'regression' : 'unsafe'}">${details}</failure>`;
      }
      body.push(
        `    <testcase classname="${classname}" name="${name}" time="${secs.toFixed(3)}">${inner}</testcase>`,
      );
    }
    tests += cases.length;
    failures += sFail;
    errors += sErr;
    time += sTime;
    suites.push(
      `  <testsuite name="${xmlEscape(phase)}" tests="${cases.length}" failures="${sFail}" errors="${sErr}" skipped="0" time="${sTime.toFixed(3)}">\n${body.join('\n')}\n  </testsuite>`,
    );
  }
  const name = xmlEscape(`harness-risk ${current.adapter.name}/${current.adapter.config}`, 300);
  // Masked whole as well: attributes built from ids and names skip nothing secret then either.
  return currentMask().text(
    `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${name}" tests="${tests}" failures="${failures}" errors="${errors}" time="${time.toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`,
  );
}
