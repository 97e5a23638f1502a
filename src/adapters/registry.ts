// The versions npm publishes of a package: its packument (the registry's document of a package) from
// the registry npm would use for it (npmrc.ts: npm_config_*, the project's and the user's .npmrc, scoped
// registries), cached in the harness cache.
// Offline-tolerant: a registry that cannot be reached gives the cached list, or none (the caller says
// "versions in between unknown"), never an error.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type NpmrcScope, npmRegistryConfig, registryFor, tokenFor } from './npmrc.js';

/** The packument's address: a scoped name keeps its `@` and has its `/` escaped, as npm sends it. */
export function packumentUrl(registry: string, pkg: string): string {
  return `${registry}${pkg.startsWith('@') ? `@${encodeURIComponent(pkg.slice(1))}` : encodeURIComponent(pkg)}`;
}

/** The page of a version on npmjs.com (the public registry's site; a private registry has none). */
export function npmPageUrl(pkg: string, version: string): string {
  return `https://www.npmjs.com/package/${pkg}/v/${encodeURIComponent(version)}`;
}

export interface PublishedVersions {
  versions: string[];
  /** `registry`, or `cache` when the registry could not be reached and an earlier answer was kept. */
  from: 'registry' | 'cache';
}

export interface RegistryOptions {
  cacheDir: string;
  env?: NodeJS.ProcessEnv;
  /** The project whose .npmrc applies (default: the working directory). */
  cwd?: string;
  /** Whether the project's .npmrc applies at all (default: it does). */
  npmrc?: NpmrcScope;
  /** Answers younger than this are used without asking the registry (default 1 h). */
  maxAgeMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

interface CachedList {
  registry: string;
  fetched_at: number;
  versions: string[];
}

const cacheFile = (cacheDir: string, pkg: string) =>
  join(cacheDir, '.packuments', `${pkg.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);

function readCached(file: string, registry: string): CachedList | undefined {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as CachedList;
    return c.registry === registry && Array.isArray(c.versions) ? c : undefined;
  } catch {
    return undefined;
  }
}

/** The versions of `pkg` the registry publishes, or undefined when it cannot be reached and none are cached. */
export async function publishedVersions(
  pkg: string,
  o: RegistryOptions,
): Promise<PublishedVersions | undefined> {
  const cfg = npmRegistryConfig({
    ...(o.cwd ? { cwd: o.cwd } : {}),
    ...(o.env ? { env: o.env } : {}),
    ...(o.npmrc ? { scope: o.npmrc } : {}),
  });
  const registry = registryFor(cfg, pkg);
  const token = tokenFor(cfg, registry);
  const file = cacheFile(o.cacheDir, pkg);
  const now = (o.now ?? Date.now)();
  const cached = readCached(file, registry);
  if (cached && now - cached.fetched_at < (o.maxAgeMs ?? 3_600_000))
    return { versions: cached.versions, from: 'cache' };
  try {
    const res = await (o.fetch ?? fetch)(packumentUrl(registry, pkg), {
      // The abbreviated document: versions without their readmes.
      headers: {
        accept: 'application/vnd.npm.install-v1+json, application/json;q=0.8',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      signal: AbortSignal.timeout(o.timeoutMs ?? 15_000),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const doc = (await res.json()) as { versions?: Record<string, unknown> };
    const versions = Object.keys(doc.versions ?? {});
    mkdirSync(join(o.cacheDir, '.packuments'), { recursive: true });
    const tmp = `${file}.${process.pid}`;
    writeFileSync(tmp, JSON.stringify({ registry, fetched_at: now, versions } satisfies CachedList));
    renameSync(tmp, file);
    return { versions, from: 'registry' };
  } catch {
    return cached ? { versions: cached.versions, from: 'cache' } : undefined;
  }
}
