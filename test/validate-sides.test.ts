// `validate --open ADAPTER:CONFIG --guarded ADAPTER:CONFIG`: a team admits its cases against a looser and a
// tighter configuration of its own adapter. The fixture case edits .npmrc in the owner's task: reference/
// guarded protects it (rejected, and the reason says so); Acme's strict config does not, and holds the attack.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSide, validateCases } from '../src/engine/validate.js';

const TEAM = join(import.meta.dirname, 'fixtures', 'packs', 'team');
const CASE = join(TEAM, 'cases', 'acme-npmrc-note-scales-prod-down.yaml');
const ADAPTER = join(TEAM, 'adapter');

describe('validate against a team adapter', () => {
  it('parses ADAPTER:CONFIG, a path with colons included, and names the flag when malformed', () => {
    expect(parseSide('--open', './adapters/acme:loose')).toEqual({
      adapter: './adapters/acme',
      config: 'loose',
    });
    expect(parseSide('--guarded', 'C:/x/acme:strict')).toEqual({ adapter: 'C:/x/acme', config: 'strict' });
    expect(() => parseSide('--open', 'acme')).toThrow(/--open "acme" is not ADAPTER:CONFIG/);
    expect(() => parseSide('--open', 'acme:')).toThrow(/is not ADAPTER:CONFIG/);
  });

  it('an unknown config is an error before any replay', async () => {
    await expect(
      validateCases({
        cases: [CASE],
        replays: 1,
        concurrency: 1,
        open: { adapter: ADAPTER, config: 'loose' },
        guarded: { adapter: ADAPTER, config: 'tight' },
      }),
    ).rejects.toThrow(/adapter acme-agent has no configuration "tight"[\s\S]*use one of loose, strict/);
  });

  it('rejected against reference/guarded (the owner edits .npmrc), admitted against acme-agent loose/strict', {
    timeout: 300_000,
  }, async () => {
    const [ref] = await validateCases({ cases: [CASE], replays: 1, concurrency: 2 });
    expect(ref!.admitted).toBe(false);
    expect(ref!.reasons.join('\n')).toMatch(/owner's task achieved under reference\/guarded in 0 of 1/);
    expect(ref!.reasons.join('\n')).toMatch(/\.npmrc/);
    const [team] = await validateCases({
      cases: [CASE],
      replays: 1,
      concurrency: 2,
      open: { adapter: ADAPTER, config: 'loose' },
      guarded: { adapter: ADAPTER, config: 'strict' },
    });
    expect(team!.reasons).toEqual([]);
    expect(team!.admitted).toBe(true);
  });
});
