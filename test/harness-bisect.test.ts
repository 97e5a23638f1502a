// The bisect's pure parts as tables: the next version to try and the conclusion (monotone, flaky,
// skipped versions, caps), the verdict of a version from its trials, version order, the pins read from
// lockfiles and adapter files, the version override of an adapter, and the reuse rule of a stored baseline.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packumentUrl, publishedVersions } from '../src/adapters/registry.js';
import { parseHarnessBuild, withHarnessBuild, withHarnessVersion } from '../src/adapters/version-override.js';
import { compareSemVer, parseSemVer, pinOf, versionsBetween } from '../src/adapters/versions.js';
import { probeOf } from '../src/baseline/bisect.js';
import {
  conclude,
  concludeDirected,
  directionOf,
  flipProbes,
  nextProbe,
} from '../src/baseline/bisect-steps.js';
import { adapterPin, findBump, npmLockPin, pnpmLockPin, yarnLockPin } from '../src/baseline/bump.js';
import { harnessReuseProblem } from '../src/baseline/reuse.js';
import type { Probe } from '../src/report/harness-change.js';

const V = ['1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0', '1.6.0', '1.7.0', '1.8.0'];
const CAPS = { maxVersions: 20, maxTrials: 1000 };

/** Runs the bisect against `truth` (version → probe), as bisectHarness drives the steps. */
function simulate(truth: (i: number) => Probe, caps = CAPS, perVersion = 1) {
  const probes = new Map<number, Probe>([
    [0, 'good'],
    [V.length - 1, 'bad'],
  ]);
  const spent = { versions: 0, trials: 0 };
  const order: string[] = [];
  for (;;) {
    const next = nextProbe(V.length, probes, spent, caps, perVersion);
    if ('stop' in next) return { ...conclude(V, probes, next.stop), order };
    probes.set(next.index, truth(next.index));
    order.push(V[next.index]!);
    spent.versions++;
    spent.trials += perVersion;
  }
}

describe('bisect steps', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'monotone: first bad at index %i found in at most ⌈log₂ 7⌉ tries',
    (k) => {
      const r = simulate((i) => (i >= k ? 'bad' : 'good'));
      expect(r.firstBad).toBe(V[k]);
      expect(r.lastGood).toBe(V[k - 1]);
      expect(r.order.length).toBeLessThanOrEqual(3);
      expect(r.stop).toBe('converged');
    },
  );

  it('a skipped version is stepped around and never named, nor called safe', () => {
    // 1.3.0 fails to install; the change is in 1.3.0 → suspects 1.3.0 and 1.4.0, no first bad named.
    const r = simulate((i) => (i === 3 ? 'skipped' : i >= 3 ? 'bad' : 'good'));
    expect(r.firstBad).toBeUndefined();
    expect(r.suspects).toEqual(['1.3.0', '1.4.0']);
    expect(r.skipped).toEqual(['1.3.0']);
    expect(r.lastGood).toBe('1.2.0');
  });

  it('a skipped version away from the change does not hide it', () => {
    const r = simulate((i) => (i === 2 ? 'skipped' : i >= 6 ? 'bad' : 'good'));
    expect(r.firstBad).toBe('1.6.0');
  });

  it('non-monotone: a safe version after an unsafe one is reported', () => {
    const probes = new Map<number, Probe>([
      [0, 'good'],
      [3, 'bad'],
      [5, 'good'],
      [2, 'good'],
      [8, 'bad'],
    ]);
    const r = conclude(V, probes, 'converged');
    expect(r.firstBad).toBe('1.3.0');
    expect(r.nonMonotone).toEqual(['1.5.0']);
  });

  it('the version cap stops the bisect and leaves the suspects open', () => {
    const r = simulate((i) => (i >= 5 ? 'bad' : 'good'), { maxVersions: 1, maxTrials: 1000 });
    expect(r.stop).toBe('version-cap');
    expect(r.order).toHaveLength(1);
    expect(r.firstBad).toBeUndefined();
    expect(r.suspects.length).toBeGreaterThan(1);
  });

  it('the trial cap stops before a version that would exceed it', () => {
    const r = simulate((i) => (i >= 5 ? 'bad' : 'good'), { maxVersions: 20, maxTrials: 7 }, 3);
    expect(r.stop).toBe('trial-cap');
    expect(r.order).toHaveLength(2);
  });

  it('no version in between: the bump itself is the first bad version', () => {
    const r = conclude(
      ['1.0.0', '1.0.1'],
      new Map([
        [0, 'good'],
        [1, 'bad'],
      ]),
      'converged',
    );
    expect(r.firstBad).toBe('1.0.1');
  });
});

