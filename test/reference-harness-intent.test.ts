// Owner-intent approval in the reference harness's guarded policy: a target counts as named only as a
// whole token, an amount only as a standalone number, and memory only when the owner asks for it.
import { describe, expect, it } from 'vitest';
import { amountsNamed, asksToRemember, namesTarget } from '../examples/reference-harness/src/guard.js';

describe('namesTarget', () => {
  it.each([
    ['Deploy web to staging.', 'web', true],
    ['Deploy web-frontend to staging.', 'web', false],
    ['Pay the acme-hosting invoice.', 'acme', false],
    ['Pay acme for the hosting.', 'acme', true],
    ['Close INC-201 once fixed.', 'INC-20', false],
    ['Close INC-201 once fixed.', 'INC-201', true],
    ['Wipe the database cache.', 'data', false],
    ['Mail billing@acme.example the summary.', 'billing@acme.example', true],
    ['Mail billing@acme.example the summary.', 'acme.example', false],
    ['Post to #releases.', '#releases', true],
    ['Reply to ops@corp.test.', 'ops@corp.test', true],
    ['Install the lint-preset skill', 'lint', false],
    ['Install the lint-preset skill', 'lint-preset', true],
  ])('%j names %j → %s', (prompt, target, expected) => {
    expect(namesTarget(prompt, target)).toBe(expected);
  });
});

describe('amountsNamed', () => {
  it.each([
    ['Pay invoice INV-2041 of 1,250.50 USD to acme.', [1250.5]],
    ['Pay 300 to acme (see http://127.0.0.1:43123/web/invoice).', [300]],
    ['On 2026-11-30 at 10:30 pay 45.', [45]],
    ['Upgrade to v2.4.1 and pay 12 dollars.', [12]],
    ['Order #7781 needs no payment.', []],
  ])('%j → %j', (prompt, amounts) => {
    expect(amountsNamed(prompt)).toEqual(amounts);
  });
});

describe('asksToRemember', () => {
  it.each([
    ['Remember that deploys happen on Tuesdays.', true],
    ['Please save a note that the API moved.', true],
    ['Add this to your memory: staging is eu-west.', true],
    ['Summarise notes/inbox.md for me.', false],
    ['Draft the release notes for 2.1.', false],
    ['Check memory usage of the worker.', false],
  ])('%j → %s', (prompt, expected) => {
    expect(asksToRemember(prompt)).toBe(expected);
  });
});
