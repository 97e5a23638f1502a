// The npm registry a package comes from, as npm itself would choose it: `registry` and scoped
// `@scope:registry` from (highest first) npm_config_* environment variables, the project's .npmrc (the
// nearest folder up from the project with a package.json or node_modules, as npm finds its local
// prefix), the user's .npmrc (npm_config_userconfig, else ~/.npmrc), then the public registry. Harness
// installs run in the cache folder, where npm would not see the project's .npmrc: install.ts puts a copy
// of it (projectNpmrc) in the install prefix, so npm applies it itself (auth and TLS settings too); the
// packument fetch (registry.ts) resolves the same registry here.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const DEFAULT_REGISTRY = 'https://registry.npmjs.org/';

export interface NpmRegistryConfig {
  /** The default registry (ends with `/`). */
  registry: string;
  /** `@scope` → its registry (ends with `/`). */
  scopes: Record<string, string>;
  /** `//host/path/` → bearer token, for the packument fetch of a private registry. */
  tokens: Record<string, string>;
  /** Where each setting came from, lowest precedence first (`env`, a file path): for messages. */
  sources: string[];
}

/**
 * Whose .npmrc may configure harness installs and registry look-ups: the project's and the user's (npm's
 * own rule, the default), or the user's only, when the project's tree may come from someone the job must
 * not trust (a fork's pull request run with the base's token): its .npmrc would pick the registry the
 * harness package, and so the code run on the runner, comes from. `reason` says why, for the notice.
 */
export type NpmrcScope = { project: true } | { project: false; reason: string };

export const PROJECT_AND_USER_NPMRC: NpmrcScope = { project: true };

export interface NpmrcOptions {
  /** The project folder (default: the working directory). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Whether the project's .npmrc applies (default: it does). */
  scope?: NpmrcScope;
}

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);

/** `${VAR}` as npm expands it in .npmrc values (an unset variable stays as written, as npm leaves it). */
function expand(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/(\\*)\$\{([^}]+)\}/g, (all, esc: string, name: string) =>
    esc.length % 2 ? all.slice(1) : `${esc}${env[name] ?? all.slice(esc.length)}`,
  );
}

/** The key=value lines of an .npmrc (ini without sections: comments `#`/`;`, optional quotes). */
export function parseNpmrc(text: string, env: NodeJS.ProcessEnv = {}): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';') || line.startsWith('[')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = expand(line.slice(0, eq).trim(), env);
    let value = line.slice(eq + 1).trim();
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    out.set(key, expand(value, env));
  }
  return out;
}

/** npm's local prefix: the nearest folder up from `cwd` with a package.json or node_modules, else `cwd`. */
export function projectRoot(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) || existsSync(join(dir, 'node_modules'))) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}

function readNpmrc(file: string, env: NodeJS.ProcessEnv): Map<string, string> | undefined {
  try {
    return parseNpmrc(readFileSync(file, 'utf8'), env);
  } catch {
    return undefined;
  }
}

/** npm_config_* variables (npm reads them in any case): `npm_config_registry` → `registry`. */
function envSettings(env: NodeJS.ProcessEnv): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(env))
    if (v?.trim() && /^npm_config_/i.test(k)) out.set(k.slice(11).toLowerCase(), v.trim());
  return out;
}

function apply(cfg: NpmRegistryConfig, settings: Map<string, string>, source: string) {
  let used = false;
  for (const [key, value] of settings) {
    if (key === 'registry') cfg.registry = withSlash(value);
    else if (/^@[^:]+:registry$/.test(key)) cfg.scopes[key.slice(0, key.indexOf(':'))] = withSlash(value);
    else if (/^\/\/.+:_authtoken$/i.test(key)) cfg.tokens[key.slice(0, key.lastIndexOf(':'))] = value;
    else continue;
    used = true;
  }
  if (used) cfg.sources.push(source);
}

/** The user's .npmrc as npm finds it: npm_config_userconfig (any case), else HOME's. */
export function userNpmrc(env: NodeJS.ProcessEnv = process.env): string {
  return envSettings(env).get('userconfig') ?? join(env.HOME || homedir(), '.npmrc');
}

/** The registries npm would use for installs run from `cwd`. */
export function npmRegistryConfig(o: NpmrcOptions = {}): NpmRegistryConfig {
  const env = o.env ?? process.env;
  const cfg: NpmRegistryConfig = { registry: DEFAULT_REGISTRY, scopes: {}, tokens: {}, sources: [] };
  const fromEnv = envSettings(env);
  const userFile = userNpmrc(env);
  const projectFile = projectNpmrc(o.cwd ?? process.cwd(), o.scope);
  // The user's file is read first: the project's overrides it (npm: cli > env > project > user > global).
  const files = !projectFile || projectFile === resolve(userFile) ? [userFile] : [userFile, projectFile];
  for (const file of files) {
    const settings = readNpmrc(file, env);
    if (settings) apply(cfg, settings, file);
  }
  apply(cfg, fromEnv, 'environment (npm_config_*)');
  return cfg;
}

/** The registry of `pkg`: its scope's, else the default. */
export function registryFor(cfg: NpmRegistryConfig, pkg: string): string {
  const scope = pkg.startsWith('@') ? pkg.slice(0, pkg.indexOf('/')) : undefined;
  return (scope && cfg.scopes[scope]) || cfg.registry;
}

/** The token for a registry URL: the longest `//host/path/` key that prefixes it, as npm matches them. */
export function tokenFor(cfg: NpmRegistryConfig, registry: string): string | undefined {
  const bare = registry.replace(/^https?:/, '');
  const key = Object.keys(cfg.tokens)
    .filter((k) => bare.startsWith(withSlash(k)))
    .sort((a, b) => b.length - a.length)[0];
  return key ? cfg.tokens[key] : undefined;
}

/**
 * The project's .npmrc (its path), when there is one and the scope lets it apply: what an install in
 * another folder must carry. The one place that finds it, so one NpmrcScope decides for every reader.
 */
export function projectNpmrc(
  cwd: string = process.cwd(),
  scope: NpmrcScope = PROJECT_AND_USER_NPMRC,
): string | undefined {
  if (!scope.project) return undefined;
  const file = join(projectRoot(cwd), '.npmrc');
  return existsSync(file) ? file : undefined;
}

/** The project .npmrc a scope leaves out (it exists but does not apply), for the notice that says so. */
export function ignoredProjectNpmrc(cwd: string, scope: NpmrcScope): string | undefined {
  return scope.project ? undefined : projectNpmrc(cwd);
}