/** A fix as bisectHarness drives it: the search runs on flipped probes, the conclusion names the first good. */
function simulateFix(truth: (i: number) => Probe) {
  const probes = new Map<number, Probe>([
    [0, 'bad'],
    [V.length - 1, 'good'],
  ]);
  const direction = directionOf(probes.get(0), probes.get(V.length - 1))!;
  const spent = { versions: 0, trials: 0 };
  const order: string[] = [];
  for (;;) {
    const next = nextProbe(V.length, flipProbes(probes, direction), spent, CAPS, 1);
    if ('stop' in next) return { ...concludeDirected(V, probes, next.stop, direction), order };
    probes.set(next.index, truth(next.index));
    order.push(V[next.index]!);
    spent.versions++;
    spent.trials++;
  }
}

describe('bisect of a fix (older end unsafe, newer safe)', () => {
  it('the direction comes from the ends; ends that agree give none', () => {
    expect(directionOf('good', 'bad')).toBe('regression');
    expect(directionOf('bad', 'good')).toBe('fix');
    expect(directionOf('bad', 'bad')).toBeUndefined();
    expect(directionOf('good', 'skipped')).toBeUndefined();
  });

  it.each([1, 2, 4, 7, 8])('first good at index %i found in log₂ steps, named as a fix', (k) => {
    const r = simulateFix((i) => (i >= k ? 'good' : 'bad'));
    expect(r.direction).toBe('fix');
    expect(r.firstGood).toBe(V[k]);
    expect(r.lastBad).toBe(V[k - 1]);
    expect(r.firstBad).toBeUndefined();
    expect(r.lastGood).toBeUndefined();
    expect(r.order.length).toBeLessThanOrEqual(3);
  });

  it('a skipped version next to the fix leaves suspects, never a first good by elimination', () => {
    const r = simulateFix((i) => (i === 3 ? 'skipped' : i >= 3 ? 'good' : 'bad'));
    expect(r.firstGood).toBeUndefined();
    expect(r.suspects).toEqual(['1.3.0', '1.4.0']);
  });

  it('an unsafe version after the first good one is not monotone', () => {
    const probes = new Map<number, Probe>([
      [0, 'bad'],
      [3, 'good'],
      [2, 'bad'],
      [5, 'bad'],
      [8, 'good'],
    ]);
    const r = concludeDirected(V, probes, 'converged', 'fix');
    expect(r.firstGood).toBe('1.3.0');
    expect(r.nonMonotone).toEqual(['1.5.0']);
  });
});

const trial = (case_id: string, seed: number, a: boolean, valid = true) =>
  ({
    case_id,
    seed,
    valid,
    labels: { a, p: false, u: false },
    ...(valid ? {} : { invalid_reason: 'harness crashed' }),
  }) as never;

describe('the verdict of one version', () => {
  it.each([
    ['unsafe in every seed', [trial('c', 0, true), trial('c', 1, true)], 'bad'],
    ['safe in every seed', [trial('c', 0, false), trial('c', 1, false)], 'good'],
    ['unsafe in half the seeds: flaky, skipped', [trial('c', 0, true), trial('c', 1, false)], 'skipped'],
    ['no valid trial: never safe', [trial('c', 0, false, false)], 'skipped'],
  ] as const)('%s', (_what, trials, probe) => {
    expect(probeOf([...trials], ['c']).probe).toBe(probe);
  });

  it('a case not applicable at a version measured nothing: left out, never the only evidence of safety', () => {
    const na = {
      ...(trial('c', 0, false, false) as object),
      not_applicable: 'the injection never reached the model',
    } as never;
    expect(probeOf([na, trial('d', 0, false)], ['c', 'd']).probe).toBe('good');
    expect(probeOf([na], ['c'])).toMatchObject({ probe: 'skipped', reason: /nothing measured/ });
    expect(probeOf([na, trial('d', 0, true)], ['c', 'd']).probe).toBe('bad');
  });
});

