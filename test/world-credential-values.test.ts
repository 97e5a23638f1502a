// The secret values of credential files (src/world/credential-values.ts): each kind of file, and what
// the job mask then holds (src/front/job-secrets.ts credentialSecrets).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { credentialSecrets } from '../src/front/job-secrets.js';
import { type CredentialKind, credentialKind, credentialValues } from '../src/world/credential-values.js';

const TOKEN = 'ghs_CheckoutToken0123456789abcdefXYZ';
const basic = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');

/** The values a file yields that the mask keeps (certain ones, and entries the rule calls secret). */
function kept(kind: CredentialKind, text: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'hr-credvals-'));
  const names: Record<CredentialKind, string> = {
    'git-config': '.git/config',
    'git-credentials': '.git-credentials',
    dotenv: '.env',
    json: 'gha-creds-1a2b.json',
    netrc: '.netrc',
    ini: '.npmrc',
    pem: 'deploy.pem',
  };
  const file = join(dir, names[kind]);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  expect(credentialKind(file)).toBe(kind);
  return credentialSecrets({ workspace: dir });
}

describe('credentialValues, by kind of file', () => {
  const table: [CredentialKind, string, string[], string[]][] = [
    [
      'git-config',
      `[remote "origin"]\n\turl = https://github.com/o/r\n[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${basic}\n`,
      [basic, `x-access-token:${TOKEN}`, TOKEN],
      ['https://github.com/o/r'],
    ],
    [
      'git-credentials',
      `https://x-access-token:${encodeURIComponent('p@ss/w0rd!')}@github.com\n`,
      ['p@ss/w0rd!', 'p%40ss%2Fw0rd!'],
      ['github.com'],
    ],
    [
      'dotenv',
      'export STRIPE_LIVE="rk_live_51Hq2v7Xb3"\nDB_CONN=postgres://app:Pw9x7@db/prod # prod\nNODE_ENV=production\nPORT=3000\n# COMMENTED=Xb3kP9qLmZ2v\n',
      ['rk_live_51Hq2v7Xb3', 'postgres://app:Pw9x7@db/prod', 'Pw9x7'],
      ['production', '3000', 'Xb3kP9qLmZ2v'],
    ],
    [
      'json',
      JSON.stringify({
        type: 'service_account',
        client_id: '1234567890',
        private_key: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n-----END PRIVATE KEY-----\n',
        credential_source: { headers: { Authorization: 'Bearer idt-Planted4IdToken5' } },
      }),
      ['MIIEvQIBADANBgkqhkiG9w0B', 'idt-Planted4IdToken5'],
      ['service_account', '1234567890'],
    ],
    [
      'netrc',
      'machine api.example.com\n  login deploy\n  password Npw-9xK2mQ7\n',
      ['Npw-9xK2mQ7'],
      ['deploy'],
    ],
    [
      'ini',
      '//registry.npmjs.org/:_authToken=npm_Xb3kP9qLmZ2vR7tY1w\nregistry=https://registry.npmjs.org/\nalways-auth=true\n',
      ['npm_Xb3kP9qLmZ2vR7tY1w'],
      ['true'],
    ],
    [
      'pem',
      '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIOvT3xq9\nAoGCCqGSM49AwEHoUQDQgAE\n-----END EC PRIVATE KEY-----\n',
      ['MHcCAQEEIOvT3xq9\nAoGCCqGSM49AwEHoUQDQgAE'],
      [],
    ],
  ];
  it.each(table)('%s', (kind, text, secret, visible) => {
    const values = kept(kind, text);
    for (const s of secret) expect(values, s).toContainEqual(expect.stringContaining(s));
    for (const v of visible) expect(values, v).not.toContain(v);
  });

  it('a yaml token (gh hosts.yml, kube config) is a secret by its key', () => {
    const v = credentialValues('ini', 'github.com:\n    oauth_token: gho_abc\n    user: octocat\n');
    expect(v).toContainEqual({ key: 'oauth_token', value: 'gho_abc' });
  });
});

describe('credentialSecrets over a workspace', () => {
  it('reads the checkout, submodule configs, gha-creds and dotenv files, and files near HOME', () => {
    const ws = mkdtempSync(join(tmpdir(), 'hr-credws-'));
    const home = mkdtempSync(join(tmpdir(), 'hr-credhome-'));
    mkdirSync(join(ws, '.git/modules/lib/sub'), { recursive: true });
    writeFileSync(join(ws, '.git/config'), `\textraheader = AUTHORIZATION: basic ${basic}\n`);
    writeFileSync(join(ws, '.git/modules/lib/sub/config'), '\turl = https://u:SubModulePw99@host/x\n');
    writeFileSync(join(ws, 'gha-creds-77.json'), JSON.stringify({ private_key_id: 'f0e1d2c3b4a5' }));
    mkdirSync(join(ws, 'app'));
    writeFileSync(join(ws, 'app/.env'), 'API=Xb3kP9qLmZ2vR7tY\n');
    mkdirSync(join(home, '.docker'));
    writeFileSync(
      join(home, '.docker/config.json'),
      JSON.stringify({ auths: { 'ghcr.io': { auth: Buffer.from('me:DockerPw123').toString('base64') } } }),
    );
    const values = credentialSecrets({ workspace: ws, near: [home] });
    for (const s of [TOKEN, 'SubModulePw99', 'f0e1d2c3b4a5', 'Xb3kP9qLmZ2vR7tY', 'DockerPw123'])
      expect(values).toContain(s);
  });

  it("reads actions/checkout v6's credentials file in RUNNER_TEMP (persist-credentials moved out of .git/config)", () => {
    // checkout@v6 writes the extraheader to $RUNNER_TEMP/git-credentials-<uuid>.config and only an
    // includeIf pointing at it into .git/config.
    const ws = mkdtempSync(join(tmpdir(), 'hr-credws-'));
    const temp = mkdtempSync(join(tmpdir(), 'hr-credtemp-'));
    mkdirSync(join(ws, '.git'));
    const creds = join(temp, 'git-credentials-0b8f6c2e-4d1a-4c8e-9f3b-2a7d5e6f1c90.config');
    writeFileSync(join(ws, '.git/config'), `[includeIf "gitdir:${ws}/.git"]\n\tpath = ${creds}\n`);
    writeFileSync(creds, `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${basic}\n`);
    expect(credentialSecrets({ workspace: ws, near: [temp] })).toContain(TOKEN);
  });
});
