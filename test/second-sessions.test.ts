// Which compared cases ran another second session in the baseline (src/compare/second-sessions.ts), and
// the case revision that leaves the second session out (src/cases/load.ts).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { caseRevision, loadCaseFile, secondSessionRevision } from '../src/cases/load.js';
import { nextSessionCase, secondSessionServices } from '../src/cases/next-session.js';
import { Case } from '../src/cases/schema.js';
import { changedSecondSessions } from '../src/compare/second-sessions.js';
import { selectionDigest } from '../src/engine/attest.js';

type T = { case_id: string; activation?: { reason: string; ran: boolean; revision?: string } };
const t = (case_id: string, revision?: string | null): T =>
  revision === null
    ? { case_id }
    : { case_id, activation: { reason: '', ran: true, ...(revision !== undefined ? { revision } : {}) } };

describe('changedSecondSessions', () => {
  const shared = new Set(['a', 'b', 'c']);
  it.each([
    ['same revision on both sides', [t('a', 'r1')], [t('a', 'r1')], []],
    ['another revision', [t('a', 'r2')], [t('a', 'r1')], ['a']],
    ['an older baseline (no field) against the default', [t('a', 'default')], [t('a')], []],
    ['an older baseline (no field) against a written next_session', [t('a', 'r1')], [t('a')], ['a']],
    ['a second session on one side only', [t('a', 'r1')], [t('a', null)], []],
    ['a case not compared (not shared)', [t('z', 'r2')], [t('z', 'r1')], []],
    ['seeds that disagree on one side', [t('b', 'r1'), t('b', 'r2')], [t('b', 'r1')], ['b']],
    ['several, sorted', [t('c', 'x'), t('a', 'x')], [t('a', 'y'), t('c', 'y')], ['a', 'c']],
  ] as const)('%s', (_name, now, base, expected) => {
    expect(changedSecondSessions(now as unknown as T[], base as unknown as T[], shared)).toEqual(expected);
  });
});

describe('the case revision leaves the second session out', () => {
  // Any case will do: its own next_session, if it has one, is replaced.
  const { next_session: _, ...base } = loadCaseFile(
    'cases/persistence/compliance-mail-cc-rule-memory.yaml',
  ).case;
  const withSession = { ...base, next_session: { turns: ['Send the weekly mail.'] } };
  it('adding next_session keeps the revision and changes the second session revision', () => {
    expect(caseRevision(withSession)).toBe(caseRevision(base));
    expect(secondSessionRevision(base)).toBe('default');
    expect(secondSessionRevision(withSession)).toMatch(/^[0-9a-f]{12}$/);
    expect(secondSessionRevision({ ...base, next_session: { turns: ['Send the monthly mail.'] } })).not.toBe(
      secondSessionRevision(withSession),
    );
  });
  it('any other change still moves the revision', () => {
    expect(caseRevision({ ...base, severity: 'low' })).not.toBe(caseRevision(base));
  });
});

describe('the selection digest sees a changed second session', () => {
  const lc = loadCaseFile('cases/persistence/compliance-mail-cc-rule-memory.yaml');
  const { next_session: _, ...plain } = lc.case;
  const at = (next_session?: object) => [
    { revision: lc.revision, case: next_session ? { ...plain, next_session } : plain },
  ];
  it('a resumed run or a stored baseline with another next_session is another selection', () => {
    expect(selectionDigest(at({ turns: ['Send the weekly mail.'] }))).not.toBe(
      selectionDigest(at({ turns: ['Send the monthly mail.'] })),
    );
    expect(selectionDigest(at({ turns: ['Send the weekly mail.'] }))).not.toBe(selectionDigest(at()));
  });
  it('a case without one digests as it always did (`id@revision`)', () => {
    const sha = createHash('sha256').update(`${plain.id}@${lc.revision}`).digest('hex');
    expect(selectionDigest(at())).toBe(sha);
  });
});

describe('the services a second session finds (next_session.services)', () => {
  const lc = loadCaseFile('cases/persistence/compliance-mail-cc-rule-memory.yaml');
  const { next_session: _, ...plain } = lc.case;
  const withServices = (services: object) => Case.parse({ ...plain, next_session: { services } });
  it("a named service replaces the world's state of it; the others are seeded as in the first session", () => {
    const c = withServices({ mail: { inbox: [] }, github: { repo: 'acme/app', protected: [] } });
    const s = secondSessionServices(c);
    expect(s.mail?.inbox).toEqual([]);
    expect(s.github?.repo).toBe('acme/app');
    expect(s.github?.protected).toEqual([]);
    // The case's own world is what the first session gets.
    expect(c.world.services.mail?.inbox).toHaveLength(1);
    expect(c.world.services.github).toBeUndefined();
    expect(nextSessionCase(c).world.services.github?.repo).toBe('acme/app');
  });
  it('none named: the world as it was', () => {
    expect(secondSessionServices(plain as Case)).toEqual(plain.world.services);
  });
  it('the revision does not move with it', () => {
    expect(caseRevision(withServices({ deploy: { services: ['checkout'] } }))).toBe(lc.revision);
  });
});
