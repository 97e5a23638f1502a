// The check run fits by design, in the seven situations a reviewer meets (pass, regression, flaky,
// untrusted fork result, partial comparison, every trial invalid, report-only without a baseline): its
// summary and text stay under GitHub's 65,535 characters without the truncation path, list what changed
// and link the rest. Published through publishReports to the OpenAPI-checked fake GitHub. Also: identical
// invalid reasons are one annotation with a count, and a finding about the harness points at the line the
// PR changed in the adapter (pulls files API), else at the `configs: NAME:` line.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getOctokit } from '@actions/github';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readActionContext } from '../src/action/context.js';
import type { CoreApi, RunOutcome } from '../src/action/deps.js';
import { publishReports } from '../src/action/publish.js';
import { baselineFromResult } from '../src/compare/baseline.js';
import { INPUT_DEFAULTS, type InputName, parseInputs } from '../src/front/inputs.js';
import { evaluateGate } from '../src/gate/index.js';
import { addedLines, changedAdapterLine } from '../src/report/changed-lines.js';
import { octokitApi } from '../src/report/github.js';
import { CHECK_TEXT_LIMIT } from '../src/report/limits.js';
import { asrChart, chartTop, chartWorthShowing } from '../src/report/phase-tables.js';
import type { RunResult } from '../src/spec/run-result.js';
import { makeStandardRun } from './fixtures/results/builders.js';
import { type FakeGitHub, startFakeGitHub } from './support/github-fake.js';
import { HEAD_SHA, PR, prOpened, REPO } from './support/webhooks.js';

const ADAPTER = [
  'name: mine',
  'launch:',
  '  command: [node, harness/main.js]',
  'configs:',
  '  default:',
  '    env:',
  '      MODE: open',
  '  guarded:',
  '    env:',
  '      MODE: guarded',
  '',
].join('\n');

let gh: FakeGitHub;
let workspace: string;
const pullFiles: Record<number, { filename: string; status?: string; patch?: string }[]> = {};

beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), 'hr-check-'));
  mkdirSync(join(workspace, 'adapters/mine'), { recursive: true });
  mkdirSync(join(workspace, 'harness'), { recursive: true });
  writeFileSync(join(workspace, 'adapters/mine/adapter.yaml'), ADAPTER);
  writeFileSync(join(workspace, 'harness/main.js'), 'a\nb\nc\nd\n');
  gh = await startFakeGitHub({ repos: [REPO], issues: [PR], commits: [HEAD_SHA], pullFiles });
});
afterAll(() => gh.close());

const withFile = (r: RunResult): RunResult => ({
  ...r,
  adapter: { ...r.adapter, file: join(workspace, 'adapters/mine/adapter.yaml') },
});

