// The folder of deliberately broken cases: one file per load-time rejection reason and per lint rule
// (test/fixtures/cases-broken, with the lint fixtures of test/fixtures/cases-lint and the schema fixtures
// of test/fixtures/cases-bad). `validate` on each must name the file, the line and the field, and say the
// specific reason (each cases-broken file declares it in its `# expect:` line); a generic message ("Invalid
// input", "invalid case file" alone, a stack trace, an internal error, counts without a cause) fails.
// Nothing here is replayed: every file is refused before the first trial.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateCases } from '../src/engine/validate.js';
import { UserError } from '../src/errors.js';

const FOLDERS = ['test/fixtures/cases-broken', 'test/fixtures/cases-lint', 'test/fixtures/cases-bad'];
const files = FOLDERS.flatMap((d) =>
  readdirSync(d)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => join(d, f)),
);

/** What `validate` says about one file: the load error, or the reasons of its verdict. */
async function said(file: string): Promise<string> {
  try {
    const verdicts = await validateCases({ cases: [file], replays: 1, concurrency: 1 });
    expect(verdicts.map((v) => v.admitted)).toEqual([false]);
    return verdicts[0]!.reasons.join('\n');
  } catch (e) {
    expect(e, String((e as Error)?.stack)).toBeInstanceOf(UserError);
    return (e as Error).message;
  }
}

/** Why a message is generic, or undefined when it names where and why. */
function generic(msg: string, file: string): string | undefined {
  if (/\n\s+at \S+ \(/.test(msg)) return 'a stack trace';
  if (/internal error/i.test(msg)) return '"internal error"';
  if (/(^|: )Invalid input(\n|$|;)/m.test(msg)) return 'a bare "Invalid input"';
  if (/replays? \(needs \d+\)\s*$/.test(msg)) return 'counts without a cause';
  const at = new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: (\\S+: )?\\S`);
  if (!at.test(msg)) return 'no file:line';
  // The reason after the location is more than a word or two.
  const reason = msg.split(/:\d+: /)[1] ?? '';
  if (reason.replace(/\s+/g, ' ').length < 30) return 'a reason too short to act on';
  return undefined;
}

describe('validate on deliberately broken cases names file, line, field and reason', () => {
  it('the folder holds one case per load-time rejection reason and lint rule', () => {
    expect(files.length).toBeGreaterThanOrEqual(15);
  });

  it.each(files)('%s', async (file) => {
    const msg = await said(file);
    expect(generic(msg, file), msg).toBeUndefined();
    const expectLine = /^# expect: (.*)$/m.exec(readFileSync(file, 'utf8'))?.[1];
    if (expectLine) expect(msg).toMatch(new RegExp(expectLine, 's'));
  });
});
