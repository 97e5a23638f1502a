// The registry of a harness package as npm would choose it: npm_config_* over the project's .npmrc over the
// user's, scoped registries, ${VAR} expansion; the packument fetch and a real `npm install` into the
// harness cache both honour a project's .npmrc (a local registry on 127.0.0.1; the default registry is an
// unreachable 127.0.0.1 port, so nothing is sent anywhere else).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureInstalled } from '../src/adapters/install.js';
import {
  ignoredProjectNpmrc,
  npmRegistryConfig,
  parseNpmrc,
  projectNpmrc,
  registryFor,
  tokenFor,
} from '../src/adapters/npmrc.js';
import { publishedVersions } from '../src/adapters/registry.js';
import type { Adapter } from '../src/adapters/schema.js';
import { type LocalRegistry, startLocalRegistry } from './support/npm-registry.js';

const DEAD = 'http://127.0.0.1:9/';

/** A home with a user .npmrc and a project (package.json, optional .npmrc) with a nested folder. */
function layout(user?: string, project?: string) {
  const root = mkdtempSync(join(tmpdir(), 'hr-npmrc-'));
  const home = join(root, 'home');
  const proj = join(root, 'proj');
  mkdirSync(home);
  mkdirSync(join(proj, 'sub', 'deeper'), { recursive: true });
  writeFileSync(join(proj, 'package.json'), '{"name":"p","version":"0.0.0"}');
  if (user !== undefined) writeFileSync(join(home, '.npmrc'), user);
  if (project !== undefined) writeFileSync(join(proj, '.npmrc'), project);
  return { root, home, proj };
}

describe('the registry npm would use', () => {
  it('parses ini lines with comments, quotes and $VAR references', () => {
    const m = parseNpmrc(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: .npmrc syntax, expanded by parseNpmrc
      '# c\n; c\nregistry = "https://r.example/npm"\n@acme:registry=${MIRROR}/acme/\n//r.example/:_authToken=${TOK}\n',
      { MIRROR: 'https://m.example', TOK: 's3cret' },
    );
    expect(m.get('registry')).toBe('https://r.example/npm');
    expect(m.get('@acme:registry')).toBe('https://m.example/acme/');
    expect(m.get('//r.example/:_authToken')).toBe('s3cret');
  });

  it('environment over project over user, key by key; scopes per package; the project found from a subfolder', () => {
    const { home, proj } = layout(
      'registry=https://user.example/\n@acme:registry=https://user-acme.example/\n',
      'registry=https://project.example\n',
    );
    const env = { HOME: home };
    const cwd = join(proj, 'sub', 'deeper');
    const cfg = npmRegistryConfig({ cwd, env });
    expect(cfg.registry).toBe('https://project.example/');
    expect(registryFor(cfg, '@acme/agent')).toBe('https://user-acme.example/');
    expect(registryFor(cfg, '@other/agent')).toBe('https://project.example/');
    expect(registryFor(cfg, 'plain')).toBe('https://project.example/');
    const withEnv = npmRegistryConfig({
      cwd,
      env: {
        ...env,
        NPM_CONFIG_REGISTRY: 'https://env.example',
        'npm_config_@acme:registry': 'https://env-acme.example',
      },
    });
    expect(withEnv.registry).toBe('https://env.example/');
    expect(registryFor(withEnv, '@acme/x')).toBe('https://env-acme.example/');
  });

  it('npm_config_userconfig moves the user file; nothing configured is the public registry', () => {
    const { root, home, proj } = layout(undefined, undefined);
    expect(npmRegistryConfig({ cwd: proj, env: { HOME: home } }).registry).toBe(
      'https://registry.npmjs.org/',
    );
    const moved = join(root, 'ci.npmrc');
    writeFileSync(moved, 'registry=https://ci.example/\n//ci.example/:_authToken=tok\n');
    const cfg = npmRegistryConfig({ cwd: proj, env: { HOME: home, npm_config_userconfig: moved } });
    expect(cfg.registry).toBe('https://ci.example/');
    expect(tokenFor(cfg, 'https://ci.example/')).toBe('tok');
    expect(tokenFor(cfg, 'https://other.example/')).toBeUndefined();
  });
});