async function publish(
  current: RunResult,
  baseline: RunResult | undefined,
  extra: { untrusted?: string } = {},
) {
  gh.reset();
  const dir = mkdtempSync(join(tmpdir(), 'hr-check-ev-'));
  writeFileSync(join(dir, 'event.json'), JSON.stringify(prOpened()));
  const env: NodeJS.ProcessEnv = {
    GITHUB_EVENT_PATH: join(dir, 'event.json'),
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_REPOSITORY: REPO,
    GITHUB_SHA: HEAD_SHA,
    GITHUB_REF: `refs/pull/${PR}/merge`,
    GITHUB_WORKSPACE: workspace,
    GITHUB_RUN_ID: '77',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: gh.url,
  };
  const values: Record<string, string> = {
    ...INPUT_DEFAULTS,
    'github-token': 't',
    adapter: 'mine',
    config: current.adapter.config,
  };
  const inputs = parseInputs((n: InputName) => values[n] ?? '');
  const gate = evaluateGate({
    heads: [{ result: current, name: 'current.json' }],
    ...(baseline ? { baseline: baselineFromResult(baseline, 'cache:main') } : {}),
    options: inputs.gate,
    ...extra,
  });
  const log: string[] = [];
  const core: CoreApi = {
    getInput: (n) => values[n] ?? '',
    setOutput: () => {},
    setFailed: (m) => log.push(`failed ${m}`),
    setSecret: () => {},
    info: (m) => log.push(m),
    debug: () => {},
    notice: () => {},
    warning: (m) => log.push(`warning ${m}`),
    error: () => {},
    startGroup: () => {},
    endGroup: () => {},
    writeSummary: async () => true,
  };
  const outcome: RunOutcome = {};
  await publishReports({
    deps: {
      core,
      env,
      cwd: workspace,
      engine: async () => current,
      paired: async () => {
        throw new Error('unused');
      },
      cache: {
        isFeatureAvailable: () => false,
        restoreCache: async () => undefined,
        saveCache: async () => 0,
      },
      github: (token) => octokitApi(getOctokit(token, { baseUrl: gh.url })),
    },
    ctx: readActionContext(env, workspace),
    inputs,
    gate,
    notices: [],
    outcome,
  });
  expect(gh.violations).toEqual([]);
  expect(gh.responseViolations).toEqual([]);
  expect(outcome.check, log.join('\n')).toBe('created');
  return { run: gh.checkRuns[0]!, gate };
}

const safe = () => withFile(makeStandardRun());
const SITUATIONS: Record<string, () => [RunResult, RunResult | undefined, { untrusted?: string }?]> = {
  pass: () => [safe(), safe()],
  regression: () => [withFile(makeStandardRun({ unsafe: (_id, i) => i % 7 === 0 })), safe()],
  flaky: () => [
    withFile(makeStandardRun({ seeds: 3, unsafe: (_id, i, s) => i % 5 === 0 && s === 1 })),
    withFile(makeStandardRun({ seeds: 3 })),
  ],
  'fork / untrusted': () => [
    withFile(makeStandardRun({ unsafe: (_id, i) => i % 9 === 0 })),
    safe(),
    { untrusted: 'it was produced by a workflow run of fork/x (a fork)' },
  ],
  'partial comparison': () => [safe(), withFile(makeStandardRun({ perPhase: 4 }))],
  'all invalid': () => [withFile(makeStandardRun({ unsafe: () => null })), safe()],
  'report-only, no baseline': () => [
    withFile(makeStandardRun({ unsafe: (_id, i) => i % 4 === 0 })),
    undefined,
  ],
};

describe('the check run fits by design', () => {
  for (const [name, make] of Object.entries(SITUATIONS)) {
    it(`${name}: summary and text under ${CHECK_TEXT_LIMIT} characters, not truncated, rest linked`, async () => {
      const [current, baseline, extra] = make();
      const { run } = await publish(current, baseline, extra);
      const { summary, text } = run.output as { summary: string; text?: string };
      for (const part of [summary, text ?? '']) {
        expect(part.length).toBeLessThan(CHECK_TEXT_LIMIT);
        expect(part).not.toMatch(/Report truncated/);
      }
      // What did not change is one line with a link, never a per-case detail of every case.
      expect(text).toMatch(/Per-case detail: \[job summary\]/);
      expect(text).not.toMatch(/Per-case detail \(\d+\)/);
    });
  }

  it('every trial invalid: one annotation with the count, not one per case', async () => {
    const [current, baseline] = SITUATIONS['all invalid']!();
    const { run } = await publish(current, baseline);
    const invalid = run.annotations.filter((a: { title?: string }) => a.title?.startsWith('No valid trial'));
    expect(invalid).toHaveLength(1);
    expect(invalid[0].title).toBe(`No valid trial in ${current.cases.length} cases`);
    expect(invalid[0].message).toContain('infrastructure: harness did not start');
  });
});

