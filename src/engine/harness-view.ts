// What a harness may see of the host beyond its trial folders, decided once per run and applied the
// same way by every runner (as `read_only` and `hide` in each launch). The harness reads its own build
// (the tree under test, the adapter, the install cache, the reference harness), never:
// - a credential the job holds in those folders (the checkout's token in .git/config, submodule
//   configs, gha-creds-*.json, dotenv files…: world/credential-paths.ts), unless the adapter exposes it;
// - anything that names its case: the case library, the case files of the run and the build's case
//   index (a harness that can look itself up can refuse exactly the attack);
// - the engine's own files: its bundles and indexes, the run's result and kept evidence.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { UserError } from '../errors.js';
import { MAX_SCAN_ENTRIES, scanCredentials } from '../world/credential-paths.js';

/**
 * The programs of the action every trial has in `{{bin}}`, each its bundle `dist/NAME.js`: `svc` (the
 * services as a CLI) and `mcp-stdio` (the trial's MCP server as a stdio program).
 */
export const MCP_STDIO = 'mcp-stdio';
export const TRIAL_PROGRAMS = ['svc', MCP_STDIO] as const;

/** The files of the action's dist/ a harness may read: the reference harness and the trial's programs. */
export const HARNESS_BUNDLES = new Set(['reference-harness.js', ...TRIAL_PROGRAMS.map((p) => `${p}.js`)]);

export interface ViewInput {
  /** The action's root (its dist/ is shared read-only). */
  actionRoot: string;
  adapterDir: string;
  cacheDir: string;
  /** One per target tree: its `{{repo}}`. */
  repoDirs: string[];
  /** The case files this run loaded. */
  caseFiles: string[];
  /** The built-in case library's folder. */
  libraryDir: string;
  /** Folders of the run's results and kept evidence (never readable). */
  engineOutputs: string[];
  /** Globs (relative to `{{repo}}` and the adapter folder) of credential files the adapter exposes. */
  expose: readonly string[];
  /** Host programs a trial runs from the host's disk (gh for a case with a GitHub world), shown read-only. */
  hostTools?: string[];
}

export interface HarnessView {
  /** Per target: what a harness may read (never write). */
  readOnly: string[][];
  /** What no harness may see although a read-only folder holds it. */
  hide: string[];
  /** Credential files hidden, relative to the folder they were found in (for the result and report). */
  credentials: string[];
  /** Credential files the adapter exposed on purpose (relative paths): the report says so. */
  exposed: string[];
}

const inside = (p: string, dir: string) => p === dir || p.startsWith(`${dir}${sep}`);

export function harnessView(i: ViewInput): HarnessView {
  // Of the action's dist/, only the files a harness runs: not the engine's bundles nor its case index,
  // not even by name.
  const dist = join(resolve(i.actionRoot), 'dist');
  const bundles = [...HARNESS_BUNDLES].map((f) => join(dist, f));
  const shared = [...bundles, ...[i.adapterDir, i.cacheDir, ...(i.hostTools ?? [])].map((p) => resolve(p))];
  const readOnly = i.repoDirs.map((r) => [...new Set([...shared, resolve(r)])]);
  const roots = [...new Set(readOnly.flat())];
  const hide = new Set<string>(i.engineOutputs.map((p) => resolve(p)));
  // A tree under test that holds the action itself (this project's own runs): its dist/ too.
  if (roots.some((r) => inside(dist, r)))
    for (const name of existsSync(dist) ? readdirSync(dist) : [])
      if (!HARNESS_BUNDLES.has(name)) hide.add(join(dist, name));

  // Case sources: their folder where hiding it hides nothing the harness needs, else the file itself
  // (a folder name shows in the sandbox's mount table; a folder of many cases names none of them).
  const needed = (dir: string) => roots.some((r) => inside(r, dir));
  for (const file of [resolve(i.libraryDir), ...i.caseFiles.map((f) => resolve(f))]) {
    if (!roots.some((r) => inside(file, r))) continue;
    const isDir = existsSync(file) && statSync(file).isDirectory();
    const dir = isDir ? file : dirname(file);
    if (!needed(dir)) hide.add(dir);
    else if (!isDir) hide.add(file);
  }

  // Credentials in the folders the user controls (the tree under test, the adapter): never the install
  // cache (the engine filled it from npm) nor dist/ (the action's own build).
  const credentials: string[] = [];
  const exposed: string[] = [];
  for (const root of new Set([...i.repoDirs.map((r) => resolve(r)), resolve(i.adapterDir)])) {
    if (!existsSync(root)) continue;
    const scan = scanCredentials(root, i.expose);
    if (scan.truncated)
      throw new UserError(
        `${root}: more than ${MAX_SCAN_ENTRIES} files outside node_modules; the engine cannot check that no credential file in it reaches the harness`,
        'point repo-dir (--repo) at the folder holding your harness build, or remove generated files from the checkout',
      );
    for (const f of scan.found) {
      hide.add(f);
      credentials.push(relative(root, f) || f);
    }
    for (const f of scan.exposed) exposed.push(relative(root, f) || f);
  }
  // A path inside a hidden folder is hidden by it (and could not be mounted over inside it).
  const all = [...hide];
  const outer = all.filter((p) => !all.some((q) => q !== p && p.startsWith(`${q}${sep}`)));
  return {
    readOnly,
    hide: outer.sort(),
    credentials: [...new Set(credentials)].sort(),
    exposed: [...new Set(exposed)].sort(),
  };
}
