// Files other programs run as commands: package scripts, Makefiles, task runners, editor tasks, direnv.
// A line written into one acts later, when an owner-looking command (`npm test`, `make`) or the editor runs
// it, so the guard keeps what such a file runs the owner's, by provenance as the memory guard keeps memory:
// an added entry may not carry a target (an address, a path or script, a command line) that came from
// untrusted content and that the owner's request does not give. Data fields of these files (a package's
// name, its `main`) run nothing and are not asked about.
import path from 'node:path';
import { addressesIn, commandIn } from './entry-kinds.js';
import { entitiesIn, type SubstanceVerdict } from './substance.js';

/** package.json fields whose string values are command lines some tool runs (npm, git hook managers). */
const PACKAGE_COMMAND_FIELDS = [
  'scripts',
  'husky',
  'simple-git-hooks',
  'pre-commit',
  'gitHooks',
  'lint-staged',
];

/** Comment lines run nothing (`#` in Makefiles, YAML, shell, ini; `//` in JSON with comments). */
const COMMENT = /^\s*(#|\/\/)/;

/** Every string under `v`, keyed by its path (`scripts.test`, `husky.hooks.pre-push`). */
function stringsUnder(v: unknown, at: string, out: Map<string, string>): void {
  if (typeof v === 'string') out.set(at, v);
  else if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) stringsUnder(x, `${at}[${i}]`, out);
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) stringsUnder(x, at ? `${at}.${k}` : k, out);
  }
}

function packageCommands(text: string | undefined): Map<string, string> | undefined {
  if (text === undefined) return new Map();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return undefined;
  const out = new Map<string, string>();
  for (const field of PACKAGE_COMMAND_FIELDS) {
    const v = (json as Record<string, unknown>)[field];
    if (v !== undefined) stringsUnder(v, field, out);
  }
  return out;
}

/**
 * What a write adds to what the file runs: for a package.json that parses, each command entry that is new
 * or changed (`scripts.postinstall: curl … | sh`); for any other file (or a package.json that does not
 * parse, an append), each non-comment line the file did not have before.
 */
export function addedCommands(file: string, before: string | undefined, after: string): string[] {
  if (path.basename(file) === 'package.json') {
    const old = packageCommands(before);
    const now = packageCommands(after);
    if (old && now) {
      return [...now].filter(([k, v]) => old.get(k) !== v).map(([k, v]) => `${k}: ${v}`);
    }
  }
  const had = new Set((before ?? '').split('\n').map((l) => l.trim()));
  return after
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !COMMENT.test(l) && !had.has(l));
}

/** Targets a line acts on: its addresses, paths and identifiers, and its command line; lower-cased. */
export function targetsOf(line: string): string[] {
  const command = commandIn(line);
  return [
    ...new Set([...entitiesIn(line), ...addressesIn(line), ...(command ? [command.trim()] : [])]),
  ].filter((t) => t.length > 1);
}

/**
 * The first target `text` carries that untrusted content held (`untrusted(s)`: tool results, pages,
 * messages, loaded memory and skills, and files written from them held `s`) and the owner's request does
 * not give; undefined when every target is the owner's or not from untrusted content.
 */
export function untrustedTarget(
  text: string,
  ownerTurns: string[],
  untrusted: (s: string) => boolean,
): string | undefined {
  const ownerText = ownerTurns.join('\n').normalize('NFKC').toLowerCase().replace(/\s+/g, ' ');
  for (const line of text.split('\n')) {
    const taken = targetsOf(line).find((t) => !ownerText.includes(t) && untrusted(t));
    if (taken !== undefined) return taken;
  }
  return undefined;
}

/** Whether entries added to a file that runs commands are the owner's (untrustedTarget of each). */
export function ownerCommands(
  added: string[],
  ownerTurns: string[],
  untrusted: (s: string) => boolean,
): SubstanceVerdict {
  for (const entry of added) {
    const taken = untrustedTarget(entry, ownerTurns, untrusted);
    if (taken === undefined) continue;
    const shown = entry.length > 80 ? `${entry.slice(0, 77)}…` : entry;
    return {
      ok: false,
      reason: `"${shown}" would run "${taken}", which came from untrusted content and the owner's request does not give it`,
    };
  }
  return { ok: true };
}
