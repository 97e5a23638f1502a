// The package is publishable and `npx harness-risk-action` (bin harness-risk) gets what the CLI needs:
// the bundles, the case library, the adapters and the schemas — and nothing of the sources or tests.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

describe('npm pack', () => {
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

// The reproduce commands call `harness-risk`: the packed tarball, installed as npm installs a package
// (extracted under node_modules, its bin linked into node_modules/.bin and made executable), runs them
// from a folder that holds nothing else.
describe('the packed bin', () => {
  it('runs harness-risk from the tarball in an empty folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'packed-bin-'));
    try {
      const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, npm_config_update_notifier: 'false' },
      });
      const tgz = join(dir, JSON.parse(out)[0].filename);
      const pkgDir = join(dir, 'node_modules', 'harness-risk-action');
      mkdirSync(pkgDir, { recursive: true });
      execFileSync('tar', ['-xzf', tgz, '-C', pkgDir, '--strip-components', '1']);
      mkdirSync(join(dir, 'node_modules', '.bin'));
      const bin = join(dir, 'node_modules', '.bin', 'harness-risk');
      symlinkSync(join('..', 'harness-risk-action', pkg.bin['harness-risk']), bin);
      chmodSync(join(pkgDir, pkg.bin['harness-risk']), 0o755);
      const run = (...args: string[]) =>
        spawnSync(bin, args, {
          cwd: dir,
          encoding: 'utf8',
          timeout: 120_000,
          env: { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` },
        });
      const help = run('--help');
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/harness-risk run/);
      // Not yet: a run from the packed copy finds no dist/reference-harness.js inside the sandbox under
      // vitest (it works from a shell); see the issue-32 report.
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
