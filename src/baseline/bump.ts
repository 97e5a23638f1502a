// A pull request that bumps the harness: the adapter's harness package (its pinned install, or the
// package its `harness:` block names) at another version in the head tree than in the base tree. Read
// from the files that pin it, most exact first: the adapter file's pin, the lockfiles (npm, pnpm, yarn),
// package.json's range. Pure readers of file text; bumpBetweenTrees() reads both trees with git.
import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseSemVer, pinOf } from '../adapters/versions.js';
import { fileAtCommit, repoTop } from './base-tree.js';

export interface HarnessBump {
  package: string;
  from: string;
  to: string;
  /** The file whose pin changed (repository-relative). */
  file: string;
}

type Reader = (path: string) => string | undefined;

const json = (text: string | undefined): Record<string, unknown> | undefined => {
  try {
    return text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};
const rec = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The adapter file's pin of `pkg`: install.npm.version, else harness.version. */
export function adapterPin(text: string | undefined, pkg: string): string | undefined {
  if (!text) return undefined;
  try {
    const a = rec(parseYaml(text));
    const npm = rec(rec(a.install).npm);
    if (npm.package === pkg && str(npm.version)) return str(npm.version);
    const h = rec(a.harness);
    return h.package === pkg ? str(h.version) : undefined;
  } catch {
    return undefined;
  }
}

/** package-lock.json (v1–v3): the version installed at the top of node_modules. */
export function npmLockPin(text: string | undefined, pkg: string): string | undefined {
  const lock = json(text);
  if (!lock) return undefined;
  return (
    str(rec(rec(lock.packages)[`node_modules/${pkg}`]).version) ??
    str(rec(rec(lock.dependencies)[pkg]).version)
  );
}

/** pnpm-lock.yaml: the root importer's resolved version (`1.2.3(peer@…)` keeps only the version). */
export function pnpmLockPin(text: string | undefined, pkg: string): string | undefined {
  if (!text) return undefined;
  try {
    const lock = rec(parseYaml(text));
    const root = rec(rec(lock.importers)['.']);
    const sections = [root.dependencies, root.devDependencies, lock.dependencies, lock.devDependencies];
    for (const s of sections) {
      const v = rec(s)[pkg];
      const version = str(rec(v).version) ?? str(v);
      const m = version && /^(\d+\.\d+\.\d+[^(\s]*)/.exec(version);
      if (m) return m[1];
    }
  } catch {}
  return undefined;
}

/** yarn.lock (classic and berry): the version of the entry that names `pkg@…`. */
export function yarnLockPin(text: string | undefined, pkg: string): string | undefined {
  if (!text) return undefined;
  const head = new RegExp(`^"?${escapeRe(pkg)}@[^\\n]*:\\s*\\n((?:[ \\t]+[^\\n]*\\n?)*)`, 'm');
  const m = head.exec(text);
  return m ? /^\s+version:?\s+"?([^"\s]+)"?/m.exec(m[1]!)?.[1] : undefined;
}

/** package.json: the dependency's range, as the version it pins (`^1.2.3` → 1.2.3). */
export function packageJsonPin(text: string | undefined, pkg: string): string | undefined {
  const p = json(text);
  if (!p) return undefined;
  for (const k of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    const range = str(rec(p[k])[pkg]);
    if (range) return pinOf(range);
  }
  return undefined;
}

/** Where a pin of the harness may be, relative to the checkout folder; most exact first. */
type PinReader = (text: string | undefined, pkg: string) => string | undefined;

export function pinSources(adapterFile?: string): [string, PinReader][] {
  const adapter: [string, PinReader][] = adapterFile ? [[adapterFile, adapterPin]] : [];
  return [
    ...adapter,
    ['package-lock.json', npmLockPin],
    ['npm-shrinkwrap.json', npmLockPin],
    ['pnpm-lock.yaml', pnpmLockPin],
    ['yarn.lock', yarnLockPin],
    ['package.json', packageJsonPin],
  ];
}

/** The bump between two trees (each a reader of its files), or undefined when the harness pin did not move. */
export function findBump(
  pkg: string,
  base: Reader,
  head: Reader,
  adapterFile?: string,
): HarnessBump | undefined {
  for (const [file, pin] of pinSources(adapterFile)) {
    const from = pin(base(file), pkg);
    const to = pin(head(file), pkg);
    if (from && to && from !== to && parseSemVer(from) && parseSemVer(to))
      return { package: pkg, from, to, file };
  }
  return undefined;
}

/**
 * The bump of `pkg` from the base commit to the checkout `headDir`. The adapter file counts when it lies
 * inside the repository (a team's own adapter; a built-in adapter's pin moves with the action's version).
 */
export async function bumpBetweenTrees(o: {
  pkg: string;
  headDir: string;
  baseSha: string;
  adapterFile?: string;
}): Promise<HarnessBump | undefined> {
  const top = await repoTop(o.headDir);
  const sub = relative(top, resolve(o.headDir));
  const inRepo = (p: string) => !relative(top, p).startsWith('..') && !isAbsolute(relative(top, p));
  const adapterRel =
    o.adapterFile && inRepo(o.adapterFile) ? relative(resolve(o.headDir), o.adapterFile) : undefined;
  const files = pinSources(adapterRel).map(([f]) => f);
  const baseText = new Map<string, string | undefined>();
  for (const f of files) baseText.set(f, await fileAtCommit(top, o.baseSha, join(sub, f)));
  // The head is the checkout as it is (what the run measured), not a commit.
  const head = (f: string) => {
    try {
      return readFileSync(join(o.headDir, f), 'utf8');
    } catch {
      return undefined;
    }
  };
  return findBump(o.pkg, (f) => baseText.get(f), head, adapterRel);
}