describe('a scope without the project .npmrc (a fork’s tree run with the base’s token)', () => {
  it('the user’s file and the environment still apply; the project’s registries and scopes do not', () => {
    const { home, proj } = layout(
      'registry=https://user.example/\n',
      'registry=https://fork.example/\n@acme:registry=https://fork-acme.example/\n',
    );
    const scope = { project: false, reason: 'a fork' } as const;
    const cfg = npmRegistryConfig({ cwd: proj, env: { HOME: home }, scope });
    expect(cfg.registry).toBe('https://user.example/');
    expect(registryFor(cfg, '@acme/agent')).toBe('https://user.example/');
    expect(cfg.sources.some((s) => s.startsWith(proj))).toBe(false);
    expect(projectNpmrc(proj, scope)).toBeUndefined();
    expect(ignoredProjectNpmrc(proj, scope)).toBe(join(proj, '.npmrc'));
    expect(ignoredProjectNpmrc(proj, { project: true })).toBeUndefined();
  });

  it('the packument look-up (harness bump, bisect) never asks the project’s registry', async () => {
    const asked: string[] = [];
    const { root, home, proj } = layout(
      'registry=https://user.example/\n',
      'registry=https://fork.example/\n',
    );
    const fetchLog = (async (url: string) => {
      asked.push(String(url));
      return new Response(JSON.stringify({ versions: { '1.0.0': {} } }), { status: 200 });
    }) as unknown as typeof fetch;
    const o = { cacheDir: join(root, 'cache'), env: { HOME: home }, cwd: proj, fetch: fetchLog };
    await publishedVersions('agent', { ...o, npmrc: { project: false, reason: 'a fork' } });
    expect(asked).toEqual(['https://user.example/agent']);
    await publishedVersions('agent', { ...o, cacheDir: join(root, 'cache2') });
    expect(asked[1]).toBe('https://fork.example/agent');
  });
});

describe("a project's .npmrc reaches the local registry (packument and npm install)", () => {
  const PKG = '@acme/agent';
  let registry: LocalRegistry;
  beforeAll(async () => {
    registry = await startLocalRegistry({
      [PKG]: { '1.0.0': { 'agent.js': 'console.log(1)\n' }, '1.1.0': { 'agent.js': 'console.log(2)\n' } },
    });
  });
  afterAll(async () => registry?.close());

  it('the packument of a scoped package comes from its scope registry, with the token for it', async () => {
    const { home, proj } = layout(`registry=${DEAD}\n`, `@acme:registry=${registry.url}\n`);
    const cacheDir = mkdtempSync(join(tmpdir(), 'hr-npmrc-cache-'));
    const seen: string[] = [];
    const spy = (async (url: string | URL | Request, init?: RequestInit) => {
      seen.push(`${url} ${new Headers(init?.headers).get('authorization') ?? ''}`);
      return fetch(url, init);
    }) as typeof fetch;
    const got = await publishedVersions(PKG, { cacheDir, cwd: proj, env: { HOME: home }, fetch: spy });
    expect(got).toEqual({ versions: ['1.0.0', '1.1.0'], from: 'registry' });
    expect(seen).toEqual([`${registry.url}@acme%2Fagent `]);
    // A token for that registry (from the project file, ${VAR} expanded) goes with the request.
    const host = registry.url.replace(/^http:/, '');
    writeFileSync(
      join(proj, '.npmrc'),
      `@acme:registry=${registry.url}\n${host}:_authToken=\${ACME_TOKEN}\n`,
    );
    await publishedVersions(PKG, {
      cacheDir,
      cwd: proj,
      env: { HOME: home, ACME_TOKEN: 't0k' },
      fetch: spy,
      maxAgeMs: 0,
    });
    expect(seen[1]).toBe(`${registry.url}@acme%2Fagent Bearer t0k`);
  });

  it('npm install into the harness cache uses the project .npmrc, and leaves no copy of it behind', async () => {
    const { home, proj } = layout(`registry=${DEAD}\n`, `@acme:registry=${registry.url}\n`);
    const cacheDir = mkdtempSync(join(tmpdir(), 'hr-npmrc-cache-'));
    chmodSync(cacheDir, 0o755);
    const adapter = {
      name: 'acme',
      install: { npm: { package: PKG, version: '1.1.0' } },
    } as unknown as Adapter;
    const env = { PATH: process.env.PATH, HOME: home, npm_config_cache: join(home, '.npm') };
    const info = await ensureInstalled(adapter, cacheDir, { env, projectDir: join(proj, 'sub') });
    expect(info.installed).toBe(true);
    expect(existsSync(join(cacheDir, 'acme-1.1.0', 'node_modules', '@acme', 'agent', 'agent.js'))).toBe(true);
    expect(readdirSync(join(cacheDir, 'acme-1.1.0'))).not.toContain('.npmrc');
    expect(registry.requests).toContain('/@acme/agent/-/acme-agent-1.1.0.tgz');
  }, 120_000);
});
