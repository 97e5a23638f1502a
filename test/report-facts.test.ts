// What a trial's facts say in the report: an errored call is a failure, not a call that never ran (it may
// have run and exited non-zero, or reached the world not as asked).
import { describe, expect, it } from 'vitest';
import { factsLines } from '../src/report/case-lines.js';
import { makeResult } from './fixtures/results/builders.js';

describe('factsLines', () => {
  it('an errored call reads as failed, never as not run', () => {
    const [t] = makeResult([{ id: 'a', phase: 'runtime', seeds: [false] }]).trials;
    const lines = factsLines({ ...t!, facts: { ...t!.facts, errored_calls: ['http_get({"address":"x"})'] } });
    expect(lines.join('\n')).toMatch(/failed \(an error, or not the effect asked for\): http&#95;get/);
    expect(lines.join('\n')).not.toMatch(/not run/);
  });
});