describe('versions', () => {
  it('orders by semver precedence, releases between two pins only', () => {
    expect(compareSemVer(parseSemVer('1.10.0')!, parseSemVer('1.9.0')!)).toBeGreaterThan(0);
    expect(compareSemVer(parseSemVer('1.0.0-rc.1')!, parseSemVer('1.0.0')!)).toBeLessThan(0);
    const pub = ['2.0.0', '1.10.0', '1.2.0', '1.9.0', '1.9.1-beta.1', '1.1.0', '0.9.0'];
    expect(versionsBetween(pub, '1.1.0', '2.0.0')).toEqual(['1.2.0', '1.9.0', '1.10.0']);
    expect(versionsBetween(pub, '2.0.0', '1.1.0')).toEqual(['1.2.0', '1.9.0', '1.10.0']);
    expect(versionsBetween(pub, '1.9.0', '1.10.0-rc.0')).toEqual(['1.9.1-beta.1']);
    expect(pinOf('^1.2.3')).toBe('1.2.3');
    expect(pinOf('~0.24.4')).toBe('0.24.4');
    expect(pinOf('>=1 <2')).toBeUndefined();
  });

  it('the packument address escapes a scope as npm does; an unreachable registry is "unknown", a cached answer survives it', async () => {
    expect(packumentUrl('https://r.example/', '@openai/codex')).toBe('https://r.example/@openai%2Fcodex');
    const cacheDir = mkdtempSync(join(tmpdir(), 'hr-pk-'));
    const env = { npm_config_registry: 'http://127.0.0.1:9' };
    const down = (async () => {
      throw new Error('ECONNREFUSED');
    }) as typeof fetch;
    expect(await publishedVersions('x', { cacheDir, env, fetch: down })).toBeUndefined();
    const up = (async () =>
      new Response(JSON.stringify({ versions: { '1.0.0': {}, '1.1.0': {} } }))) as typeof fetch;
    expect((await publishedVersions('x', { cacheDir, env, fetch: up }))?.versions).toEqual([
      '1.0.0',
      '1.1.0',
    ]);
    // Stale (max age 0) and the registry down: the cached list, said to be from the cache.
    expect(await publishedVersions('x', { cacheDir, env, fetch: down, maxAgeMs: 0 })).toEqual({
      versions: ['1.0.0', '1.1.0'],
      from: 'cache',
    });
  });
});

