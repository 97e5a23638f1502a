// A harness's npm install scripts are the harness's code, run before any sandbox: they get npm's variables
// and the ones an .npmrc names, never the job's token, inputs, runner variables or other secrets.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureInstalled } from '../src/adapters/install.js';
import { installEnv, npmrcReferences } from '../src/adapters/install-env.js';
import type { Adapter } from '../src/adapters/schema.js';
import { type LocalRegistry, startLocalRegistry } from './support/npm-registry.js';

const JOB = {
  GITHUB_TOKEN: 'ghs_jobtoken0000000000000000000000000000',
  'INPUT_GITHUB-TOKEN': 'ghs_jobtoken0000000000000000000000000000',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-request-token',
  RUNNER_TEMP: '/runner/tmp',
  ANTHROPIC_API_KEY: 'sk-ant-provider-key',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
};

describe('the environment of a harness install', () => {
  it.each([
    ['PATH', true],
    ['HOME', true],
    ['npm_config_registry', true],
    ['NPM_CONFIG_USERCONFIG', true],
    ['HTTPS_PROXY', true],
    ['no_proxy', true],
    ['NODE_EXTRA_CA_CERTS', true],
    ['GITHUB_TOKEN', false],
    ['INPUT_GITHUB-TOKEN', false],
    ['ACTIONS_ID_TOKEN_REQUEST_TOKEN', false],
    ['RUNNER_TEMP', false],
    ['ANTHROPIC_API_KEY', false],
    ['AWS_SECRET_ACCESS_KEY', false],
  ])('%s passes: %s', (name, passes) => {
    expect(name in installEnv({ [name]: 'v' })).toBe(passes);
  });

  it('a variable an .npmrc names passes (its registry token), a forbidden one never', () => {
    const npmrc =
      '//npm.acme.test/:_authToken=${ACME_TOKEN}\n//npm.pkg.github.com/:_authToken=${GITHUB_TOKEN}\n';
    expect(npmrcReferences([npmrc])).toEqual(['ACME_TOKEN', 'GITHUB_TOKEN']);
    const env = installEnv({ ACME_TOKEN: 't', GITHUB_TOKEN: 'g', OTHER: 'o' }, [npmrc]);
    expect(env).toEqual({ ACME_TOKEN: 't' });
  });
});

describe('a real npm install of a package whose install script records its environment', () => {
  let registry: LocalRegistry;
  const PKG = 'env-recorder';
  beforeAll(async () => {
    registry = await startLocalRegistry({
      [PKG]: {
        '1.0.0': {
          'package.json': JSON.stringify({
            name: PKG,
            version: '1.0.0',
            files: ['record.js'],
            scripts: { postinstall: 'node record.js' },
          }),
          'record.js':
            "require('fs').writeFileSync(require('path').join(__dirname, 'env.json'), JSON.stringify(process.env));\n",
        },
      },
    });
  });
  afterAll(async () => registry?.close());

  it('sees npm and its registry, not the job', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hr-install-env-'));
    const home = join(root, 'home');
    mkdirSync(home);
    const cacheDir = join(root, 'cache');
    mkdirSync(cacheDir);
    chmodSync(cacheDir, 0o755);
    writeFileSync(join(home, '.npmrc'), `registry=${registry.url}\n`);
    // install.command runs with the same environment as npm's lifecycle scripts (which npm 11 runs only
    // once approved; older npm runs them): both record what they see.
    const command = `node -e "require('fs').writeFileSync('env.json', JSON.stringify(process.env))"`;
    const adapter = {
      name: 'rec',
      install: { npm: { package: PKG, version: '1.0.0' }, command },
    } as unknown as Adapter;
    const env = { PATH: process.env.PATH, HOME: home, npm_config_cache: join(home, '.npm'), ...JOB };
    const info = await ensureInstalled(adapter, cacheDir, { env, projectDir: root });
    expect(info.installed).toBe(true);
    const dir = join(cacheDir, 'rec-1.0.0');
    const records = [join(dir, 'env.json'), join(dir, 'node_modules', PKG, 'env.json')];
    expect(existsSync(records[0]!)).toBe(true);
    for (const file of records.filter((f) => existsSync(f))) {
      const seen = JSON.parse(readFileSync(file, 'utf8'));
      for (const name of Object.keys(JOB)) expect(seen[name], name).toBeUndefined();
      const values = JSON.stringify(seen);
      for (const value of Object.values(JOB)) expect(values).not.toContain(value);
      expect(seen.HOME).toBe(home);
    }
  }, 120_000);
});
