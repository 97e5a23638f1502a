// scripts/build/ascii.mjs: the bundles are pure ASCII (one non-ASCII character makes V8 hold a whole
// bundle as a two-byte string), and escaping never changes what the code does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the build, without types
import { asciiOnly } from '../scripts/build/ascii.mjs';

const run = (code: string) => new Function(`${code}\nreturn out;`)();

describe('asciiOnly', () => {
  it.each([
    ['a comment', '/** a → b */ const out = 1;', 1],
    ['a line comment', '// — dash\nconst out = "x";', 'x'],
    ['a regular expression', 'const out = /^\\d+(→|\\t)/.test("12→");', true],
    ['a unicode regular expression with a character beyond the BMP', 'const out = /^😀$/u.test("😀");', true],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the code under test is a template literal
    ['a template literal', 'const n = 2; const out = `n → ${n}`;', 'n → 2'],
    ['a string', "const out = 'x·y';", 'x·y'],
  ])('%s: same behaviour, ASCII only', (_what, code, expected) => {
    const ascii = asciiOnly(code, 'test.js');
    expect(ascii).toMatch(/^[\x00-\x7f]*$/);
    expect(run(ascii)).toEqual(run(code));
    expect(run(ascii)).toEqual(expected);
  });

  it('leaves an ASCII bundle as it is', () => {
    const code = 'const out = /a/.test("a"); // plain';
    expect(asciiOnly(code, 'test.js')).toBe(code);
  });

  it('refuses a non-ASCII character in a tagged template (its raw text would change), naming the line', () => {
    expect(() => asciiOnly('const a = 1;\nconst out = String.raw`a → b`;', 'dist/x.js')).toThrow(
      /dist\/x\.js:2:\d+: .*tagged template/,
    );
  });

  it.each(['cli', 'index', 'reference-harness', 'svc'])('dist/%s.js is pure ASCII', (name) => {
    const text = readFileSync(join(import.meta.dirname, '..', 'dist', `${name}.js`), 'utf8');
    expect(text.match(/[^\x00-\x7f]/g) ?? []).toEqual([]);
  });
});
