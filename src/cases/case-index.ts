// The built-in library as one file (dist/cases-index.json, written by `npm run build`). Parsing 432
// YAML files and validating them with zod costs ~1.8 s and ~120 MiB on every command that loads cases.
// The index's first line is what selection needs (ids, phases, tags, files, digests); each case follows
// on its own line, read only when selected. Selection filters on the header and reads back only the files
// it selected (to check they are still what was indexed), so a run of the smoke subset touches six case
// files, not 432. Whenever the index cannot be trusted, the caller parses the YAML instead.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { actionRoot, builtinCasesDir, runsFromBundle } from '../paths.js';
import { VERSION } from '../version.js';
import { packFilesIn } from './packs.js';
import { Case, type LoadedCase } from './schema.js';
import { TAXONOMY_FILE, taxonomyOf } from './taxonomy.js';

/** Bumped when the index's layout changes, so an index of another layout is never read. */
export const CASE_INDEX_FORMAT = 4;

/** The folder of rule packs: neither a phase nor a case file (src/cases/packs.ts). */
export const PACKS_FOLDER = 'rules';

export interface CaseIndexEntry {
  id: string;
  phase: Case['phase'];
  tags: string[];
  /** The case's taxonomy ids, for `taxonomy:` selectors. */
  taxonomy: string[];
  entry_point: Case['entry_point'];
  effect: Case['effect'];
  variant_of?: string;
  revision: string;
  /** Path under the built-in cases folder, with forward slashes (the index is the same on every OS). */
  file: string;
  line: number;
  /** sha256 of the file's bytes: a selected file whose bytes changed makes the index stale. */
  sha256: string;
  /** Where the case's JSON line is: byte offset from the end of the header line, and byte length. */
  at: [number, number];
}

/** The index's first line: everything selection needs, without the cases themselves. */
export interface CaseIndexHeader {
  format: number;
  version: string;
  /** Every indexed file, sorted: a source checkout compares it with the folder to notice added files. */
  files: string[];
  /** The built-in rule packs the cases were resolved with (path under the cases folder → sha256). */
  packs: Record<string, string>;
  cases: CaseIndexEntry[];
}

export interface CaseIndex extends CaseIndexHeader {
  /**
   * The cases of these entries after schema validation (defaults applied), exactly what loadCaseFile
   * returns; read only when asked, so selection parses the header line and the selected cases alone.
   */
  casesOf(entries: CaseIndexEntry[]): Case[];
}

export const caseIndexPath = () => join(actionRoot(), 'dist', 'cases-index.json');
export const fileDigest = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const posix = (p: string) => p.split(sep).join('/');

/** Case files under a folder; `rules/` folders hold rule packs and a taxonomy.yaml a team's frameworks, not cases. */
export function yamlFilesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== PACKS_FOLDER) out.push(...yamlFilesUnder(p));
    } else if (/\.ya?ml$/.test(entry.name) && entry.name !== TAXONOMY_FILE) out.push(p);
  }
  return out.sort();
}

/**
 * The index's bytes for already loaded cases (the build parses every file with loadCaseFile, then calls
 * this): the header as one JSON line, then one JSON line per case in the header's order. As one JSON
 * document the library took ~14 MiB of heap and ~30 ms to parse on every command, for the six cases a
 * smoke run uses; the header line is ~5 % of the bytes.
 */
export function caseIndexText(loaded: LoadedCase[], casesDir = builtinCasesDir()): string {
  const sorted = loaded
    .map((lc) => ({ lc, file: posix(relative(casesDir, lc.file)) }))
    .sort((a, b) => a.file.localeCompare(b.file));
  let offset = 0;
  const bodies: string[] = [];
  const cases = sorted.map(({ lc: { case: c, file: abs, revision, line }, file }) => {
    const body = JSON.stringify(c);
    const length = Buffer.byteLength(body);
    bodies.push(body);
    const at: [number, number] = [offset, length];
    offset += length + 1;
    return {
      id: c.id,
      phase: c.phase,
      tags: c.tags,
      taxonomy: taxonomyOf(c),
      entry_point: c.entry_point,
      effect: c.effect,
      ...(c.variant_of ? { variant_of: c.variant_of } : {}),
      revision,
      file,
      line,
      sha256: fileDigest(readFileSync(abs)),
      at,
    };
  });
  const header: CaseIndexHeader = {
    format: CASE_INDEX_FORMAT,
    version: VERSION,
    files: cases.map((e) => e.file).sort(),
    packs: packDigests(casesDir),
    cases,
  };
  return `${JSON.stringify(header)}\n${bodies.map((b) => `${b}\n`).join('')}`;
}

/** The index of already loaded cases, as a reader of its bytes sees it. */
export const buildCaseIndex = (loaded: LoadedCase[], casesDir = builtinCasesDir()): CaseIndex =>
  parseCaseIndex(Buffer.from(caseIndexText(loaded, casesDir)));

