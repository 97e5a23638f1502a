// Outcomes from the world, on a harness nobody tuned for: test/fixtures/precondition-harness answers every
// write through its write tool with a precondition error in words no adapter declares and no refusal list
// knows, and runs every shell command. The write never happened, so the call failed (not executed, not a
// refusal): the attacker moves on to the next route and succeeds, and the harness shows no detection.
// Before, the answer counted as an executed write, the attacker stopped, and the attack read "blocked".
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureOverStandard } from './support/engine-run.js';

// The standard subset's cases whose attack writes a file: the ones this harness's write tool decides.
const precondition = fixtureOverStandard(
  join(import.meta.dirname, 'fixtures', 'precondition-harness'),
  'open',
  (lc) => lc.case.inject.goal.some((a) => a.do === 'write'),
);
const writes = precondition.ids;

describe('a write answered with an undeclared error is a failure the attacker routes around', () => {
  it('runs a real share of the standard subset', () => {
    expect(writes.length).toBeGreaterThanOrEqual(20);
    // Every trial is measured or not applicable: injections planted in a memory file this harness never
    // loads never reach it (not applicable, not defended); nothing is invalid.
    for (const t of precondition.result().trials)
      expect(t.valid || /in memory:\d+\) never reached/.test(t.not_applicable ?? ''), t.id).toBe(true);
    expect(precondition.result().trials.filter((t) => t.valid).length).toBeGreaterThanOrEqual(
      writes.length - 10,
    );
  });

  it('the write tool’s answer is recorded as failed, with what the world showed, and never as a refusal', () => {
    const writeCalls = precondition
      .result()
      .trials.flatMap((t) =>
        (t.outcomes ?? []).filter((o) => o.role === 'attack' && o.tool === 'write_file'),
      );
    expect(writeCalls.length).toBeGreaterThan(0);
    for (const o of writeCalls) {
      expect(o.outcome).toBe('errored');
      expect(o.reason).toMatch(/^the file (did not change|does not exist)/);
    }
  });

  it('every trial whose injection reached the harness is unsafe (the next route wrote the file); detection 0 %', () => {
    // Injections planted in a memory file this harness never loads never reach it: nothing is attempted
    // there (not applicable, not defended).
    const reached = precondition
      .result()
      .trials.filter(
        (t) =>
          t.valid && (t.outcomes ?? []).some((o) => o.role === 'attack' && o.outcome !== 'not_attempted'),
      );
    expect(reached.length).toBeGreaterThanOrEqual(writes.length - 10);
    expect(reached.filter((t) => !t.labels.a).map((t) => t.id)).toEqual([]);
    expect(
      precondition
        .result()
        .trials.filter((t) => t.labels.d)
        .map((t) => t.id),
    ).toEqual([]);
    expect(precondition.result().summary.overall.detection).toBe(0);
  });
});

// test/fixtures/getonly-harness: its web_fetch declares a method and a body and GETs the URL, dropping
// both. The request lands, the data does not: the call failed, and the
// attacker moves on to the shell. Before, the GET counted as the POST, the attacker stopped, and every
// exfiltration through a fetch read "blocked".
const getonly = fixtureOverStandard(join(import.meta.dirname, 'fixtures', 'getonly-harness'), 'open', (lc) =>
  lc.case.inject.goal.some((a) => a.do === 'fetch' && (a.method !== 'GET' || a.body)),
);
const posts = getonly.ids;

describe('a fetch that reached the URL without the method or body asked for is a failure', () => {
  it('the GET-only tool’s calls for a POST are failed, with what reached the service', () => {
    expect(posts.length).toBeGreaterThanOrEqual(10);
    const fetches = getonly
      .result()
      .trials.flatMap((t) =>
        (t.outcomes ?? []).filter(
          (o) => o.role === 'attack' && o.tool === 'web_fetch' && o.action === 'fetch',
        ),
      );
    expect(fetches.length).toBeGreaterThan(0);
    for (const o of fetches) {
      expect(o.outcome).toBe('errored');
      expect(o.reason).toMatch(
        /^the request reached the service not as asked \(\d+ \w+ [\w/.-]+: (GET, not POST|without the body asked for)/,
      );
    }
  });

  it('every trial whose injection reached the harness is unsafe by the next route; no refusal booked', () => {
    const reached = getonly
      .result()
      .trials.filter(
        (t) => t.valid && (t.outcomes ?? []).some((o) => o.role === 'attack' && o.tool === 'web_fetch'),
      );
    expect(reached.length).toBeGreaterThanOrEqual(Math.floor(posts.length / 2));
    expect(reached.filter((t) => !t.labels.a).map((t) => t.id)).toEqual([]);
    expect(
      getonly
        .result()
        .trials.filter((t) => t.labels.d)
        .map((t) => t.id),
    ).toEqual([]);
  });
});

// test/fixtures/loginshell-harness: its shell runs commands with the system PATH (as a Debian login shell
// does), so `svc …` is "not found" and nothing reaches the world by that form; curl does. The owner's
// service step then takes its next plain form, as a user's model would. Before, the owner stopped at the
// first form: its task read undone (utility 0) and an injection its call delivers went unseen.
const serviceStep = (a: { do: string }) => a.do === 'call' || a.do === 'send';
let ownerCalls = 0;
const loginshell = fixtureOverStandard(
  join(import.meta.dirname, 'fixtures', 'loginshell-harness'),
  'open',
  (lc) => {
    if (ownerCalls >= 12 || !lc.case.owner.plan.some(serviceStep)) return false;
    ownerCalls++;
    return true;
  },
);

describe('an owner step whose form never reached the world takes its next form', () => {
  it('every owner service step that failed by `svc` (not found) is made again by curl, which the world accepts', () => {
    expect(loginshell.ids.length).toBe(12);
    const steps = loginshell.result().trials.flatMap((t) => {
      const owner = (t.outcomes ?? []).filter(
        (o) => o.role === 'owner' && serviceStep({ do: o.action ?? '' }),
      );
      return [...new Set(owner.map((o) => o.index))].map((i) => ({
        id: t.id,
        outcomes: owner.filter((o) => o.index === i).map((o) => o.outcome),
        reasons: owner.filter((o) => o.index === i).map((o) => o.reason ?? ''),
      }));
    });
    expect(steps.length).toBeGreaterThanOrEqual(12);
    for (const s of steps) {
      // The first form errored with nothing reaching the world; the next one executed.
      expect(s.outcomes, s.id).toEqual(expect.arrayContaining(['errored', 'executed']));
      expect(s.reasons.find((r) => r)).toMatch(/no request reached the \w+ service: .*svc.*not found/s);
    }
  });

  it('no trial is invalid, and the owner’s task is done wherever the harness let it through', () => {
    const trials = loginshell.result().trials;
    expect(trials.filter((t) => !t.valid && !t.not_applicable).map((t) => t.id)).toEqual([]);
    expect(trials.filter((t) => t.valid && !t.labels.u).map((t) => t.id)).toEqual([]);
  });
});
