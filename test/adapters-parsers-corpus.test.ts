// The built-in adapters' output rules read real harness output exactly as the code parsers they replaced
// did. test/fixtures/harness-output/corpus/ADAPTER/ holds stdout/stderr recorded from the real harnesses
// (trials run with --keep-evidence against the scripted model: denials, is_error results, sandbox
// failures, OpenClaw's deny/allowlist/auto modes) and, beside each, the events the code parser of the time
// made of it (NAME.events.json), written before that code was deleted. So this test still says something:
// a rule change that reads any of these outputs differently fails here.
//
// A new recording (ADAPTER/NAME.stdout and/or NAME.stderr) needs its expected events: read the output,
// then `HR_WRITE_CORPUS=1 npx vitest run test/adapters-parsers-corpus.test.ts` writes the events today's
// rules make of it, for files that have none (existing expectations are never rewritten); review them.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAdapter } from '../src/adapters/load.js';
import { parseHarnessOutput } from '../src/adapters/parsers/index.js';
import { dedupe } from '../src/adapters/parsers/util.js';

const CORPUS = join(import.meta.dirname, 'fixtures', 'harness-output', 'corpus');

const cases = readdirSync(CORPUS).flatMap((adapter) => {
  const dir = join(CORPUS, adapter);
  const names = new Set(
    readdirSync(dir)
      .filter((f) => /\.(stdout|stderr)$/.test(f))
      .map((f) => f.replace(/\.(stdout|stderr)$/, '')),
  );
  return [...names].sort().map((name) => {
    const f = `${name}.events.json`;
    const read = (ext: string) =>
      existsSync(join(dir, `${name}.${ext}`)) ? readFileSync(join(dir, `${name}.${ext}`), 'utf8') : '';
    return { adapter, name, stdout: read('stdout'), stderr: read('stderr'), file: join(dir, f) };
  });
});

describe('built-in output rules on the recorded corpus', () => {
  it('has outputs of every built-in harness, denials and errors among them', () => {
    const expected = cases.flatMap((c) =>
      existsSync(c.file) ? (JSON.parse(readFileSync(c.file, 'utf8')) as { kind: string }[]) : [],
    );
    expect(new Set(cases.map((c) => c.adapter))).toEqual(
      new Set([
        'claude-code',
        'codex',
        'copilot',
        'gemini-cli',
        'openclaw',
        'opencode',
        'pi',
        'qwen-code',
        'reference',
      ]),
    );
    for (const kind of ['tool', 'denial', 'error', 'warning'])
      expect(
        expected.some((e) => e.kind === kind),
        kind,
      ).toBe(true);
  });

  it.each(cases)('$adapter: $name', (c) => {
    // The recorded expectations predate events naming their call (call_id, read by score/outcomes.ts):
    // compared without it (and so with the same event for two calls counted once, as then), the rules
    // must still read every event exactly as before.
    const events = dedupe(
      parseHarnessOutput(loadAdapter(c.adapter).adapter.output, c.stdout, c.stderr).map(
        ({ call_id: _, ...e }) => e,
      ),
    );
    if (!existsSync(c.file) && process.env.HR_WRITE_CORPUS === '1')
      writeFileSync(c.file, `${JSON.stringify(events, null, 1)}\n`);
    expect(existsSync(c.file), `${c.file} is missing: see the top of this file`).toBe(true);
    expect(events).toEqual(JSON.parse(readFileSync(c.file, 'utf8')));
  });
});