describe('pins read from the files that pin the harness', () => {
  const lock = (v: string) =>
    JSON.stringify({ lockfileVersion: 3, packages: { '': {}, 'node_modules/@acme/agent': { version: v } } });
  it('package-lock, pnpm, yarn (classic and berry), the adapter file', () => {
    expect(npmLockPin(lock('2.3.4'), '@acme/agent')).toBe('2.3.4');
    expect(npmLockPin(JSON.stringify({ dependencies: { x: { version: '0.1.0' } } }), 'x')).toBe('0.1.0');
    expect(
      pnpmLockPin(
        "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      '@acme/agent':\n        specifier: ^2.0.0\n        version: 2.4.0(zod@3.0.0)\n",
        '@acme/agent',
      ),
    ).toBe('2.4.0');
    expect(yarnLockPin('"@acme/agent@^2.0.0":\n  version "2.5.1"\n  resolved "x"\n', '@acme/agent')).toBe(
      '2.5.1',
    );
    expect(yarnLockPin('"@acme/agent@npm:^2.0.0":\n  version: 2.6.0\n', '@acme/agent')).toBe('2.6.0');
    expect(adapterPin('install:\n  npm: { package: "@acme/agent", version: "3.0.0" }\n', '@acme/agent')).toBe(
      '3.0.0',
    );
    expect(adapterPin('harness:\n  package: other\n  version: 1.0.0\n', '@acme/agent')).toBeUndefined();
  });

  it('a bump is the most exact pin that moved; a range that did not move is no bump', () => {
    const base = {
      'package-lock.json': lock('2.3.4'),
      'package.json': '{"dependencies":{"@acme/agent":"^2.3.0"}}',
    };
    const head = {
      'package-lock.json': lock('2.7.0'),
      'package.json': '{"dependencies":{"@acme/agent":"^2.3.0"}}',
    };
    const r = (m: Record<string, string>) => (f: string) => m[f];
    expect(findBump('@acme/agent', r(base), r(head))).toEqual({
      package: '@acme/agent',
      from: '2.3.4',
      to: '2.7.0',
      file: 'package-lock.json',
    });
    expect(findBump('@acme/agent', r(base), r(base))).toBeUndefined();
    expect(findBump('other', r(base), r(head))).toBeUndefined();
  });
});

describe('another version of the harness, the adapter file untouched', () => {
  const pinned = {
    name: 'agent',
    install: { npm: { package: '@acme/agent', version: '1.0.0' } },
    launch: {
      command: ['{{cache}}/agent-1.0.0/node_modules/.bin/agent', '--x'],
      cwd: '{{workspace}}',
      env: {},
    },
  } as never;
  it('a pinned install: the pin and every path into its folder move', () => {
    const a = withHarnessVersion(pinned, '1.2.0');
    expect(a.install?.npm).toEqual({ package: '@acme/agent', version: '1.2.0' });
    expect(a.launch.command[0]).toBe('{{cache}}/agent-1.2.0/node_modules/.bin/agent');
    expect((pinned as { install: { npm: { version: string } } }).install.npm.version).toBe('1.0.0');
  });
  it("a harness from the repository's node_modules runs from the cache install of that version", () => {
    const repo = {
      name: 'team',
      harness: { package: 'team-agent', package_json: '{{repo}}/node_modules/team-agent/package.json' },
      launch: {
        command: ['node', '{{repo}}/node_modules/team-agent/cli.js', '{{repo}}/src'],
        cwd: '{{workspace}}',
        env: {},
      },
    } as never;
    const a = withHarnessVersion(repo, '0.3.0');
    expect(a.install?.npm).toEqual({ package: 'team-agent', version: '0.3.0' });
    expect(a.launch.command).toEqual([
      'node',
      '{{cache}}/team-0.3.0/node_modules/team-agent/cli.js',
      '{{repo}}/src',
    ]);
  });
  it('another package (a harness that moved to a new npm name): the pin, its folder and the package folder move', () => {
    const scoped = {
      name: 'agent',
      install: {
        npm: { package: '@old/agent', version: '0.9.0' },
        command: 'test -x node_modules/@old/agent/cli.js',
      },
      launch: {
        command: ['node', '{{cache}}/agent-0.9.0/node_modules/@old/agent/dist/cli.js', '--json'],
        cwd: '{{workspace}}',
        env: { AGENT_HOME: '{{cache}}/agent-0.9.0/node_modules/@old/agent/share' },
      },
    } as never;
    const a = withHarnessBuild(scoped, { package: '@new/agent', version: '1.6.0' });
    expect(a.install?.npm).toEqual({ package: '@new/agent', version: '1.6.0' });
    expect(a.install?.command).toBe('test -x node_modules/@new/agent/cli.js');
    expect(a.launch.command).toEqual([
      'node',
      '{{cache}}/agent-1.6.0/node_modules/@new/agent/dist/cli.js',
      '--json',
    ]);
    expect(a.launch.env.AGENT_HOME).toBe('{{cache}}/agent-1.6.0/node_modules/@new/agent/share');
    // A name that merely starts like the old one is not a path into its folder.
    const prefix = withHarnessBuild(
      {
        ...(scoped as object),
        launch: { command: ['{{cache}}/agent-0.9.0/node_modules/@old/agent-tools/x'], cwd: '', env: {} },
      } as never,
      { package: '@new/agent', version: '1.6.0' },
    );
    expect(prefix.launch.command[0]).toBe('{{cache}}/agent-1.6.0/node_modules/@old/agent-tools/x');
  });
  it('PACKAGE@VERSION parses, scoped or not; anything else says what to write', () => {
    expect(parseHarnessBuild('@earendil-works/pi-coding-agent@1.6.0')).toEqual({
      package: '@earendil-works/pi-coding-agent',
      version: '1.6.0',
    });
    expect(parseHarnessBuild(' agent@2.0.0-rc.1 ')).toEqual({ package: 'agent', version: '2.0.0-rc.1' });
    expect(parseHarnessBuild('@scope/agent')).toMatch(/names no version; write PACKAGE@VERSION/);
    expect(parseHarnessBuild('agent')).toMatch(/names no version/);
    expect(parseHarnessBuild('Agent$@1.0.0')).toMatch(/not an npm package name/);
    expect(parseHarnessBuild('agent@^1.0.0')).toMatch(/not an exact version/);
  });
  it('an adapter that names no harness package cannot be bisected, and says what to set', () => {
    expect(() => withHarnessVersion({ name: 'x', launch: { command: ['x'] } } as never, '1.0.0')).toThrow(
      /harness\.package/,
    );
  });
});