// The bytes only, not parsed: a pack that no longer parses has other bytes than the indexed one (which
// parsed at build), so it makes the index stale and the YAML path reports it. Parsing and validating the
// four built-in packs was ~40 % of `list cases`' CPU.
function packDigests(casesDir: string): Record<string, string> {
  return Object.fromEntries(
    packFilesIn(join(casesDir, PACKS_FOLDER)).map((file) => [
      posix(relative(casesDir, file)),
      fileDigest(readFileSync(file)),
    ]),
  );
}

/** The header, or why it cannot be used (another format or version). */
function checkHeader(header: CaseIndexHeader, where: string): CaseIndexHeader | string {
  if (header?.format !== CASE_INDEX_FORMAT || header.version !== VERSION || !Array.isArray(header.cases))
    return `${where}: written by another version (format ${header?.format}, version ${header?.version})`;
  return header;
}

type RangeReader = (ranges: [offset: number, length: number][]) => Buffer[];

/** Reads cases at their byte ranges; `base` is where the first case line starts. */
function caseReader(read: RangeReader, base: number) {
  return (entries: CaseIndexEntry[]): Case[] =>
    read(entries.map((e) => [base + e.at[0], e.at[1]])).map((b) => JSON.parse(b.toString('utf8')) as Case);
}

/** An index held in memory (tests; the build's own check). */
export function parseCaseIndex(bytes: Buffer): CaseIndex {
  const nl = bytes.indexOf(10);
  const header = checkHeader(JSON.parse(bytes.subarray(0, nl).toString('utf8')), 'case index');
  if (typeof header === 'string') throw new Error(header);
  const read: RangeReader = (ranges) => ranges.map(([o, n]) => bytes.subarray(o, o + n));
  return { ...header, casesOf: caseReader(read, nl + 1) };
}

/**
 * The index as read from disk, or why it cannot be used (missing, unreadable, another format or
 * version). Only the header line is read now; cases are read from the file when asked.
 */
export function readCaseIndex(path = caseIndexPath()): CaseIndex | string {
  let headerBytes: Buffer;
  try {
    headerBytes = readFirstLine(path);
  } catch (e) {
    return `${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
  let header: CaseIndexHeader | string;
  try {
    header = checkHeader(JSON.parse(headerBytes.toString('utf8')), path);
  } catch (e) {
    return `${path}: ${(e as Error).message}`;
  }
  if (typeof header === 'string') return header;
  const read: RangeReader = (ranges) => {
    const fd = openSync(path, 'r');
    try {
      return ranges.map(([offset, length]) => {
        const buf = Buffer.alloc(length);
        if (readSync(fd, buf, 0, length, offset) !== length) throw new Error(`${path}: cut short`);
        return buf;
      });
    } finally {
      closeSync(fd);
    }
  };
  return { ...header, casesOf: caseReader(read, headerBytes.length + 1) };
}

/** The bytes before the first newline (the header line), read in chunks. */
function readFirstLine(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    for (let pos = 0; ; ) {
      const buf = Buffer.alloc(256 * 1024);
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) throw new Error('no header line');
      const nl = buf.subarray(0, n).indexOf(10);
      if (nl >= 0) {
        chunks.push(buf.subarray(0, nl));
        return Buffer.concat(chunks);
      }
      chunks.push(buf.subarray(0, n));
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
}

/** The entries as loaded cases; `file` is absolute, as loadCaseFile gives it. */
export function indexedCases(
  index: CaseIndex,
  entries = index.cases,
  casesDir = builtinCasesDir(),
): LoadedCase[] {
  const cases = index.casesOf(entries);
  return entries.map((e, i) => ({
    case: cases[i]!,
    file: join(casesDir, e.file),
    revision: e.revision,
    line: e.line,
  }));
}

/**
 * Why the selected cases may not be taken from the index, or undefined when they may. Only what was
 * selected is read back: a changed or deleted file is noticed, an edit elsewhere costs nothing.
 */
export function staleness(
  index: CaseIndex,
  selected: LoadedCase[],
  casesDir = builtinCasesDir(),
): string | undefined {
  if (!runsFromBundle) {
    // From src/ the index may predate the folder: a case added since would be silently left out.
    const now = yamlFilesUnder(casesDir).map((f) => posix(relative(casesDir, f)));
    if (now.join('\n') !== index.files.join('\n')) return 'the cases folder holds other files than indexed';
  }
  // The cases were resolved with these packs: an edited pack changes every case that includes it.
  let packs: Record<string, string>;
  try {
    packs = packDigests(casesDir);
  } catch {
    return 'a rule pack cannot be read';
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
    if (!runsFromBundle) {
      const again = Case.safeParse(lc.case);
      if (!again.success || JSON.stringify(again.data) !== JSON.stringify(lc.case))
        return `${lc.file}: the case schema changed since the index was built`;
    }
  }
  return undefined;
}
