// Results are the engine's alone (issue 12). The engine records the digest of every file it writes (run
// result, evidence) and re-reads them after the last trial: a file that changed fails the run, by name.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runSafetyCases } from '../src/engine/run.js';
import { OutputTampered, resultBytes, resultChunks, verifyResultFile } from '../src/result/integrity.js';
import { ResultWriter } from '../src/result/writer.js';
import type { Trial } from '../src/spec/run-result.js';
import { WRITER_HEADER } from './fixtures/results/builders.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hr-integrity-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ResultWriter and verifyResultFile', () => {
  it('a result file changed after the last write is detected, naming the file', async () => {
    const out = join(dir, 'r.json');
    const writer = new ResultWriter(out, WRITER_HEADER);
    const doc = writer.finish('complete');
    writer.written.verify();
    verifyResultFile(out, doc);
    expect(await readFile(out, 'utf8')).toBe(resultBytes(doc));
    await writeFile(out, resultBytes({ ...doc, status: 'interrupted' }));
    expect(() => writer.written.verify()).toThrow(OutputTampered);
    expect(() => verifyResultFile(out, doc)).toThrow(`${out}: sha256`);
    await rm(out);
    expect(() => verifyResultFile(out, doc)).toThrow(`${out}: cannot be read back (ENOENT)`);
  });
});

describe('resultChunks: the result written a trial at a time', () => {
  const trial = (i: number, text: string): Trial => ({
    id: `c${i}.s0`,
    case_id: `c${i}`,
    case_revision: 'r',
    phase: 'runtime',
    seed: 0,
    valid: true,
    labels: { u: true, a: i % 2 === 0, p: false, d: false },
    sar: { tools: 1, resources: 1, flow: 1 },
    avs: 1,
    pb: 1,
    css: 0.5,
    harm: 0,
    violations: [],
    facts: {
      attack_calls: [text],
      denied_calls: [],
      canaries_leaked: [],
      files_changed: [],
      services_hit: [],
    },
    duration_ms: 1,
    exit_code: 0,
    timed_out: false,
    evidence_digest: 'd',
  });
  // Agent-derived text with newlines, quotes, NULs and the shape of the writer's own placeholder.
  const hostile = ['line\nbreak "quoted" \\', '\u0000trials\u0000', '    ],\n  "trials": [', 'ü → ✓'];
  it.each([0, 1, 2, 5])('%i trial(s): the pieces join to exactly resultBytes', (n) => {
    const doc = {
      ...WRITER_HEADER,
      cases: [{ title: '\u0000trials\u0000' }] as never,
      status: 'complete' as const,
      trials: Array.from({ length: n }, (_, i) => trial(i, hostile[i % hostile.length]!)),
      summary: {} as never,
    };
    expect([...resultChunks(doc)].join('')).toBe(resultBytes(doc));
  });

  it('the writer writes those bytes, and its digest is theirs', async () => {
    const out = join(dir, 'chunks.json');
    const writer = new ResultWriter(out, WRITER_HEADER, undefined, { fsync: false });
    for (let i = 0; i < 30; i++) writer.add(trial(i, hostile[i % hostile.length]!));
    const doc = writer.finish('complete');
    expect(await readFile(out, 'utf8')).toBe(resultBytes(doc));
    writer.written.verify();
    verifyResultFile(out, doc);
  });
});

describe('a harness that rewrites earlier trials’ evidence', () => {
  it('fails the run, naming every evidence file that changed', async () => {
    const out = join(dir, 'run.json');
    const evidence = join(dir, 'run.evidence');
    const adapter = join(dir, 'tamper.yaml');
    // Each trial overwrites every evidence file already there (those of the trials before it).
    await writeFile(
      adapter,
      stringify({
        name: 'tamper',
        dialect: 'openai-chat',
        launch: {
          command: [
            'sh',
            '-c',
            `for f in ${evidence}/*.json; do [ -f "$f" ] && echo '{"model":[]}' > "$f"; done; exit 0`,
          ],
        },
        configs: { default: {} },
      }),
    );
    const run = runSafetyCases({
      adapter,
      config: 'default',
      cases: ['subset:smoke'],
      // Uncontained on purpose: the contained runner hides kept evidence from trials altogether
      // (test/runner-conformance.test.ts); this checks the digests that catch it where nothing hides it.
      runner: 'process-uncontained',
      concurrency: 1,
      seeds: 1,
      model: 'scripted',
      out,
      keep_evidence: true,
    });
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OutputTampered);
    const files = (err as OutputTampered).files.map((f) => f.path).sort();
    // Six smoke trials, one harness at a time: a later harness rewrote every evidence file already
    // written when it ran (a trial's evidence is written while the next harness runs, so which ones is
    // a matter of timing). Exactly those are named.
    const rewritten = readdirSync(evidence)
      .filter((n) => n.endsWith('.json'))
      .map((n) => join(evidence, n))
      .filter((f) => readFileSync(f, 'utf8') === '{"model":[]}\n')
      .sort();
    expect(rewritten.length).toBeGreaterThanOrEqual(3);
    expect(files).toEqual(rewritten);
    expect((err as Error).message).toContain('changed after harness-risk wrote them');
  }, 120_000);
});
