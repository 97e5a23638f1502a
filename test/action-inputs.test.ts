import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  defaultResultPath,
  INPUT_DEFAULTS,
  INPUT_NAMES,
  type InputName,
  parseInputs,
} from '../src/front/inputs.js';

const ROOT = join(import.meta.dirname, '..');
const actionYml = parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8'));

const parse = (over: Partial<Record<InputName, string>>) =>
  parseInputs((name) => (over[name] ?? INPUT_DEFAULTS[name]).replace(/^\$\{\{ github\.token \}\}$/, 'tok'));

describe('action.yml', () => {
  it('runs dist/index.js on node24', () => {
    expect(actionYml.runs).toEqual({ using: 'node24', main: 'dist/index.js' });
  });

  it('declares exactly the inputs the action reads, each documented, with the same defaults', () => {
    expect(Object.keys(actionYml.inputs).sort()).toEqual([...INPUT_NAMES].sort());
    for (const name of INPUT_NAMES) {
      const spec = actionYml.inputs[name];
      expect(spec.description, name).toMatch(/\w{3}/);
      expect(String(spec.default), name).toBe(INPUT_DEFAULTS[name]);
      expect(spec.required, name).toBe(false);
    }
  });

  it('documents every output the action sets', () => {
    const src = readFileSync(join(ROOT, 'src/action/run.ts'), 'utf8');
    const set = [...src.matchAll(/setOutput\('([a-z-]+)'/g)].map((m) => m[1]).sort();
    expect(Object.keys(actionYml.outputs).sort()).toEqual(set);
    for (const [name, spec] of Object.entries<any>(actionYml.outputs))
      expect(spec.description, name).toMatch(/\w{3}/);
  });
});

describe('inputs', () => {
  it('parses the defaults', () => {
    const i = parse({ adapter: 'reference', config: 'guarded' });
    expect(i).toEqual({
      adapter: 'reference',
      config: 'guarded',
      cases: [],
      runner: 'process',
      concurrency: 2,
      max_consecutive_invalid: 10,
      model: 'scripted',
      seeds: 1,
      strategies: ['direct'],
      baseline: { kind: 'cache' },
      saveBaseline: 'auto',
      gate: {
        failOn: {
          regression: true,
          threshold: true,
          invalid: true,
          uncontained: false,
          flaky: false,
          never: false,
        },
        onMissingBaseline: 'neutral',
        maxInvalid: 0.1,
        thresholds: { overall: {}, phases: {} },
        alpha: 0.05,
        minEffect: 0.1,
      },
      githubToken: 'tok',
      comment: true,
      checkRun: true,
      annotations: true,
      runResult: [],
    });
  });

  it('parses every kind of value', () => {
    const i = parse({
      adapter: './harness/adapter.yaml',
      config: 'strict',
      cases: 'phase:runtime, tag:mcp\ncases/mine/**/*.yaml\n# a comment\n',
      runner: 'docker',
      image: 'ghcr.io/me/harness:pr',
      concurrency: '8',
      timeout: '5m',
      model: 'live',
      provider: 'anthropic',
      'base-url': 'https://api.anthropic.com/v1',
      'model-name': 'claude-x',
      'model-key': 'sk-ant-xyz',
      temperature: '0.3',
      'budget-requests': '500',
      'live-fallback': 'fail',
      seeds: '5',
      baseline: 'file:.harness-risk/baseline.json',
      'save-baseline': 'false',
      'fail-on': 'threshold',
      'max-asr': '5%',
      'max-persistence': '0',
      'min-css': '0.8',
      'phase-thresholds': '{runtime: {max-asr: 0}, persistence: {max-persistence: 0, min-css: 90%}}',
      alpha: '0.01',
      'min-effect': '20%',
      comment: 'false',
      annotations: 'FALSE',
      shard: '2/4',
      'result-path': 'out/r.json',
      sarif: 'r.sarif',
      junit: 'r.xml',
    });
    expect(i).toMatchObject({
      cases: ['phase:runtime', 'tag:mcp', 'cases/mine/**/*.yaml'],
      runner: 'docker',
      image: 'ghcr.io/me/harness:pr',
      concurrency: 8,
      timeout_s: 300,
      model: 'live',
      live: {
        provider: 'anthropic',
        base_url: 'https://api.anthropic.com/v1',
        model: 'claude-x',
        key: 'sk-ant-xyz',
        temperature: 0.3,
        budget_requests: 500,
        fallback: 'fail',
      },
      seeds: 5,
      baseline: { kind: 'file', path: '.harness-risk/baseline.json' },
      saveBaseline: 'false',
      gate: {
        failOn: {
          regression: false,
          threshold: true,
          invalid: false,
          uncontained: false,
          flaky: false,
          never: false,
        },
        thresholds: {
          overall: { maxAsr: 0.05, maxPersistence: 0, minCss: 0.8 },
          phases: { runtime: { maxAsr: 0 }, persistence: { maxPersistence: 0, minCss: 0.9 } },
        },
        alpha: 0.01,
        minEffect: 0.2,
      },
      comment: false,
      annotations: false,
      shard: { index: 2, total: 4 },
      resultPath: 'out/r.json',
      sarif: 'r.sarif',
      junit: 'r.xml',
    });
    expect(
      parse({ 'phase-thresholds': '{"action": {"max-asr": 0.1}}', 'run-result': 'a.json,b/' }).gate.thresholds
        .phases,
    ).toEqual({ action: { maxAsr: 0.1 } });
    expect(parse({ 'fail-on': 'never', 'run-result': 'x' }).gate.failOn).toEqual({
      regression: false,
      threshold: false,
      invalid: false,
      uncontained: false,
      flaky: false,
      never: true,
    });
    expect(parse({ 'fail-on': 'regression | threshold', 'run-result': 'x' }).gate.failOn).toEqual({
      regression: true,
      threshold: true,
      invalid: false,
      uncontained: false,
      flaky: false,
      never: false,
    });
    expect(
      parse({
        'fail-on': 'invalid,uncontained',
        'on-missing-baseline': 'fail',
        'max-invalid': '0',
        'run-result': 'x',
      }).gate,
    ).toMatchObject({
      failOn: {
        regression: false,
        threshold: false,
        invalid: true,
        uncontained: true,
        flaky: false,
        never: false,
      },
      onMissingBaseline: 'fail',
      maxInvalid: 0,
    });
  });

  it('does not need adapter/config in report-only mode', () => {
    expect(parse({ 'run-result': 'results/' }).runResult).toEqual(['results/']);
  });

  const ok = { adapter: 'reference', config: 'guarded' };
  it.each([
    [{ adapter: '', config: 'x' }, 'adapter', /is required/],
    [{ adapter: 'reference', config: '' }, 'config', /is required/],
    [
      { ...ok, config: 'open,guarded' },
      'config',
      /names several configurations; the action runs one per step: use a matrix/,
    ],
    [{ ...ok, runner: 'vm' }, 'runner', /"vm" is not one of "process", "process-uncontained", "docker"/],
    [{ ...ok, runner: 'docker' }, 'image', /is required with runner: docker/],
    [{ ...ok, concurrency: '0' }, 'concurrency', /a whole number from 1 to 64/],
    [{ ...ok, concurrency: 'many' }, 'concurrency', /not a concurrency/],
    [{ ...ok, timeout: '-5' }, 'timeout', /write seconds \(e\.g\. 120\) or minutes/],
    [{ ...ok, model: 'gpt' }, 'model', /"gpt" is not one of "scripted", "live"/],
    [{ ...ok, seeds: '1.5' }, 'seeds', /not a number of seeds/],
    [{ ...ok, baseline: 'main' }, 'baseline', /write file:PATH .*, cache .* or none/],
    [{ ...ok, baseline: 'file:' }, 'baseline', /not a baseline source/],
    [{ ...ok, 'save-baseline': 'yes' }, 'save-baseline', /"yes" is not one of "auto", "true", "false"/],
    [
      { ...ok, 'fail-on': 'sometimes' },
      'fail-on',
      /write a comma-separated list of regression, threshold, invalid, uncontained, flaky \(default "regression,threshold,invalid"\), or never/,
    ],
    [
      { ...ok, 'on-missing-baseline': 'ignore' },
      'on-missing-baseline',
      /"ignore" is not one of "neutral", "fail", "pass"/,
    ],
    [{ ...ok, 'max-invalid': '150%' }, 'max-invalid', /not a largest share of invalid trials/],
    [{ ...ok, 'fail-on': 'never,regression' }, 'fail-on', /not valid/],
    [{ ...ok, 'max-asr': '5' }, 'max-asr', /fraction from 0 to 1 \(e\.g\. 0\.05\) or a percentage/],
    [{ ...ok, 'min-css': 'high' }, 'min-css', /not a minimum CSS/],
    [{ ...ok, 'phase-thresholds': 'runtime: [' }, 'phase-thresholds', /not valid YAML\/JSON/],
    [
      { ...ok, 'phase-thresholds': 'runtim: {max-asr: 0}' },
      'phase-thresholds',
      /unknown phase "runtim"; phases are configuration, extension/,
    ],
    [
      { ...ok, 'phase-thresholds': 'runtime: {max_asr: 0}' },
      'phase-thresholds',
      /runtime: Unrecognized key.*max_asr/,
    ],
    [
      { ...ok, 'phase-thresholds': 'runtime: {max-asr: 2}' },
      'phase-thresholds',
      /runtime\.max-asr: 2 is not a fraction/,
    ],
    [{ ...ok, alpha: '0' }, 'alpha', /between 0 and 1 \(exclusive\)/],
    [{ ...ok, 'min-effect': '150%' }, 'min-effect', /not a minimum effect/],
    [{ ...ok, comment: 'yes' }, 'comment', /"yes" is not a boolean; write true or false/],
    [{ ...ok, annotations: '1' }, 'annotations', /not a boolean/],
    [{ ...ok, shard: '3/2' }, 'shard', /write i\/n with 1 ≤ i ≤ n/],
    [{ ...ok, shard: 'first' }, 'shard', /not a shard/],
  ] as [Partial<Record<InputName, string>>, string, RegExp][])('%j → input %s', (over, name, message) => {
    let err: unknown;
    try {
      parse(over);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message.startsWith(`Input "${name}": `), (err as Error).message).toBe(true);
    expect((err as Error).message).toMatch(message);
  });

  it.each([
    ['reference', 'guarded', undefined, '.harness-risk/reference-guarded.json'],
    ['./harness/adapter.yaml', 'strict', undefined, '.harness-risk/harness-strict.json'],
    ['adapters/my bot/', 'a/b', { index: 2, total: 3 }, '.harness-risk/my_bot-b-shard-2-of-3.json'],
  ])('default result path of %s/%s', (adapter, config, shard, expected) => {
    expect(defaultResultPath(adapter, config, shard)).toBe(expected);
  });
});

describe('examples/workflows', () => {
  const dir = join(ROOT, 'examples/workflows');
  // Every example, so a new one is checked too.
  const files = readdirSync(dir).filter((f) => f.endsWith('.yml'));
  it.each(files)('%s uses only valid inputs with valid values', (file) => {
    const wf = parseYaml(readFileSync(join(dir, file), 'utf8'));
    const steps = Object.values<any>(wf.jobs)
      .flatMap((j) => j.steps ?? [])
      .filter((s) => String(s.uses ?? '').startsWith('harness-risk/harness-risk-action@'));
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) {
      const w: Record<string, string> = Object.fromEntries(
        Object.entries<any>(step.with ?? {}).map(([k, v]) => [
          k,
          String(v)
            .replace(/\$\{\{ matrix\.shard \}\}/g, '1')
            .replace(/\$\{\{ matrix\.config \}\}/g, 'default')
            .replace(
              /^\$\{\{.*\}\}$/,
              // An expression's value is known only in the job: a valid one of each input stands for it.
              k === 'save-baseline' ? 'auto' : k === 'pull-request' ? '7' : k === 'baseline' ? 'none' : 'x',
            ),
        ]),
      );
      for (const k of Object.keys(w)) expect(INPUT_NAMES, `${file}: unknown input ${k}`).toContain(k);
      expect(() => parse(w as Partial<Record<InputName, string>>), file).not.toThrow();
    }
  });

  /** Every harness-risk step of a workflow, with `${{ matrix.X }}` expanded over the job's matrix. */
  function stepsOf(file: string): { job: string; with: Record<string, string>; on: unknown }[] {
    const wf = parseYaml(readFileSync(join(dir, file), 'utf8'));
    const out: { job: string; with: Record<string, string>; on: unknown }[] = [];
    for (const [job, j] of Object.entries<any>(wf.jobs)) {
      const matrix: Record<string, unknown[]> = j.strategy?.matrix ?? {};
      let combos: Record<string, string>[] = [{}];
      for (const [k, vs] of Object.entries(matrix))
        combos = combos.flatMap((c) => (vs as unknown[]).map((v) => ({ ...c, [k]: String(v) })));
      for (const step of j.steps ?? []) {
        if (!String(step.uses ?? '').startsWith('harness-risk/harness-risk-action@')) continue;
        for (const c of combos) {
          const w = Object.fromEntries(
            Object.entries<any>(step.with ?? {}).map(([k, v]) => [
              k,
              String(v).replace(/\$\{\{ matrix\.(\w+) \}\}/g, (_m, name: string) => c[name] ?? ''),
            ]),
          );
          out.push({ job, with: w, on: wf.on });
        }
      }
    }
    return out;
  }

  it('keeps every gated configuration’s baseline alive: saved on main for the same cases, refreshed on a schedule', () => {
    const refresh = stepsOf('baseline-refresh.yml');
    const wf = parseYaml(readFileSync(join(dir, 'baseline-refresh.yml'), 'utf8'));
    expect(wf.on.push.branches).toEqual(['main']);
    // A cache entry unused for 7 days is evicted: a schedule at least weekly re-saves it.
    expect(wf.on.schedule?.[0]?.cron, 'baseline-refresh.yml needs a schedule').toMatch(/^\S+ \S+ \* \* \S+$/);
    const saved = new Set(
      refresh
        .filter((s) => s.with['save-baseline'] !== 'false')
        .map((s) => `${s.with.adapter}|${s.with.config}|${s.with.cases ?? ''}`),
    );
    for (const file of ['pr-gate.yml', 'matrix.yml']) {
      for (const s of stepsOf(file)) {
        const w = s.with;
        // Steps that compare with the cached baseline: gating runs and the report-only merge.
        if ((w.baseline ?? 'cache') !== 'cache' || w['fail-on'] === 'never') continue;
        if (w['run-result']) {
          // The merge job reports on the shards: their selection is what must be saved.
          const shards = stepsOf(file).filter((x) => x.with.shard);
          for (const x of shards)
            expect(saved, `${file}/${s.job}: shards of ${x.with.config} on ${x.with.cases}`).toContain(
              `${x.with.adapter}|${x.with.config}|${x.with.cases ?? ''}`,
            );
          continue;
        }
        expect(saved, `${file}/${s.job}: ${w.config} on ${w.cases}`).toContain(
          `${w.adapter}|${w.config}|${w.cases ?? ''}`,
        );
      }
    }
  });

  // Official actions on the majors that run on node24 (checkout v5; upload-artifact v6 and
  // download-artifact v7, whose v5/v6 still defaulted to node20; codeql-action v4).
  const NODE24_MAJOR: Record<string, number> = {
    'actions/checkout': 5,
    'actions/upload-artifact': 6,
    'actions/download-artifact': 7,
    'github/codeql-action/upload-sarif': 4,
  };
  it.each(files)('%s pins node24 majors of the official actions and uploads named, visible files', (file) => {
    const wf = parseYaml(readFileSync(join(dir, file), 'utf8'));
    for (const [job, j] of Object.entries<any>(wf.jobs)) {
      for (const step of j.steps ?? []) {
        const [name, ref] = String(step.uses ?? '').split('@');
        const min = NODE24_MAJOR[name!];
        if (min)
          expect(
            Number(/^v(\d+)/.exec(ref ?? '')?.[1]),
            `${file}/${job}: ${step.uses}`,
          ).toBeGreaterThanOrEqual(min);
        if (name === 'actions/upload-artifact') {
          // The default result-path is inside the hidden .harness-risk/ folder: upload-artifact skips it.
          const paths = String(step.with?.path ?? '');
          expect(paths, `${file}/${job}`).not.toContain('result-path');
          expect(paths, `${file}/${job}`).not.toMatch(/(^|\/)\.harness-risk/);
          expect(step.with?.['if-no-files-found'], `${file}/${job}`).toBe('error');
        }
      }
    }
  });

  it('release-gate runs once per release, with the permissions SARIF upload needs', () => {
    const wf = parseYaml(readFileSync(join(dir, 'release-gate.yml'), 'utf8'));
    expect(wf.on).toEqual({ release: { types: ['published'] } });
    expect(wf.permissions).toMatchObject({ 'security-events': 'write', actions: 'read', contents: 'read' });
  });

  // One gate, one reporter (report/publisher.ts refuses a second at run time): within a workflow, each
  // adapter/configuration is published by exactly one job and matrix leg. A report-only step gates what
  // the jobs it needs ran.
  it.each(files)('%s: one reporting job per gated adapter and configuration', (file) => {
    expect(
      reportersPerGate(parseYaml(readFileSync(join(dir, file), 'utf8'))).filter(([, n]) => n > 1),
    ).toEqual([]);
  });

  it('the reporter count sees two jobs reporting one gate (a config leg and a shard merge job)', () => {
    const wf = parseYaml(`
jobs:
  configs:
    strategy: { matrix: { config: [default, strict] } }
    steps:
      - uses: harness-risk/harness-risk-action@v1
        with: { adapter: a.yaml, config: "\${{ matrix.config }}" }
  shard:
    strategy: { matrix: { shard: [1, 2] } }
    steps:
      - uses: harness-risk/harness-risk-action@v1
        with: { adapter: a.yaml, config: default, comment: false, check-run: false }
  report:
    needs: shard
    steps:
      - uses: harness-risk/harness-risk-action@v1
        with: { run-result: shards/ }
  legs:
    strategy: { matrix: { shard: [1, 2] } }
    steps:
      - uses: harness-risk/harness-risk-action@v1
        with: { adapter: b.yaml, config: x }
`);
    expect(Object.fromEntries(reportersPerGate(wf))).toEqual({
      'a.yaml / default': 2,
      'a.yaml / strict': 1,
      'b.yaml / x': 2,
    });
  });

  it('shards report nothing; the merge job reports once; fork PRs are reported from workflow_run', () => {
    for (const s of stepsOf('matrix.yml').filter((x) => x.with.shard))
      expect(s.with).toMatchObject({ comment: 'false', 'check-run': 'false' });
    const fork = parseYaml(readFileSync(join(dir, 'fork-pr-report.yml'), 'utf8'));
    expect(fork.on.workflow_run.workflows).toEqual([
      parseYaml(readFileSync(join(dir, 'pr-gate.yml'), 'utf8')).name,
    ]);
    expect(fork.permissions).toMatchObject({ actions: 'read', 'pull-requests': 'write', checks: 'write' });
    // Never the fork's code: no checkout in the trusted workflow.
    const steps = Object.values<any>(fork.jobs).flatMap((j) => j.steps);
    expect(steps.some((s) => String(s.uses ?? '').startsWith('actions/checkout'))).toBe(false);
    const report = stepsOf('fork-pr-report.yml')[0]!;
    expect(report.with['run-result']).toBeTruthy();
    expect(report.with['pull-request']).toBeTruthy();
  });
});

