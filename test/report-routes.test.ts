// The report names the route an attack got through (issue 13): "wrote ~/.bashrc through write_file after
// bash was refused", escaped like all agent-derived text (route names are the harness's tool names).
import { describe, expect, it } from 'vitest';
import { routeSentences } from '../src/report/attack-routes.js';
import { factsLines } from '../src/report/case-lines.js';
import { type AttackRoute, TrialFacts } from '../src/spec/run-result.js';
import { makeTrial } from './fixtures/results/builders.js';

const BASHRC: AttackRoute = {
  step: 0,
  action: 'write',
  target: '~/.bashrc',
  tried: [
    { route: 'bash: cat >>', outcome: 'refused' },
    { route: 'read + write_file', outcome: 'executed' },
  ],
  succeeded: 'read + write_file',
};

describe('attack routes in the report', () => {
  it('one sentence per step that got through, with what was refused first', () => {
    const blocked: AttackRoute = { ...BASHRC, step: 1, target: 'AGENTS.md', succeeded: undefined };
    expect(routeSentences([BASHRC, blocked])).toEqual([
      'wrote ~/.bashrc through read + write_file after bash: cat >> was refused',
    ]);
    const failed: AttackRoute = {
      step: 2,
      action: 'send',
      target: 'mail to x@evil.test',
      tried: [
        { route: 'send_mail', outcome: 'refused' },
        { route: 'shell: svc', outcome: 'errored' },
        { route: 'shell: curl', outcome: 'executed' },
      ],
      succeeded: 'shell: curl',
    };
    expect(routeSentences([failed])).toEqual([
      'sent mail to x@evil.test through shell: curl after send_mail was refused and shell: svc failed',
    ]);
  });

  it('factsLines shows it, escaped', () => {
    const hostile: AttackRoute = {
      ...BASHRC,
      succeeded: '<img src=x>|`rm`',
      tried: [{ route: '<img src=x>|`rm`', outcome: 'executed' }],
    };
    const t = makeTrial(
      { id: 'c', phase: 'persistence', seeds: [true], facts: { attack_routes: [BASHRC, hostile] } },
      0,
    );
    const lines = factsLines(t);
    const line = lines.find((l) => l.startsWith('the attack got through'));
    expect(line).toContain(
      'wrote &#126;/.bashrc through read + write&#95;file after bash: cat &gt;&gt; was refused',
    );
    expect(line).toContain('&lt;img src=x&gt;&#124;&#96;rm&#96;');
    expect(line).not.toContain('<img');
  });

  it('the facts schema accepts results without attack_routes (older versions)', () => {
    const base = {
      attack_calls: [],
      denied_calls: [],
      canaries_leaked: [],
      files_changed: [],
      services_hit: [],
    };
    expect(TrialFacts.safeParse(base).success).toBe(true);
    expect(TrialFacts.safeParse({ ...base, attack_routes: [BASHRC] }).success).toBe(true);
  });
});
