// The authoring walk-through of docs/cases.md is followed here: the example case it names for each phase
// exists under examples/cases/, was started with `harness-risk new case` (same structure) and is admitted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { yamlFilesUnder } from '../src/cases/case-index.js';
import { loadCaseFile } from '../src/cases/load.js';
import { validateCases } from '../src/engine/validate.js';
import { PHASES } from '../src/spec/vocabulary.js';

const ROOT = join(import.meta.dirname, '..');
const DIR = join(ROOT, 'examples', 'cases');
const files = yamlFilesUnder(DIR);
const docs = readFileSync(join(ROOT, 'docs', 'cases.md'), 'utf8');

describe('docs/cases.md walk-through examples', () => {
  it('one example per phase, each named in docs/cases.md', () => {
    const loaded = files.map(loadCaseFile);
    expect(loaded.map((lc) => lc.case.phase).sort()).toEqual([...PHASES].sort());
    for (const lc of loaded) expect(docs).toContain(`examples/cases/${lc.case.phase}/${lc.case.id}.yaml`);
    // Every example the docs name exists.
    for (const [, path] of docs.matchAll(/(examples\/cases\/[a-z]+\/[a-z0-9-]+\.yaml)/g))
      expect(files.map((f) => f.slice(ROOT.length + 1))).toContain(path);
  });

  it('every example is admitted by validate', { timeout: 300_000 }, async () => {
    const verdicts = await validateCases({ cases: [DIR], replays: 1, concurrency: 2 });
    expect(verdicts.filter((v) => !v.admitted)).toEqual([]);
    expect(verdicts).toHaveLength(PHASES.length);
  });
});