describe('annotations on the lines the PR changed', () => {
  const regressed = () => withFile(makeStandardRun({ unsafe: (_id, i) => i === 3 }));
  const failureLine = async () => {
    const { run } = await publish(regressed(), safe());
    const a = run.annotations.find((x: { annotation_level: string }) => x.annotation_level === 'failure');
    return { path: a.path as string, line: a.start_line as number };
  };

  it('no change to the harness: the configs.NAME line', async () => {
    pullFiles[PR] = [{ filename: 'README.md', patch: '@@ -1,1 +1,2 @@\n a\n+b' }];
    expect(await failureLine()).toEqual({ path: 'adapters/mine/adapter.yaml', line: 8 });
  });

  it('the adapter file changed inside the configuration: that line', async () => {
    pullFiles[PR] = [
      {
        filename: 'adapters/mine/adapter.yaml',
        patch:
          '@@ -1,3 +1,3 @@\n-name: old\n+name: mine\n launch:\n@@ -9,2 +9,2 @@\n     env:\n-      MODE: x\n+      MODE: guarded',
      },
    ];
    expect(await failureLine()).toEqual({ path: 'adapters/mine/adapter.yaml', line: 10 });
  });

  it('a file the adapter names changed: its first changed line', async () => {
    pullFiles[PR] = [{ filename: 'harness/main.js', patch: '@@ -1,4 +1,4 @@\n a\n b\n-x\n+c\n d' }];
    expect(await failureLine()).toEqual({ path: 'harness/main.js', line: 3 });
  });

  it('patch hunks: added lines in the new file', () => {
    expect(addedLines('@@ -10,3 +10,4 @@ ctx\n a\n-b\n+B\n+C\n d\n\\ No newline at end of file')).toEqual([
      11, 12,
    ]);
    expect(addedLines('@@ -0,0 +1,2 @@\n+x\n+y')).toEqual([1, 2]);
    expect(addedLines(undefined)).toEqual([]);
    expect(
      changedAdapterLine(new Map([['a.yaml', [2, 9]]]), { path: 'a.yaml', block: [8, 12], named: [] }),
    ).toEqual({ path: 'a.yaml', line: 9 });
  });
});

describe('the chart only when it shows a change', () => {
  const cmp = (current: RunResult, baseline?: RunResult) =>
    evaluateGate({
      heads: [{ result: current, name: 'c.json' }],
      ...(baseline ? { baseline: baselineFromResult(baseline, 'cache:main') } : {}),
      options: parseInputs(
        (n: InputName) =>
          (({ ...INPUT_DEFAULTS, adapter: 'a', config: 'guarded' }) as Record<string, string>)[n] ?? '',
      ).gate,
    }).comparison;
  it.each([
    ['a pass with nothing moved', () => cmp(makeStandardRun(), makeStandardRun()), false],
    [
      'several seeds, nothing moved',
      () => cmp(makeStandardRun({ seeds: 3 }), makeStandardRun({ seeds: 3 })),
      false,
    ],
    ['no baseline', () => cmp(makeStandardRun({ unsafe: (_id, i) => i % 3 === 0 })), false],
    ['a regression', () => cmp(makeStandardRun({ unsafe: (_id, i) => i === 0 }), makeStandardRun()), true],
  ])('%s: %s', (_name, make, shown) => {
    expect(chartWorthShowing(make())).toBe(shown);
  });
  it('a 0 % baseline is a line, this run the bars, on an axis that fits the values', () => {
    const chart = asrChart(cmp(makeStandardRun({ unsafe: (_id, i) => i === 0 }), makeStandardRun()));
    expect(chart).toMatch(/bar \[4\.2, 0, 0, 0, 0, 0\]/);
    expect(chart).toMatch(/line \[0, 0, 0, 0, 0, 0\]/);
    expect(chart).toMatch(/0 --> 10\n/);
  });
  it('the axis top: the largest value rounded up to 10, within 10..100', () => {
    expect([chartTop([4.2, 0]), chartTop([55, 12]), chartTop([100]), chartTop([])]).toEqual([
      10, 60, 100, 10,
    ]);
  });
});
