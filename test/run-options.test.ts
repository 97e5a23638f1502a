// The one parse of run options (engine/options.ts), the gate options (gate/options.ts) and the runner
// registry: what each bad value says, as an action input and as a CLI flag.
import { describe, expect, it } from 'vitest';
import { flagError, runnerFlag, runSettingsFromFlags } from '../src/cli/flags.js';
import {
  modelOptionsOf,
  RUN_SETTING_DEFAULTS,
  RUN_SETTING_NAMES,
  RunSettingFields,
  type RunSettingName,
  settingsOf,
  settingsProblem,
} from '../src/engine/options.js';
import { RUNNER_NAMES, RUNNERS, runnerChoices } from '../src/engine/runners.js';
import { type GATE_OPTION_DEFAULTS, parseGateOptions } from '../src/gate/options.js';
import { FieldError, parseFields } from '../src/input-fields.js';

const parse = (over: Partial<Record<RunSettingName, string | string[]>>) =>
  parseFields(
    RunSettingFields,
    RUN_SETTING_NAMES,
    (n) => over[n as RunSettingName] ?? RUN_SETTING_DEFAULTS[n as RunSettingName],
  );

const problemOf = (f: () => unknown): FieldError => {
  try {
    f();
  } catch (e) {
    if (e instanceof FieldError) return e;
    throw e;
  }
  throw new Error('no error');
};

describe('run options: one schema for the action inputs and the CLI flags', () => {
  it('the defaults are the action.yml defaults', () => {
    expect(parse({ adapter: 'reference', config: 'open' }).settings).toEqual({
      adapter: 'reference',
      config: 'open',
      cases: [],
      runner: 'process',
      concurrency: 2,
      max_consecutive_invalid: 10,
      seeds: 1,
      model: 'scripted',
      strategies: ['direct'],
    });
  });

  it.each([
    [{ timeout: '90' }, { timeout_s: 90 }],
    [{ timeout: '5m' }, { timeout_s: 300 }],
    [{ timeout: '2 min' }, { timeout_s: 120 }],
    [{ shard: '2/4' }, { shard: { index: 2, total: 4 } }],
    [{ 'trial-memory': '4GiB' }, { limits: { memory_bytes: 4 * 1024 ** 3 } }],
    [{ 'trial-memory': '3072 MiB' }, { limits: { memory_bytes: 3072 * 1024 ** 2 } }],
    [{ 'trial-memory': '6g' }, { limits: { memory_bytes: 6 * 1024 ** 3 } }],
    [{ cases: 'phase:runtime, tag:mcp' }, { cases: ['phase:runtime', 'tag:mcp'] }],
    // A repeated flag is already a list: its selectors are kept whole.
    [{ cases: ['a,b', 'c'] }, { cases: ['a,b', 'c'] }],
    // Strategy names hold no comma: a repeated --strategies (matrix) may still give comma lists.
    [{ strategies: ['direct,fused', 'split'] }, { strategies: ['direct', 'fused', 'split'] }],
    [
      { strategies: 'encoded, all' },
      { strategies: ['encoded', 'direct', 'split', 'indirect', 'authority', 'in-project', 'retry', 'fused'] },
    ],
    [
      { runner: 'docker', image: 'img' },
      { runner: 'docker', image: 'img' },
    ],
  ])('%j → %j', (over, want) => {
    expect(parse(over).settings).toMatchObject(want);
  });

  it.each([
    [{ runner: 'vm' }, 'runner', /^"vm" is not one of "process", "process-uncontained", "docker"$/],
    [{ concurrency: '0' }, 'concurrency', /"0" is not a concurrency \(a whole number from 1 to 64\)/],
    [{ 'max-consecutive-invalid': '-1' }, 'max-consecutive-invalid', /0 turns the fail-fast off/],
    [{ timeout: '0' }, 'timeout', /not a per-trial timeout; write seconds \(e\.g\. 120\) or minutes/],
    [{ timeout: '7h' }, 'timeout', /not a per-trial timeout/],
    [{ timeout: '21601' }, 'timeout', /up to 6 hours/],
    [{ 'trial-memory': '100MiB' }, 'trial-memory', /from 256MiB to 64GiB/],
    [{ 'trial-memory': 'lots' }, 'trial-memory', /^"lots" is not a trial memory limit; write GiB or MiB/],
    [{ seeds: '101' }, 'seeds', /not a number of seeds \(a whole number from 1 to 100\)/],
    [{ shard: '3/2' }, 'shard', /write i\/n with 1 ≤ i ≤ n, e\.g\. 2\/4/],
    [{ shard: 'x' }, 'shard', /^"x" is not a shard/],
    [{ model: 'gpt' }, 'model', /"gpt" is not one of "scripted", "live", "replay"/],
    [{ 'base-url': 'api.example' }, 'base-url', /is not a URL/],
    [{ temperature: '3' }, 'temperature', /from 0 to 2/],
    [{ 'max-tokens': '0' }, 'max-tokens', /or leave it empty for no limit/],
    [{ 'replay-diverged': 'go' }, 'replay-diverged', /"go" is not one of "stop", "scripted"/],
  ] as [Partial<Record<RunSettingName, string>>, string, RegExp][])('%j → %s', (over, field, re) => {
    const e = problemOf(() => parse(over));
    expect(e.field).toBe(field);
    expect(e.problem).toMatch(re);
  });

  it('a runner that needs an image names the image', () => {
    const e = settingsProblem(parse({ runner: 'docker' }).settings);
    expect(e?.field).toBe('image');
    expect(e?.problem).toMatch(/is required with runner: docker/);
    expect(settingsProblem(parse({ runner: 'process' }).settings)).toBeUndefined();
  });

  it.each([
    ['live', {}, 'base-url', /is required with model: live/],
    ['live', { 'base-url': 'https://api.example/v1' }, 'model-name', /is required with model: live/],
    ['replay', {}, 'replay-from', /is required with model: replay/],
  ] as const)('model %s %j needs %s', (model, over, field, re) => {
    const p = parse({ model, ...over });
    const e = problemOf(() => modelOptionsOf(p.settings.model, p.model, 'k'));
    expect(e.field).toBe(field);
    expect(e.problem).toMatch(re);
  });

  it('live options carry the key the front end read; replay its recording', () => {
    const live = parse({
      model: 'live',
      'base-url': 'https://api.example/v1',
      'model-name': 'm',
      'budget-tokens': '9',
    });
    expect(modelOptionsOf(live.settings.model, live.model, 'sk')).toEqual({
      model: 'live',
      live: {
        provider: 'openai-compatible',
        base_url: 'https://api.example/v1',
        model: 'm',
        budget_tokens: 9,
        key: 'sk',
      },
    });
    const replay = parse({ model: 'replay', 'replay-from': 'live.json' });
    expect(modelOptionsOf(replay.settings.model, replay.model, '')).toEqual({
      model: 'replay',
      replay: { from: 'live.json', on_divergence: 'stop' },
    });
  });

  it('settingsOf picks the run settings of a larger object, nothing else', () => {
    const s = parse({ adapter: 'a', config: 'c', timeout: '5' }).settings;
    expect(settingsOf({ ...s, comment: true } as typeof s)).toEqual(s);
  });
});

