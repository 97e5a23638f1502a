// Containment is attested by the engine, not by the file (issue 33). A result read back from disk — a
// report-only run, merged shards, a stored baseline — keeps its containment claim only when this engine
// can verify the MAC the engine that ran it wrote; otherwise the claim is `unverified` and never green.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRunResult } from '../src/compare/baseline.js';
import { mergeRunResults } from '../src/compare/merge.js';
import { runSafetyCases } from '../src/engine/run.js';
import { evaluateGate } from '../src/gate/index.js';
import {
  attestedContainment,
  canonicalJson,
  checkAttestation,
  keyFrom,
  newMachineKey,
  signResult,
} from '../src/result/attestation.js';
import { resultBytes } from '../src/result/integrity.js';
import type { RunnerInfo, RunResult } from '../src/spec/run-result.js';
import { makeResult } from './fixtures/results/builders.js';
import { ensureBundle, ROOT } from './support/action-bundle.js';
import { scriptedRun } from './support/engine-run.js';
import { gateOptions } from './support/gate-options.js';
import { bwrapSkipReason } from './support/requirements.js';

const NS: RunnerInfo = { name: 'process', containment: 'namespaces', mechanism: 'bubblewrap' };
const UNC: RunnerInfo = {
  name: 'process',
  containment: 'uncontained',
  mechanism: 'child',
  reason: 'requested',
};
const K = keyFrom('k'.repeat(40), 'HR_ATTEST_KEY');
const OTHER = keyFrom('o'.repeat(40), 'HR_ATTEST_KEY');
const result = (containment: RunnerInfo): RunResult => ({
  ...makeResult([{ id: 'c1', phase: 'runtime', seeds: [false] }]),
  containment,
});
/** The file the engine would write: signed, serialised, parsed back as JSON. */
const signedFile = (doc: RunResult, key = K): unknown =>
  JSON.parse(resultBytes({ ...doc, attestation: signResult(doc, key) }));
const editedClaim = (raw: unknown, containment: RunnerInfo) => ({ ...(raw as object), containment });

describe('attestedContainment', () => {
  const table: [string, () => unknown, RunnerInfo['containment'], RegExp?][] = [
    ['signed, unchanged → the claim stands', () => signedFile(result(NS)), 'namespaces'],
    [
      'unsigned → unverified',
      () => JSON.parse(resultBytes(result(NS))),
      'unverified',
      /no engine attestation/,
    ],
    [
      'signed uncontained, edited to namespaces → unverified',
      () => editedClaim(signedFile(result(UNC)), NS),
      'unverified',
      /changed after the engine signed it/,
    ],
    [
      'a trial edited after signing → unverified',
      () => {
        const raw = signedFile(result(NS)) as RunResult;
        return { ...raw, trials: raw.trials.map((t) => ({ ...t, labels: { ...t.labels, a: true } })) };
      },
      'unverified',
      /changed after/,
    ],
    [
      'signed by a key this engine lacks → unverified',
      () => signedFile(result(NS), OTHER),
      'unverified',
      /does not hold/,
    ],
    ['uncontained needs no proof', () => JSON.parse(resultBytes(result(UNC))), 'uncontained'],
  ];
  for (const [name, raw, want, why] of table)
    it(name, () => {
      const r = raw();
      const c = attestedContainment(r, r as RunResult, [K]);
      expect(c.containment).toBe(want);
      if (want === 'unverified') {
        expect(c.claimed).toBe((r as RunResult).containment!.containment);
        expect(c.reason).toMatch(why!);
      }
    });

  it('the MAC does not depend on key order (the file parsed back is the document written)', () => {
    const raw = signedFile(result(NS)) as Record<string, unknown>;
    const reversed = Object.fromEntries(Object.entries(raw).reverse());
    expect(checkAttestation(reversed, [K]).ok).toBe(true);
    const parts: string[] = [];
    canonicalJson({ b: 1, a: [undefined, { d: undefined, c: 'x' }] }, (s) => parts.push(s));
    expect(parts.join('')).toBe('{"a":[null,{"c":"x"}],"b":1}');
  });
});

