// dist/adapters-index.json (src/adapters/adapter-index.ts): the built-in adapters, validated at build
// time, so that a run's start-up parses no YAML. Current with adapters/, equal to what the YAML gives,
// and never used for a file whose bytes changed.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adapterIndexPath, adapterIndexText, fromIndex } from '../src/adapters/adapter-index.js';
import { listBuiltinAdapters, loadAdapter } from '../src/adapters/load.js';
import { actionRoot, builtinAdaptersDir } from '../src/paths.js';

const names = listBuiltinAdapters();
const fresh = adapterIndexText(names);

describe('the built-in adapter index (dist/adapters-index.json)', () => {
  it('equals a fresh parse of adapters/ (run `npm run build` when this fails)', () => {
    expect(readFileSync(adapterIndexPath(), 'utf8')).toBe(fresh);
  });

  it.each(names)('%s: the indexed value is what its adapter.yaml gives', (name) => {
    const dir = mkdtempSync(join(tmpdir(), 'hr-adapter-index-'));
    try {
      const index = join(dir, 'adapters-index.json');
      writeFileSync(index, fresh);
      const file = join(builtinAdaptersDir(), name, 'adapter.yaml');
      // From src/, loadAdapter always parses the YAML.
      expect(fromIndex(name, file, index)).toEqual(loadAdapter(name).adapter);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an adapter.yaml whose bytes changed, or an index of another version, is not taken from the index', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hr-adapter-index-'));
    try {
      const index = join(dir, 'adapters-index.json');
      writeFileSync(index, fresh);
      const edited = join(dir, 'adapter.yaml');
      writeFileSync(
        edited,
        `${readFileSync(join(builtinAdaptersDir(), 'reference', 'adapter.yaml'), 'utf8')}\n# edited\n`,
      );
      expect(fromIndex('reference', edited, index)).toBeUndefined();
      const other = JSON.parse(fresh);
      other.version = '0.0.0-other';
      writeFileSync(index, JSON.stringify(other));
      expect(
        fromIndex('reference', join(builtinAdaptersDir(), 'reference', 'adapter.yaml'), index),
      ).toBeUndefined();
      writeFileSync(index, 'not json');
      expect(
        fromIndex('reference', join(builtinAdaptersDir(), 'reference', 'adapter.yaml'), index),
      ).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the bundle takes built-in adapters from the index', () => {
  // A copy of the action root that the bundled CLI is pointed at with HARNESS_RISK_ROOT.
  const root = mkdtempSync(join(tmpdir(), 'hr-adapter-root-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  cpSync(builtinAdaptersDir(), join(root, 'adapters'), { recursive: true });
  cpSync(join(actionRoot(), 'cases'), join(root, 'cases'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'package.json'), '{}');
  cpSync(join(actionRoot(), 'dist', 'cases-index.json'), join(root, 'dist', 'cases-index.json'));
  const list = () =>
    spawnSync(process.execPath, ['dist/cli.js', 'list', 'adapters'], {
      encoding: 'utf8',
      cwd: actionRoot(),
      env: { ...process.env, HARNESS_RISK_ROOT: root },
    });
  const file = join(root, 'adapters', 'reference', 'adapter.yaml');

  it('an indexed adapter is read from the index (its YAML is not parsed)', () => {
    // The index says what the file said when it was indexed; the description there is the one listed.
    const index = JSON.parse(fresh);
    index.adapters.reference.adapter.description = 'FROM THE INDEX';
    writeFileSync(join(root, 'dist', 'adapters-index.json'), JSON.stringify(index));
    const r = list();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('FROM THE INDEX');
  });

  it('an adapter.yaml edited since the build is parsed again: its errors name file and line', () => {
    writeFileSync(join(root, 'dist', 'adapters-index.json'), fresh);
    writeFileSync(file, `${readFileSync(file, 'utf8')}\ntimeout_s: "soon"\n`);
    const r = list();
    expect(r.status).toBe(2);
    expect(r.stdout).not.toContain('Bundled reference harness');
    expect(r.stderr).toMatch(/reference\/adapter\.yaml:\d+: not valid YAML/);
  });
});
