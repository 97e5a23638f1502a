// The package is publishable and `npx harness-risk-action` (bin harness-risk) gets what the CLI needs:
// the bundles, the case library, the adapters and the schemas — and nothing of the sources or tests.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('npm pack', () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

  it('is not private and names its bin, engines and files', () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.bin).toEqual({ 'harness-risk': 'dist/cli.js' });
    expect(pkg.engines.node).toBe('>=20');
    expect(readFileSync('dist/cli.js', 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('packs the CLI, the library and the adapters, not src/ or test/', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    const files: string[] = JSON.parse(out)[0].files.map((f: { path: string }) => f.path);
    for (const f of [
      'package.json',
      'action.yml',
      'README.md',
      'dist/cli.js',
      'dist/index.js',
      'dist/reference-harness.js',
      'dist/svc.js',
      'adapters/reference/adapter.yaml',
      'cases/runtime/architecture-page-diagram-beacon.yaml',
      'schema/case.schema.json',
    ])
      expect(files, f).toContain(f);
    expect(files.filter((f) => /^(src|test|scripts|examples|node_modules)\//.test(f))).toEqual([]);
    expect(files.length).toBeLessThan(1000);
  });
});
