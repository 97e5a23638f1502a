// Where a finding points: a line GitHub can show inline in "Files changed", and a link for what is not in
// the repository. Annotations on line 1 of a file never show in the diff; so
//   - a repository case points at the line of its injected artifact (where the trigger text is written),
//   - otherwise the adapter file (when it is the repository's) at the `configs: NAME:` line of the
//     configuration under test,
//   - otherwise the workflow step that uses the action;
// and a built-in case (a file of the action, not of the repository) is linked in the action's repository
// at the running version instead of being named by an absolute runner path.
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import { builtinCasesDir } from '../paths.js';
import { VERSION } from '../version.js';

/** The action's own repository, when the runner does not say (GITHUB_ACTION_REPOSITORY). */
export const DEFAULT_ACTION_REPOSITORY = 'harness-risk/harness-risk-action';

interface Parsed {
  text: string;
  doc: ReturnType<typeof parseDocument>;
  lc: LineCounter;
}

/** Parsed files by path, size and time: one parse for a thousand annotations on the same adapter file. */
const cache = new Map<string, Parsed>();

function parsed(file: string): Parsed | undefined {
  try {
    const st = statSync(file);
    const key = `${file}\0${st.size}\0${st.mtimeMs}`;
    let p = cache.get(key);
    if (!p) {
      const text = readFileSync(file, 'utf8');
      const lc = new LineCounter();
      p = { text, doc: parseDocument(text, { lineCounter: lc }), lc };
      cache.set(key, p);
    }
    return p;
  } catch {
    return undefined;
  }
}

/** 1-based line of the key `path[-1]` in the mapping at `path[..-1]`. */
function keyLine(p: Parsed, path: string[]): number | undefined {
  const parent = path.length > 1 ? p.doc.getIn(path.slice(0, -1), true) : p.doc.contents;
  if (!isMap(parent)) return undefined;
  const pair = parent.items.find((it) => isScalar(it.key) && String(it.key.value) === path.at(-1));
  const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
  return range ? p.lc.linePos(range[0]).line : undefined;
}

/** The line of `configs: NAME:` in an adapter file. */
export function adapterConfigLine(file: string, config: string): number | undefined {
  const p = parsed(file);
  return p && keyLine(p, ['configs', config]);
}

/**
 * The line of a case's injected artifact: where its trigger text is written (in `world:`), else the
 * `inject.artifact` key, else `inject:`.
 */
export function artifactLine(file: string): number | undefined {
  const p = parsed(file);
  if (!p) return undefined;
  const trigger = p.doc.getIn(['inject', 'trigger']);
  const own = keyLine(p, ['inject', 'trigger']);
  if (typeof trigger === 'string' && trigger.trim()) {
    // The first line holding the trigger (or its start, for text a YAML scalar may wrap), not the
    // trigger's own declaration.
    const needle = trigger.trim().slice(0, 40);
    const lines = p.text.split('\n');
    const at = lines.findIndex((l, i) => i + 1 !== own && l.includes(needle));
    if (at >= 0) return at + 1;
  }
  return keyLine(p, ['inject', 'artifact']) ?? keyLine(p, ['inject']);
}

/** The line of the step that uses the action in a workflow file (`uses: …harness-risk-action@…`). */
export function workflowStepLine(file: string): number | undefined {
  const p = parsed(file);
  if (!p) return undefined;
  const at = p.text.split('\n').findIndex((l) => /^\s*-?\s*uses:\s*\S*harness-risk-action\S*@/.test(l));
  return at >= 0 ? at + 1 : undefined;
}

export interface ActionSource {
  serverUrl?: string;
  /** `owner/name` (GITHUB_ACTION_REPOSITORY). */
  repository?: string;
  /** The ref the workflow pinned (GITHUB_ACTION_REF), else `v` + the running version. */
  ref?: string;
}

export function actionSourceFromEnv(env: Record<string, string | undefined> = process.env): ActionSource {
  return {
    ...(env.GITHUB_SERVER_URL ? { serverUrl: env.GITHUB_SERVER_URL } : {}),
    ...(env.GITHUB_ACTION_REPOSITORY ? { repository: env.GITHUB_ACTION_REPOSITORY } : {}),
    ...(env.GITHUB_ACTION_REF ? { ref: env.GITHUB_ACTION_REF } : {}),
  };
}

/** `cases/phase/file.yaml` of a built-in case file (absolute, relative or `builtin:` form), else undefined. */
export function builtinCasePath(file: string | undefined, cwd = process.cwd()): string | undefined {
  if (!file) return undefined;
  if (file.startsWith('builtin:')) return `cases/${file.slice('builtin:'.length).replace(/^\/+/, '')}`;
  try {
    const rel = relative(builtinCasesDir(), resolve(cwd, file));
    if (!rel || rel.startsWith('..') || isAbsolute(rel)) return undefined;
    return `cases/${rel.split(sep).join('/')}`;
  } catch {
    return undefined;
  }
}

/** Link to a built-in case file in the action's repository at the running version. */
export function builtinCaseUrl(
  file: string | undefined,
  src: ActionSource = actionSourceFromEnv(),
  line?: number,
) {
  const path = builtinCasePath(file);
  if (!path) return undefined;
  const server = (src.serverUrl ?? 'https://github.com').replace(/\/+$/, '');
  const repo = src.repository ?? DEFAULT_ACTION_REPOSITORY;
  const ref = src.ref ?? `v${VERSION}`;
  return `${server}/${repo}/blob/${encodeURIComponent(ref)}/${path}${line && line > 1 ? `#L${line}` : ''}`;
}