/** Each gate (adapter / config) a workflow publishes, with how many job × matrix-leg reporters it has. */
function reportersPerGate(wf: any): [string, number][] {
  const count = new Map<string, number>();
  const actionSteps = (job: any) =>
    (job?.steps ?? []).filter((st: any) =>
      String(st.uses ?? '').startsWith('harness-risk/harness-risk-action@'),
    );
  const legsOf = (job: any): Record<string, string>[] => {
    const m = job?.strategy?.matrix ?? {};
    let legs: Record<string, string>[] = [{}];
    for (const [k, vs] of Object.entries<any>(m))
      if (Array.isArray(vs)) legs = legs.flatMap((l) => vs.map((v) => ({ ...l, [k]: String(v) })));
    return legs;
  };
  const expand = (v: unknown, leg: Record<string, string>) =>
    String(v ?? '').replace(/\$\{\{\s*matrix\.(\w+)\s*\}\}/g, (_, k: string) => leg[k] ?? `<${k}>`);
  for (const job of Object.values<any>(wf.jobs ?? {})) {
    for (const st of actionSteps(job)) {
      const w = st.with ?? {};
      if (String(w.comment) === 'false' && String(w['check-run']) === 'false') continue;
      for (const leg of legsOf(job)) {
        // Report-only: the gates of the steps of the jobs it needs (their results are its input).
        const sources = w['run-result']
          ? [wf.jobs[job.needs]].flatMap((j: any) => actionSteps(j).map((x: any) => x.with ?? {}))
          : [w];
        const gates = new Set(
          sources.map((x: any) => `${expand(x.adapter, leg)} / ${expand(x.config, leg)}`),
        );
        for (const g of gates) count.set(g, (count.get(g) ?? 0) + 1);
      }
    }
  }
  return [...count];
}
