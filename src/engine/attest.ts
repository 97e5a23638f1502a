// What a run measured, attested in its result: the harness build launched, the adapter's digest and the
// selection of cases it was cut from. Comparing across harness versions is the point of a PR; across case
// revisions or runners the report says so.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { installDir } from '../adapters/install.js';
import type { LoadedAdapter } from '../adapters/schema.js';
import type { HarnessBuild } from '../adapters/version-override.js';
import { secondSessionRevision } from '../cases/load.js';
import type { LoadedCase } from '../cases/schema.js';
import type { HarnessInfo, Selection } from '../spec/run-result.js';

/**
 * sha256 over the sorted `id@revision` of the selected cases (before sharding); a case that writes its
 * second session adds `/` and that session's revision (not part of the case's revision), so a resumed run
 * or a stored baseline never carries activated labels of another second session.
 */
export function selectionDigest(cases: Pick<LoadedCase, 'revision' | 'case'>[]): string {
  const lines = cases
    .map((c) => `${c.case.id}@${c.revision}${c.case.next_session ? `/${secondSessionRevision(c.case)}` : ''}`)
    .sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

export function selectionOf(
  all: Pick<LoadedCase, 'revision' | 'case'>[],
  shard?: { index: number; total: number },
): Selection {
  return { digest: selectionDigest(all), cases: all.length, ...(shard ? { shard } : {}) };
}

const MAX_FILES = 500;
const MAX_BYTES = 4 * 1024 * 1024;

/**
 * What a run launches, as one digest: the adapter folder's (adapterDigest) alone when the run changes
 * nothing of it (so results of plain runs keep theirs), else over it, the wiring file's bytes (its flags,
 * prompt and variables replace the configuration's) and the harness build the run asked for. A resumed
 * run and a stored baseline are the same run only when this is the same.
 */
export function runAdapterDigest(
  dir: string,
  over: { wiringFile?: string; build?: HarnessBuild; acpCommand?: string[] },
): string {
  const folder = adapterDigest(dir);
  if (!over.wiringFile && !over.build && !over.acpCommand) return folder;
  const h = createHash('sha256').update(`adapter\0${folder}\0`);
  if (over.wiringFile) h.update('wiring\0').update(readFileSync(over.wiringFile)).update('\0');
  if (over.build) h.update(`build\0${over.build.package}@${over.build.version}\0`);
  if (over.acpCommand) h.update(`acp\0${JSON.stringify(over.acpCommand)}\0`);
  return h.digest('hex');
}

/**
 * sha256 over the adapter folder: every regular file's relative path and content, sorted, skipping
 * node_modules and dot-folders (a team's adapter folder may sit beside build output). Bounded, so a huge
 * folder costs little; what was skipped is named in the digest input, so the digest stays honest.
 */
export function adapterDigest(dir: string): string {
  const h = createHash('sha256');
  const files: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const p = join(d, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) files.push(p);
      if (files.length >= MAX_FILES) return;
    }
  };
  walk(dir);
  let bytes = 0;
  for (const f of files) {
    const size = statSync(f).size;
    h.update(`${relative(dir, f)}\0${size}\0`);
    if (bytes + size <= MAX_BYTES) {
      h.update(readFileSync(f));
      bytes += size;
    } else h.update('(not read: size cap)');
    h.update('\0');
  }
  return h.digest('hex');
}

function readPackageJson(file: string): { name?: string; version?: string } | undefined {
  try {
    const j = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
    return {
      ...(typeof j.name === 'string' ? { name: j.name } : {}),
      ...(typeof j.version === 'string' ? { version: j.version } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * The harness build an adapter launches. The pinned npm install is read from what was installed (not
 * from the pin); otherwise the adapter's `harness:` block. Nothing is executed: a version command of the
 * harness would run outside any sandbox.
 */
export function harnessInfo(
  loaded: LoadedAdapter,
  cacheDir: string,
  render: (s: string) => string,
): HarnessInfo | undefined {
  const a = loaded.adapter;
  const dir = installDir(a, cacheDir);
  if (a.install?.npm && dir) {
    const pkg = readPackageJson(join(dir, 'node_modules', a.install.npm.package, 'package.json'));
    // The name as installed, not as pinned: a harness run under another package name (harness-package)
    // says which one it was.
    return {
      package: pkg?.name ?? a.install.npm.package,
      ...(pkg?.version ? { version: pkg.version } : {}),
      source: 'npm-install',
    };
  }
  const h = a.harness;
  if (!h) return undefined;
  if (h.package_json) {
    const pkg = readPackageJson(render(h.package_json));
    return {
      ...((h.package ?? pkg?.name) ? { package: h.package ?? pkg?.name } : {}),
      ...((h.version ?? pkg?.version) ? { version: h.version ?? pkg?.version } : {}),
      source: 'package.json',
    };
  }
  return {
    ...(h.package ? { package: h.package } : {}),
    ...(h.version ? { version: h.version } : {}),
    source: 'declared',
  };
}
