// "Did you mean": the field names a schema allows where an unknown one was written, and the one it meant.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Adapter } from '../src/adapters/schema.js';
import { CaseFile } from '../src/cases/schema.js';
import { keysAllowedAt, nearestNames, unknownKeyHint } from '../src/zod-issues.js';

describe('nearestNames', () => {
  it.each([
    ['home', ['files', 'home_files', 'services'], ['home_files']],
    ['homeFiles', ['files', 'home_files'], ['home_files']],
    ['home-files', ['files', 'home_files'], ['home_files']],
    ['pth', ['path', 'text'], ['path']],
    ['utlity', ['utility', 'attack', 'persistence'], ['utility']],
    ['persistance', ['utility', 'attack', 'persistence'], ['persistence']],
    ['file', ['path'], []],
    ['x', ['a', 'b'], []],
    ['ab', ['abc', 'xyz'], []],
  ])('%s among %j → %j', (name, allowed, want) => {
    expect(nearestNames(name, allowed)).toEqual(want);
  });
});

describe('unknownKeyHint', () => {
  it.each([
    [['home'], ['files', 'home_files'], ' (did you mean home_files?)'],
    [['file'], ['path'], '; allowed here: path'],
    [['hme', 'zzz'], ['home', 'files'], ' (did you mean hme → home?)'],
    [['q'], [], ''],
  ])('%j of %j → %j', (keys, allowed, want) => {
    expect(unknownKeyHint(keys, allowed)).toBe(want);
  });

  it('a long list is cut with the count left', () => {
    const allowed = Array.from({ length: 20 }, (_, i) => `field${String.fromCharCode(97 + i)}x`);
    expect(unknownKeyHint(['zzzzzzzz'], allowed)).toMatch(/; allowed here: fieldax, .*, … \(5 more\)$/);
  });
});

describe('keysAllowedAt', () => {
  const s = z
    .object({
      a: z.object({ home_files: z.string() }).strict().optional(),
      b: z.union([z.object({ x: z.number() }), z.object({ y: z.number() })]).default({ x: 1 }),
      c: z.array(z.lazy(() => z.object({ q: z.string() }).strict())),
      d: z.record(z.string(), z.object({ r: z.string() }).strict()),
    })
    .strict();
  it.each([
    [[], ['a', 'b', 'c', 'd']],
    [['a'], ['home_files']],
    [['b'], ['x', 'y']],
    [['c', 0], ['q']],
    [['d', 'any'], ['r']],
    [['nope'], []],
    [['a', 'home_files'], []],
  ])('at %j → %j', (path, want) => {
    expect(keysAllowedAt(s, path)).toEqual(want);
  });

  it('reaches into the real schemas: a case world, a case step, an adapter config', () => {
    expect(keysAllowedAt(CaseFile, ['world'])).toContain('home_files');
    expect(keysAllowedAt(CaseFile, ['checks'])).toEqual(expect.arrayContaining(['utility', 'attack']));
    expect(keysAllowedAt(Adapter, [])).toContain('configs');
  });
});
