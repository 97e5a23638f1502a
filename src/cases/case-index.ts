// The built-in library as one JSON file (dist/cases-index.json, written by `npm run build`). Parsing 432
// YAML files and validating them with zod costs ~1.8 s and ~120 MiB on every command that loads cases;
// the same library as one JSON file parses in ~20 ms. Selection filters on the index and reads back only
// the files it selected (to check they are still what was indexed), so a run of the smoke subset touches
// six case files, not 432. Whenever the index cannot be trusted, the caller parses the YAML instead.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { actionRoot, builtinCasesDir } from '../paths.js';
import { VERSION } from '../version.js';
import { packsIn } from './packs.js';
import { Case, type LoadedCase } from './schema.js';

/** Bumped when the index's layout changes, so an index of another layout is never read. */
export const CASE_INDEX_FORMAT = 2;

/** The folder of rule packs: neither a phase nor a case file (src/cases/packs.ts). */
export const PACKS_FOLDER = 'rules';

export interface CaseIndexEntry {
  id: string;
  phase: string;
  tags: string[];
  entry_point: string;
  effect: string;
  variant_of?: string;
  revision: string;
  /** Path under the built-in cases folder, with forward slashes (the index is the same on every OS). */
  file: string;
  line: number;
  /** sha256 of the file's bytes: a selected file whose bytes changed makes the index stale. */
  sha256: string;
  /** The case after schema validation (defaults applied), exactly what loadCaseFile returns. */
  case: Case;
}

export interface CaseIndex {
  format: number;
  version: string;
  /** Every indexed file, sorted: a source checkout compares it with the folder to notice added files. */
  files: string[];
  /** The built-in rule packs the cases were resolved with (path under the cases folder → sha256). */
  packs: Record<string, string>;
  cases: CaseIndexEntry[];
}

// Set by scripts/build.mjs for the bundles: dist/ is checked to be current in CI, with the index, so a
// bundle trusts the index's list of files; code run from src/ (tests, a checkout) lists the folder too.
declare const __HR_BUNDLED__: boolean | undefined;
const bundled = typeof __HR_BUNDLED__ !== 'undefined' && __HR_BUNDLED__;

export const caseIndexPath = () => join(actionRoot(), 'dist', 'cases-index.json');
export const fileDigest = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const posix = (p: string) => p.split(sep).join('/');

/** Case files under a folder; `rules/` folders hold rule packs, not cases. */
export function yamlFilesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== PACKS_FOLDER) out.push(...yamlFilesUnder(p));
    } else if (/\.ya?ml$/.test(entry.name)) out.push(p);
  }
  return out.sort();
}

/** The index of already loaded cases (the build parses every file with loadCaseFile, then calls this). */
export function buildCaseIndex(loaded: LoadedCase[], casesDir = builtinCasesDir()): CaseIndex {
  const cases = loaded.map(({ case: c, file, revision, line }) => ({
    id: c.id,
    phase: c.phase,
    tags: c.tags,
    entry_point: c.entry_point,
    effect: c.effect,
    ...(c.variant_of ? { variant_of: c.variant_of } : {}),
    revision,
    file: posix(relative(casesDir, file)),
    line,
    sha256: fileDigest(readFileSync(file)),
    case: c,
  }));
  return {
    format: CASE_INDEX_FORMAT,
    version: VERSION,
    files: cases.map((e) => e.file).sort(),
    packs: packDigests(casesDir),
    cases: [...cases].sort((a, b) => a.file.localeCompare(b.file)),
  };
}

function packDigests(casesDir: string): Record<string, string> {
  return Object.fromEntries(
    packsIn(join(casesDir, PACKS_FOLDER)).map((lp) => [
      posix(relative(casesDir, lp.file)),
      fileDigest(readFileSync(lp.file)),
    ]),
  );
}

/** The index as read from disk, or why it cannot be used (missing, another format or version). */
export function readCaseIndex(path = caseIndexPath()): CaseIndex | string {
  let index: CaseIndex;
  try {
    index = JSON.parse(readFileSync(path, 'utf8')) as CaseIndex;
  } catch (e) {
    return `${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
  if (index?.format !== CASE_INDEX_FORMAT || index.version !== VERSION || !Array.isArray(index.cases))
    return `${path}: written by another version (format ${index?.format}, version ${index?.version})`;
  return index;
}

/** The entries as loaded cases; `file` is absolute, as loadCaseFile gives it. */
export const indexedCases = (index: CaseIndex, casesDir = builtinCasesDir()): LoadedCase[] =>
  index.cases.map((e) => ({
    case: e.case,
    file: join(casesDir, e.file),
    revision: e.revision,
    line: e.line,
  }));

/**
 * Why the selected cases may not be taken from the index, or undefined when they may. Only what was
 * selected is read back: a changed or deleted file is noticed, an edit elsewhere costs nothing.
 */
export function staleness(
  index: CaseIndex,
  selected: LoadedCase[],
  casesDir = builtinCasesDir(),
): string | undefined {
  if (!bundled) {
    // From src/ the index may predate the folder: a case added since would be silently left out.
    const now = yamlFilesUnder(casesDir).map((f) => posix(relative(casesDir, f)));
    if (now.join('\n') !== index.files.join('\n')) return 'the cases folder holds other files than indexed';
  }
  // The cases were resolved with these packs: an edited pack changes every case that includes it.
  let packs: Record<string, string>;
  try {
    packs = packDigests(casesDir);
  } catch {
    return 'a rule pack does not load';
  }
  if (JSON.stringify(packs) !== JSON.stringify(index.packs))
    return 'the rule packs changed since the index was built';
  const byFile = new Map(index.cases.map((e) => [join(casesDir, e.file), e]));
  for (const lc of selected) {
    const entry = byFile.get(lc.file);
    let bytes: Buffer;
    try {
      bytes = readFileSync(lc.file);
    } catch {
      return `${lc.file} is indexed but cannot be read`;
    }
    if (!entry || fileDigest(bytes) !== entry.sha256) return `${lc.file} changed since the index was built`;
    // From src/ the schema may have changed since the build (a new default): validate again.
    if (!bundled) {
      const again = Case.safeParse(entry.case);
      if (!again.success || JSON.stringify(again.data) !== JSON.stringify(entry.case))
        return `${lc.file}: the case schema changed since the index was built`;
    }
  }
  return undefined;
}
