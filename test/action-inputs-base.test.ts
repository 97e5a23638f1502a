// The inputs of baseline: base (build, base-cases), parsed by the one schema of action.yml's inputs.
import { describe, expect, it } from 'vitest';
import { INPUT_DEFAULTS, type InputName, parseInputs } from '../src/front/inputs.js';

const parse = (over: Partial<Record<InputName, string>>) =>
  parseInputs((name) => over[name] ?? INPUT_DEFAULTS[name].replace(/^\$\{\{ github\.token \}\}$/, 'tok'));
const ok = { adapter: './harness-risk', config: 'default' };

describe('baseline: base inputs', () => {
  it.each([
    [{ baseline: 'base' }, { baseline: { kind: 'base' } }],
    [{ baseline: 'base', build: '  npm ci && npm run build ' }, { build: 'npm ci && npm run build' }],
    [
      { baseline: 'base', 'base-cases': 'subset:smoke\n# a comment\ntag:payments' },
      { baseCases: ['subset:smoke', 'tag:payments'] },
    ],
  ])('%j', (over, expected) => {
    expect(parse({ ...ok, ...over })).toMatchObject(expected);
  });

  it('no build and no base-cases unless set', () => {
    const i = parse({ ...ok, baseline: 'base' });
    expect(i.build).toBeUndefined();
    expect(i.baseCases).toBeUndefined();
  });

  it.each([
    [{ build: 'make' }, 'build'],
    [{ 'base-cases': 'subset:smoke' }, 'base-cases'],
  ])('%j without baseline: base is a mistake, named', (over, input) => {
    expect(() => parse({ ...ok, ...over })).toThrow(
      new RegExp(`^Input "${input}": is only used with baseline: base`),
    );
  });

  it('the error for an unknown baseline lists base', () => {
    expect(() => parse({ ...ok, baseline: 'main' })).toThrow(
      /base \(build and run the pull request's base commit/,
    );
  });
});