describe('as CLI flags', () => {
  it.each([
    [{ seeds: '0' }, /^--seeds "0" is not a number of seeds/],
    [{ shard: 'x' }, /^--shard "x" is not a shard; write i\/n/],
    [{ runner: 'docker' }, /^--image is required with runner: docker/],
    [{ timeout: 'soon' }, /^--timeout "soon" is not a per-trial timeout/],
    [
      { 'harness-package': '@scope/agent' },
      /^--harness-package "@scope\/agent" names no version; write PACKAGE@VERSION/,
    ],
  ] as [Record<string, string>, RegExp][])('%j → %s', (values, re) => {
    expect(() => runSettingsFromFlags(values)).toThrow(re);
  });

  it('--harness-package PACKAGE@VERSION becomes the build to run (scoped names too)', () => {
    expect(
      runSettingsFromFlags({ adapter: 'pi', 'harness-package': '@earendil-works/pi-coding-agent@1.6.0' })
        .settings.harness_package,
    ).toEqual({ package: '@earendil-works/pi-coding-agent', version: '1.6.0' });
    expect(runSettingsFromFlags({ adapter: 'pi' }).settings.harness_package).toBeUndefined();
  });

  it('an unset flag takes the default', () => {
    expect(runSettingsFromFlags({ adapter: 'reference' }).settings).toMatchObject({
      runner: 'process',
      concurrency: 2,
    });
  });

  it('a field error as a flag error points at --help', () => {
    const e = flagError(new FieldError('alpha', '"2" is not a significance level'));
    expect(e.message).toBe('--alpha "2" is not a significance level\n  → run harness-risk --help');
  });

  it('--runner of validate, doctor and matrix: names from the registry', () => {
    expect(runnerFlag(undefined)).toBe('process');
    expect(() => runnerFlag('vm')).toThrow(/--runner "vm" is unknown/);
    const contained = RUNNER_NAMES.filter((n) => RUNNERS[n].contains);
    expect(() => runnerFlag('process-uncontained', contained)).toThrow(
      /--runner "process-uncontained" is unknown/,
    );
  });
});

describe('gate options', () => {
  it('defaults', () => {
    expect(parseGateOptions(() => undefined)).toMatchObject({
      onMissingBaseline: 'neutral',
      maxInvalid: 0.1,
      alpha: 0.05,
    });
  });
  it.each([
    ['fail-on', 'sometimes', /or never/],
    ['alpha', '1', /between 0 and 1 \(exclusive\)/],
    ['max-asr', '5', /fraction from 0 to 1/],
    ['phase-thresholds', 'runtim: {max-asr: 0}', /unknown phase "runtim"/],
  ] as [keyof typeof GATE_OPTION_DEFAULTS, string, RegExp][])('%s %j', (name, v, re) => {
    const e = problemOf(() => parseGateOptions((n) => (n === name ? v : undefined)));
    expect(e.field).toBe(name);
    expect(e.problem).toMatch(re);
  });
});

describe('runner registry', () => {
  it('every runner has a doc line and records a result runner', () => {
    for (const n of RUNNER_NAMES) {
      expect(RUNNERS[n].doc).toMatch(/\w{3}/);
      expect(['process', 'docker']).toContain(RUNNERS[n].records);
    }
  });
  it('choices for an error hint', () => {
    expect(runnerChoices()).toBe('process (contained), process-uncontained or docker');
    expect(runnerChoices(['process', 'docker'])).toBe('process (contained) or docker');
  });
});
