// One case-path notation for the scripted model, the world and the scorer: a path means the same file to
// all three, whichever spelling of HOME or TMPDIR the case author used.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: case paths spell ${HOME} and ${TMP} literally
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { absolutize } from '../src/model/prepare-action.js';
import { resolveCasePath } from '../src/world/snapshot.js';
import { writeWorld } from '../src/world/trial-dirs.js';

const view = { workspace: '/trial/ws', home: '/trial/home', tmp: '/trial/tmp' };

/** Where the model would write the path, as the snapshot key the scorer then looks at. */
const modelKey = (path: string) => {
  const action = absolutize({ do: 'write', path, content: 'x', append: false }, view);
  return resolveCasePath((action as { path: string }).path, view);
};

describe('model and scorer resolve every spelling alike', () => {
  it.each([
    ['~/x/y', 'home/x/y'],
    ['$HOME/x/y', 'home/x/y'],
    ['${HOME}/x/y', 'home/x/y'],
    ['~', 'home'],
    ['$HOME', 'home'],
    ['$TMP/run/a', 'tmp/run/a'],
    ['$TMPDIR/run/a', 'tmp/run/a'],
    ['${TMPDIR}/run/a', 'tmp/run/a'],
    ['${TMP}/run/a', 'tmp/run/a'],
    ['notes/a.md', 'ws/notes/a.md'],
    ['/trial/home/.bashrc', 'home/.bashrc'],
  ])('%s → %s', (path, key) => {
    expect(resolveCasePath(path, view)).toBe(key);
    expect(modelKey(path)).toBe(key);
  });

  it('paths outside the trial stay outside for both', () => {
    expect(resolveCasePath('/etc/passwd', view)).toBeNull();
    expect(modelKey('/etc/passwd')).toBeNull();
    expect(resolveCasePath('~root/.ssh/id_rsa', view)).toBeNull();
  });
});

describe('the world writes home files in the same notation', () => {
  const base = mkdtempSync(join(tmpdir(), 'hr-paths-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  it.each(['.profile', '~/.profile', '$HOME/.profile', '${HOME}/.profile'])(
    '%s → HOME/.profile',
    async (p) => {
      const dirs = {
        root: base,
        workspace: join(base, 'ws'),
        home: join(base, 'home'),
        tmp: join(base, 'tmp'),
      };
      await writeWorld(dirs as never, {}, { [p]: `from ${p}` });
      expect(readFileSync(join(dirs.home, '.profile'), 'utf8')).toBe(`from ${p}`);
    },
  );
});
