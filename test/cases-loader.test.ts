import { describe, expect, it } from 'vitest';
import { loadAdapter } from '../src/adapters/load.js';
import { filterCases, loadCaseFile, parseSelectors, shardCases } from '../src/cases/load.js';
import type { LoadedCase } from '../src/cases/schema.js';
import { UserError } from '../src/errors.js';

const dir = 'test/fixtures/cases-bad';

describe('malformed case files give file:line and field', () => {
  it.each([
    ['bad-phase.yaml', /bad-phase\.yaml:3: phase: Invalid option/],
    ['bad-action.yaml', /bad-action\.yaml:11: owner\.plan\[1\]\.path/],
    ['bad-yaml.yaml', /bad-yaml\.yaml:\d+: not valid YAML/],
  ])('%s', (file, pattern) => {
    let err: unknown;
    try {
      loadCaseFile(`${dir}/${file}`);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(pattern);
  });

  it('a missing file names the path', () => {
    expect(() => loadCaseFile(`${dir}/nope.yaml`)).toThrow(/nope\.yaml: cannot read case file/);
  });
});

const fake = (id: string, phase: string, tags: string[] = [], variant_of?: string) =>
  ({
    case: { id, phase, tags, variant_of },
    file: `${id}.yaml`,
    revision: 'r',
    line: 1,
  }) as unknown as LoadedCase;
const lib = [
  fake('cfg-a', 'configuration', ['smoke']),
  fake('cfg-b', 'configuration', ['perturb:late-injection'], 'cfg-a'),
  fake('run-a', 'runtime', ['smoke', 'standard']),
  fake('rec-a', 'recovery', ['full-only']),
];

describe('selection', () => {
  it.each([
    [['phase:configuration'], ['cfg-a', 'cfg-b']],
    [['tag:smoke'], ['cfg-a', 'run-a']],
    [['id:run-*'], ['run-a']],
    [['subset:smoke'], ['cfg-a', 'run-a']],
    [['subset:standard'], ['cfg-a', 'run-a']],
    [['subset:full'], ['cfg-a', 'cfg-b', 'run-a', 'rec-a']],
    [
      ['phase:configuration,phase:runtime', 'tag:smoke'],
      ['cfg-a', 'run-a'],
    ],
  ])('%j', (selectors, ids) => {
    expect(
      filterCases(lib, parseSelectors(selectors))
        .map((c) => c.case.id)
        .sort(),
    ).toEqual([...ids].sort());
  });

  it('unknown phase and subset are user errors', () => {
    expect(() => parseSelectors(['phase:deploy'])).toThrow(/unknown phase "deploy"/);
    expect(() => parseSelectors(['subset:huge'])).toThrow(/unknown subset/);
  });

  it('shards partition the cases', () => {
    const all = [1, 2, 3].flatMap((i) => shardCases(lib, i, 3).map((c) => c.case.id));
    expect(all.sort()).toEqual(lib.map((c) => c.case.id).sort());
    expect(() => shardCases(lib, 4, 3)).toThrow(/out of range/);
  });
});

describe('adapters', () => {
  it('an unknown adapter lists the built-in ones', () => {
    expect(() => loadAdapter('no-such-harness')).toThrow(
      /unknown adapter "no-such-harness".*\n.*use one of .*reference/s,
    );
  });
});
