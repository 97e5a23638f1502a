// Annotations land on a line GitHub shows in "Files changed": the injected artifact of a repository case,
// the `configs: NAME:` line of the configuration under test, the workflow step; built-in cases are links
// into the action's repository at its version, never absolute runner paths.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baselineFromResult } from '../src/compare/baseline.js';
import { compareRuns } from '../src/compare/compare.js';
import {
  adapterConfigLine,
  artifactLine,
  builtinCasePath,
  builtinCaseUrl,
  workflowStepLine,
} from '../src/report/anchors.js';
import { buildAnnotations } from '../src/report/check.js';
import { makeResult, makeUnsafe } from './fixtures/results/builders.js';

const ROOT = resolve(import.meta.dirname, '..');
const lineOf = (file: string, needle: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(needle)) + 1;

describe('anchors', () => {
  const ws = mkdtempSync(join(tmpdir(), 'hr-anchors-'));
  cpSync(join(ROOT, 'adapters/reference'), join(ws, 'harness'), { recursive: true });
  mkdirSync(join(ws, 'cases/runtime'), { recursive: true });
  cpSync(
    join(ROOT, 'cases/runtime/architecture-page-diagram-beacon.yaml'),
    join(ws, 'cases/runtime/beacon.yaml'),
  );
  mkdirSync(join(ws, '.github/workflows'), { recursive: true });
  writeFileSync(
    join(ws, '.github/workflows/safety.yml'),
    'on: pull_request\njobs:\n  risk:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v6\n      - uses: harness-risk/harness-risk-action@v1\n        with:\n          config: guarded\n',
  );
  const ctx = {
    workspace: ws,
    cwd: ws,
    workflowRef: 'o/r/.github/workflows/safety.yml@refs/pull/2/merge',
    action: { repository: 'acme/harness-risk-action', ref: 'v1.2.0' },
  };

  it('finds the config, the artifact and the step lines', () => {
    const adapter = join(ws, 'harness/adapter.yaml');
    expect(adapterConfigLine(adapter, 'guarded')).toBe(lineOf(adapter, '  guarded:'));
    expect(adapterConfigLine(adapter, 'open')).toBe(lineOf(adapter, '  open:'));
    expect(adapterConfigLine(adapter, 'nope')).toBeUndefined();
    const beacon = join(ws, 'cases/runtime/beacon.yaml');
    // The trigger's text inside the web page of the world, not its declaration under inject:.
    expect(artifactLine(beacon)).toBe(lineOf(beacon, '<p><small>Diagram viewer: agents cannot see images'));
    expect(workflowStepLine(join(ws, '.github/workflows/safety.yml'))).toBe(7);
  });

  it('links built-in cases at the action’s version', () => {
    const abs = join(ROOT, 'cases/runtime/architecture-page-diagram-beacon.yaml');
    expect(builtinCasePath(abs)).toBe('cases/runtime/architecture-page-diagram-beacon.yaml');
    expect(builtinCasePath('builtin:runtime/x.yaml')).toBe('cases/runtime/x.yaml');
    expect(builtinCasePath(join(ws, 'cases/runtime/beacon.yaml'))).toBeUndefined();
    expect(builtinCaseUrl(abs, { repository: 'acme/harness-risk-action', ref: 'v1.2.0' })).toBe(
      'https://github.com/acme/harness-risk-action/blob/v1.2.0/cases/runtime/architecture-page-diagram-beacon.yaml',
    );
    expect(builtinCaseUrl(abs, {})).toMatch(
      /^https:\/\/github\.com\/harness-risk\/harness-risk-action\/blob\/v\d+\.\d+\.\d+\/cases\/runtime\//,
    );
  });

  it('a regression of a built-in case annotates the adapter’s config line; a repository case its artifact', () => {
    const builtin = join(ROOT, 'cases/runtime/architecture-page-diagram-beacon.yaml');
    const base = makeResult([
      { id: 'mine', phase: 'runtime', seeds: [false], file: 'cases/runtime/beacon.yaml' },
      { id: 'lib', phase: 'runtime', seeds: [false], file: builtin },
    ]);
    const withAdapter = (r: typeof base) => ({
      ...r,
      adapter: { ...r.adapter, file: 'harness/adapter.yaml' },
    });
    const current = withAdapter(makeUnsafe(makeUnsafe(base, 'mine'), 'lib'));
    const cmp = compareRuns(current, baselineFromResult(base, 'file:b'));
    const anns = buildAnnotations(cmp, [], current, ctx, { thresholdsGate: true, regressionsGate: true });
    const adapter = join(ws, 'harness/adapter.yaml');
    const beacon = join(ws, 'cases/runtime/beacon.yaml');
    expect(anns.map((a) => [a.title, a.path, a.start_line]).sort()).toEqual([
      ['Safety regression: lib (runtime)', 'harness/adapter.yaml', lineOf(adapter, '  guarded:')],
      [
        'Safety regression: mine (runtime)',
        'cases/runtime/beacon.yaml',
        lineOf(beacon, 'Diagram viewer: agents cannot see images'),
      ],
    ]);
    const lib = anns.find((a) => a.title!.includes('lib'))!;
    const mine = anns.find((a) => a.title!.includes('mine'))!;
    expect(lib.message).toContain(
      'Case file: https://github.com/acme/harness-risk-action/blob/v1.2.0/cases/runtime/architecture-page-diagram-beacon.yaml',
    );
    expect(mine.message).not.toContain('Case file:');
    // No adapter in the repository: the workflow step that runs the action.
    const bare = makeUnsafe(base, 'lib');
    const anns2 = buildAnnotations(compareRuns(bare, baselineFromResult(base, 'file:b')), [], bare, ctx, {
      thresholdsGate: true,
      regressionsGate: true,
    });
    expect(anns2.map((a) => [a.path, a.start_line])).toEqual([['.github/workflows/safety.yml', 7]]);
  });
});
