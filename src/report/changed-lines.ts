// The lines a pull request changed, for annotations GitHub shows inline in "Files changed": GitHub draws
// a check-run annotation in the diff only when its line is in a hunk. When the PR changed the adapter
// file, the configuration under test, or a file the adapter names (a launch script, a config template),
// a finding about the harness points at the first changed line there instead of the `configs: NAME:`
// line, which is usually outside every hunk.
//
// Input: the pulls files API (GET /repos/{owner}/{repo}/pulls/{pull_number}/files), whose `patch` is
// the unified diff of one file (absent for binary or very large files).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';

/** One entry of the pulls files API, the fields used here. */
export interface PullFile {
  filename: string;
  status?: string;
  patch?: string;
}

/** Repository path (POSIX) → the new file's added or changed lines, ascending. */
export type ChangedLines = Map<string, number[]>;

const HUNK = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** The new file's line numbers that a unified-diff patch adds or changes ('+' lines). */
export function addedLines(patch: string | undefined): number[] {
  if (!patch) return [];
  const out: number[] = [];
  let line = 0;
  let inHunk = false;
  for (const l of patch.split('\n')) {
    const h = HUNK.exec(l);
    if (h) {
      line = Number(h[1]);
      inHunk = true;
      continue;
    }
    if (!inHunk || l.startsWith('\\')) continue; // "\ No newline at end of file"
    if (l.startsWith('+')) out.push(line++);
    else if (!l.startsWith('-')) line++;
  }
  return out;
}

/** The changed lines of every file the PR adds or modifies (a removed file has no line to point at). */
export function changedLinesOf(files: PullFile[]): ChangedLines {
  const out: ChangedLines = new Map();
  for (const f of files) {
    if (f.status === 'removed') continue;
    const lines = addedLines(f.patch);
    if (lines.length) out.set(f.filename, lines);
  }
  return out;
}

const toRepo = (abs: string, workspace: string): string | undefined => {
  const rel = relative(resolve(workspace), abs);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
};

const isFile = (p: string) => {
  try {
    return existsSync(p) && statSync(p).isFile();
  } catch {
    return false;
  }
};

/** Tokens of a string value that could be a path: the whole value and its space-separated words. */
function pathTokens(v: string): string[] {
  const words = v.split(/\s+/).filter(Boolean);
  return [v, ...words].map((w) => w.replace(/^["']|["']$/g, '')).filter((w) => !w.includes('{{'));
}

/**
 * The adapter file's facts for anchoring: the line range of `configs: NAME:` and the repository files
 * its string values name (relative to the adapter's folder or the workspace), in file order.
 */
export function adapterFacts(
  adapterFile: string,
  config: string,
  workspace: string,
): { block?: [number, number]; named: string[] } {
  let text: string;
  try {
    text = readFileSync(adapterFile, 'utf8');
  } catch {
    return { named: [] };
  }
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  const named: string[] = [];
  const seen = new Set<string>([adapterFile]);
  const visit = (node: unknown): void => {
    if (isScalar(node)) {
      if (typeof node.value !== 'string') return;
      for (const t of pathTokens(node.value)) {
        for (const base of [dirname(adapterFile), workspace]) {
          const abs = resolve(base, t);
          const rp = isFile(abs) && !seen.has(abs) ? toRepo(abs, workspace) : undefined;
          if (rp) {
            seen.add(abs);
            named.push(rp);
          }
        }
      }
    } else if (isMap(node)) for (const it of node.items) visit(it.value);
    else if (isSeq(node)) for (const it of node.items) visit(it);
  };
  visit(doc.contents);
  const configs = doc.get('configs', true);
  const pair = isMap(configs)
    ? configs.items.find((it) => isScalar(it.key) && String(it.key.value) === config)
    : undefined;
  const start = pair && isScalar(pair.key) ? pair.key.range : undefined;
  const end = (pair?.value as { range?: [number, number, number] } | undefined)?.range;
  const block: [number, number] | undefined =
    start && end ? [lc.linePos(start[0]).line, lc.linePos(Math.max(start[0], end[1] - 1)).line] : undefined;
  return { ...(block ? { block } : {}), named };
}

/**
 * Where a finding about the harness points when the PR changed it: the first changed line inside the
 * configuration's block, else the adapter file's first changed line, else the first changed line of a
 * file the adapter names; undefined when the PR changed none of them.
 */
export function changedAdapterLine(
  changed: ChangedLines,
  adapter: { path: string; block?: [number, number]; named: string[] },
): { path: string; line: number } | undefined {
  const own = changed.get(adapter.path);
  if (own?.length) {
    const b = adapter.block;
    const inBlock = b ? own.find((l) => l >= b[0] && l <= b[1]) : undefined;
    return { path: adapter.path, line: inBlock ?? own[0]! };
  }
  for (const p of adapter.named) {
    const lines = changed.get(p);
    if (lines?.length) return { path: p, line: lines[0]! };
  }
  return undefined;
}
