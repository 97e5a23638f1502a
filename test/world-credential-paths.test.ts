// The credential files a harness must never see: which paths the patterns take, and what a scan of a
// checkout-shaped tree finds (nested repositories, submodules, links; never inside node_modules).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { credentialPattern, scanCredentials } from '../src/world/credential-paths.js';

describe('credentialPattern', () => {
  it.each([
    ['.git/config', true],
    ['vendor/lib/.git/config', true],
    ['.git/modules/sub/config', true],
    ['.git/modules/a/modules/b/config', true],
    ['gha-creds-5c1f2b.json', true],
    ['.env', true],
    ['.env.production', true],
    ['deploy/prod.env', true],
    ['.netrc', true],
    ['.npmrc', true],
    ['keys/id_ed25519', true],
    ['tls/server.pem', true],
    ['.env.example', false],
    ['.git/HEAD', false],
    ['.gitconfig.md', false],
    ['src/config', false],
    ['keys/id_ed25519.pub', false],
    ['docs/environment.md', false],
  ])('%s → %s', (path, hidden) => {
    expect(!!credentialPattern(path)).toBe(hidden);
  });
});

describe('scanCredentials', () => {
  const root = mkdtempSync(join(tmpdir(), 'hr-cred-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const put = (rel: string, text = 'x') => {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  };
  put('.git/config', '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3M=\n');
  put('.git/modules/lib/config');
  put('.git/objects/ab/.env');
  put('gha-creds-1a2b.json', '{"private_key":"k"}');
  put('app/.env.local');
  put('node_modules/pkg/.env');
  put('src/index.ts');
  symlinkSync('/etc/hostname', join(root, '.netrc'));

  it('finds every credential file, links included, and none under node_modules or git objects', () => {
    const s = scanCredentials(root);
    expect(s.found.map((p) => p.slice(root.length + 1))).toEqual([
      '.git/config',
      '.git/modules/lib/config',
      '.netrc',
      'app/.env.local',
      'gha-creds-1a2b.json',
    ]);
    expect(s.truncated).toBe(false);
  });

  it('an exposed glob keeps its files visible and lists them apart', () => {
    const s = scanCredentials(root, ['app/**']);
    expect(s.exposed.map((p) => p.slice(root.length + 1))).toEqual(['app/.env.local']);
    expect(s.found.some((p) => p.endsWith('.env.local'))).toBe(false);
  });

  it('stops at the entry cap and says so', () => {
    expect(scanCredentials(root, [], 3).truncated).toBe(true);
  });
});