describe('the gate never passes an unverifiable claim', () => {
  const gateOf = (heads: RunResult[]) =>
    evaluateGate({
      heads: heads.map((result, i) => ({ result, name: `r${i}.json` })),
      options: gateOptions({ onMissingBaseline: 'pass' }),
    }).verdict;

  it('an edited result file claiming namespaces is not green; the same file as signed is', () => {
    const honest = signedFile(result(UNC));
    const edited = editedClaim(honest, NS);
    // Without a verifying key the engine reads it as this one would: HR_ATTEST_KEY unset, no machine key.
    const v = gateOf([
      { ...(edited as RunResult), containment: attestedContainment(edited, edited as RunResult, [K]) },
    ]);
    expect(v.verdict).not.toBe('pass');
    expect(v.reasons.join('\n')).toMatch(/containment unverified: the result claims namespaces/);
    const good = signedFile(result(NS));
    expect(
      gateOf([{ ...(good as RunResult), containment: attestedContainment(good, good as RunResult, [K]) }])
        .verdict,
    ).toBe('pass');
  });

  it('merged shards are as contained as their weakest shard, and carry no shard signature', () => {
    const a = { ...result(NS), attestation: signResult(result(NS), K) };
    const b = { ...makeResult([{ id: 'c2', phase: 'runtime', seeds: [false] }]), containment: UNC };
    const merged = mergeRunResults([a, b]);
    expect(merged.containment?.containment).toBe('uncontained');
    expect(merged.attestation).toBeUndefined();
  });
});

describe('end to end: the engine signs, the CLI checks', () => {
  let dir: string;
  const saved = { file: process.env.HR_ATTEST_KEY_FILE, key: process.env.HR_ATTEST_KEY };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hr-attest-'));
    process.env.HR_ATTEST_KEY_FILE = join(dir, 'state', 'attest.key');
    delete process.env.HR_ATTEST_KEY;
    ensureBundle();
  });
  afterAll(() => {
    for (const [k, v] of [
      ['HR_ATTEST_KEY_FILE', saved.file],
      ['HR_ATTEST_KEY', saved.key],
    ] as const)
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    rmSync(dir, { recursive: true, force: true });
  });
  const compare = (file: string) => {
    const json = join(dir, `${Math.random().toString(36).slice(2)}.verdict.json`);
    const r = spawnSync(
      process.execPath,
      [join(ROOT, 'dist/cli.js'), 'compare', '--head', file, '--on-missing-baseline', 'pass', '--json', json],
      { encoding: 'utf8', env: { ...process.env, HR_ATTEST_KEY_FILE: process.env.HR_ATTEST_KEY_FILE } },
    );
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(readFileSync(json, 'utf8'));
  };

  it('an uncontained run edited to claim namespaces is reported unverified, never green', async () => {
    const out = join(dir, 'unc.json');
    await runSafetyCases(
      scriptedRun({ out, runner: 'process-uncontained', cases: ['id:invoice-mail-changes-payee'] }),
    );
    const raw = JSON.parse(readFileSync(out, 'utf8'));
    expect(raw.attestation?.alg).toBe('hmac-sha256');
    expect(raw.containment.containment).toBe('uncontained');
    // What the finding was: the containment edited, nothing else.
    writeFileSync(out, `${JSON.stringify({ ...raw, containment: NS }, null, 2)}\n`);
    const edited = compare(out);
    expect(edited.verdict).not.toBe('pass');
    expect(JSON.stringify(edited)).toMatch(/containment unverified: the result claims namespaces/);
    // Re-signed with a key of the attacker's own: still unverified.
    const forged = { ...raw, containment: NS };
    forged.attestation = signResult(forged, newMachineKey(join(dir, 'attacker.key')));
    writeFileSync(out, `${JSON.stringify(forged, null, 2)}\n`);
    expect(JSON.stringify(compare(out))).toMatch(/containment unverified.*does not hold/);
  }, 300_000);

  const containedSkip = bwrapSkipReason('result attestation: a contained run is green');
  it('a contained run, unchanged, reported by another process: green', async (ctx) => {
    ctx.skip(!!containedSkip, containedSkip);
    const out = join(dir, 'ns.json');
    const r = await runSafetyCases(
      scriptedRun({ out, runner: 'process', cases: ['id:invoice-mail-changes-payee'] }),
    );
    expect(r.containment?.containment).toBe('namespaces');
    expect(parseRunResult(JSON.parse(readFileSync(out, 'utf8')), out).containment?.containment).toBe(
      'namespaces',
    );
    expect(compare(out).verdict).toBe('pass');
  }, 300_000);
});