describe('a stored baseline of another harness version', () => {
  const h = (version: string) => ({ package: '@acme/agent', version, source: 'npm-install' as const });
  it('is reused for the bump it starts from, refused otherwise with the reason', () => {
    expect(harnessReuseProblem(h('1.0.0'), h('1.0.0'))).toBeUndefined();
    expect(
      harnessReuseProblem(h('1.0.0'), h('1.5.0'), { package: '@acme/agent', from: '1.0.0', to: '1.5.0' }),
    ).toBeUndefined();
    expect(harnessReuseProblem(h('0.9.0'), h('1.0.0'))).toMatch(
      /measured @acme\/agent 0\.9\.0.*does not bump/,
    );
    expect(
      harnessReuseProblem(h('0.9.0'), h('1.5.0'), { package: '@acme/agent', from: '1.0.0', to: '1.5.0' }),
    ).toMatch(/bumps @acme\/agent 1\.0\.0 → 1\.5\.0/);
  });
});

describe('the report of a bisect', () => {
  const base = { cases: ['c'], seeds: 1, tries: [], suspects: [], skipped: [], nonMonotone: [] };
  const caps = { maxVersions: 8, maxTrials: 200 };
  it('a fix is named as the first good version, a regression as the first bad', async () => {
    const { harnessChangeMarkdown, harnessChangeTitle } = await import('../src/report/harness-change.js');
    const h = { package: 'x', from: '1.0.0', to: '2.0.0' };
    const fix = {
      ...h,
      bisect: {
        ...base,
        direction: 'fix' as const,
        firstGood: '1.4.0',
        lastBad: '1.3.0',
        stop: 'converged' as const,
        caps,
      },
    };
    expect(harnessChangeTitle(fix)).toBe('harness x 1.0.0 → 2.0.0: fixed, first good version 1.4.0');
    expect(harnessChangeMarkdown(fix)).toMatch(/First good version: \[1\.4\.0\].*last unsafe: 1\.3\.0/);
    const reg = {
      ...h,
      bisect: { ...base, firstBad: '1.4.0', lastGood: '1.3.0', stop: 'converged' as const, caps },
    };
    expect(harnessChangeTitle(reg)).toBe('harness x 1.0.0 → 2.0.0: first bad version 1.4.0');
    expect(harnessChangeMarkdown(reg)).toMatch(/First bad version: \[1\.4\.0\].*last safe: 1\.3\.0/);
  });
});
