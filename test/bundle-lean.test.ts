// The bundles carry only what runs: zod's ~60 message locales are left out (scripts/build.mjs), which made
// up most of the reference harness bundle and of every reference trial's start-up. English messages stay:
// a bad policy file still gets zod's English wording for the field it names.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// One message each from locales that are not English (German, French, Japanese), as esbuild writes them.
const FOREIGN = [
  'Ung\\xFCltige Eingabe',
  'Entr\\xE9e invalide',
  'erwartet',
  '\\u7121\\u52B9\\u306A\\u5165\\u529B',
];

describe('lean bundles', () => {
  for (const bundle of ['dist/reference-harness.js', 'dist/cli.js', 'dist/index.js']) {
    it(`${bundle} holds no zod locale but English`, () => {
      const text = readFileSync(bundle, 'utf8');
      for (const s of FOREIGN) expect(text.includes(s), `${bundle} contains "${s}"`).toBe(false);
      expect(text).toContain('Invalid option: expected one of');
    });
  }

  it('the reference harness bundle stays small', () => {
    // 817 KiB with every locale; ~460 KiB without.
    expect(statSync('dist/reference-harness.js').size).toBeLessThan(600 * 1024);
  });

  it('a bad policy file still gets the English message naming the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hr-lean-'));
    try {
      const policy = join(dir, 'policy.json');
      writeFileSync(policy, JSON.stringify({ path_scope: 'nowhere' }));
      let stderr = '';
      try {
        execFileSync(process.execPath, ['dist/reference-harness.js', '--policy', policy, '--prompt', 'x'], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: 30_000,
        });
      } catch (e) {
        stderr = String((e as { stderr?: string }).stderr);
      }
      expect(stderr).toContain(`invalid policy file ${policy}`);
      expect(stderr).toContain('field "path_scope": Invalid option: expected one of "workspace"|"any"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
