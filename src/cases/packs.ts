// Rule packs: named, versioned sets of audit rules that cases include instead of pasting the same rules
// (`audit: {include: [generic-secrets@1], except: [rule-id], rules: [...]}`). A pack is a YAML file
// `rules/NAME.yaml`: the built-in ones live in cases/rules/, a team's in a `rules/` folder beside its case
// files or in a folder above them (up to the repository root). A case is resolved to its flat list of rules
// at load, and everything downstream (labels, SAR, coverage, the case's revision) sees only that list, so a
// case converted to packs without changing its rules keeps its revision and every stored baseline.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { UserError } from '../errors.js';
import { builtinCasesDir } from '../paths.js';
import { parseYaml } from '../yaml-file.js';
import { AuditRule, type AuditSpec } from './schema.js';

export const PACK_NAME = /^[a-z0-9][a-z0-9-]*$/;

export const RulePack = z
  .object({
    /** The pack's name, the file's name without `.yaml`; cases include it as `NAME@VERSION`. */
    id: z.string().regex(PACK_NAME, 'lower-case name of letters, digits and dashes'),
    /** Bumped whenever a rule is added, removed or changed: a case pinned to the old version then fails to load. */
    version: z.number().int().min(1),
    description: z.string().min(1),
    rules: z.array(AuditRule).min(1),
  })
  .strict();
export type RulePack = z.infer<typeof RulePack>;

export interface LoadedPack {
  pack: RulePack;
  file: string;
}

/** Name → pack, over every pack folder a case can see. */
export type PackSet = Map<string, LoadedPack>;

/** The folders whose shared files (rule packs, a taxonomy) a case file sees: its own, then up to the root. */
export function foldersUpToRoot(caseFile: string): string[] {
  const dirs: string[] = [];
  let dir = dirname(resolve(caseFile));
  for (;;) {
    dirs.push(dir);
    // The repository (or package) root ends the walk: folders above it belong to someone else.
    const root =
      existsSync(join(dir, '.git')) || existsSync(join(dir, 'package.json')) || dir === builtinCasesDir();
    const up = dirname(dir);
    if (root || up === dir) break;
    dir = up;
  }
  return dirs;
}

/** The `rules/` folders a case file can include packs from: nearest first, the built-in folder last. */
export function packDirsFor(caseFile: string): string[] {
  const builtin = join(builtinCasesDir(), 'rules');
  const dirs = foldersUpToRoot(caseFile)
    .map((dir) => join(dir, 'rules'))
    .filter((c) => c !== builtin && existsSync(c) && statSync(c).isDirectory());
  return [...dirs, builtin];
}

const cache = new Map<string, { signature: string; packs: LoadedPack[] }>();

/** The pack files of one folder, sorted (what packsIn loads and the case index digests). */
export function packFilesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => /\.ya?ml$/.test(n))
    .sort()
    .map((n) => join(dir, n));
}

/** The packs of one folder (each file validated; the file name must be the pack's id). Cached by mtime. */
export function packsIn(dir: string): LoadedPack[] {
  const files = packFilesIn(dir);
  const signature = files
    .map((f) => {
      const s = statSync(f);
      return `${f}:${s.mtimeMs}:${s.size}`;
    })
    .join('\n');
  const hit = cache.get(dir);
  if (hit && hit.signature === signature) return hit.packs;
  const packs = files.map((file) => {
    const { value } = parseYaml(file, readFileSync(file, 'utf8'), RulePack, 'rule pack');
    const name = basename(file).replace(/\.ya?ml$/, '');
    if (value.id !== name)
      throw new UserError(
        `${file}: rule pack id "${value.id}" differs from the file name "${basename(file)}"`,
        `rename the file to ${value.id}.yaml or set id: ${name}`,
      );
    const seen = new Set<string>();
    for (const r of value.rules) {
      if (seen.has(r.id))
        throw new UserError(
          `${file}: rule id "${r.id}" appears twice in the pack`,
          'give each rule its own id',
        );
      seen.add(r.id);
    }
    return { pack: value, file };
  });
  cache.set(dir, { signature, packs });
  return packs;
}

/** Every pack the case file can include; one name in two folders is an error naming both files. */
export function packsFor(caseFile: string): PackSet {
  const set: PackSet = new Map();
  for (const dir of packDirsFor(caseFile))
    for (const lp of packsIn(dir)) {
      const prior = set.get(lp.pack.id);
      // A verbatim copy (a vendored library) is the same pack; a different one under the name is not.
      if (prior && JSON.stringify(prior.pack) === JSON.stringify(lp.pack)) continue;
      if (prior)
        throw new UserError(
          `${prior.file}: rule pack "${lp.pack.id}" is also defined by ${lp.file}`,
          'give your pack another name: a pack name means the same rules in every case that includes it',
        );
      set.set(lp.pack.id, lp);
    }
  return set;
}

/** A problem in a case's `audit` field: where (a path into the case document), what, and what to do. */
export interface AuditProblem {
  path: (string | number)[];
  message: string;
  hint: string;
}

const REF = /^([a-z0-9][a-z0-9-]*)(?:@(\d+))?$/;

const list = (xs: string[]) => (xs.length ? xs.join(', ') : 'none');

/**
 * Pure: the flat rule list of a case's audit field. Order: the case's own `rules`, then each included
 * pack's rules in pack order, leaving out `except`. Every mistake is a problem naming the field.
 */
export function resolveAudit(
  audit: AuditRule[] | AuditSpec,
  packs: PackSet,
): { rules: AuditRule[]; problems: AuditProblem[] } {
  const problems: AuditProblem[] = [];
  const spec = Array.isArray(audit) ? { include: [], except: [], rules: audit } : audit;
  const inlinePath = (i: number) => (Array.isArray(audit) ? ['audit', i] : ['audit', 'rules', i]);
  const known = [...packs.values()].map((p) => `${p.pack.id}@${p.pack.version}`).sort();
  const included: LoadedPack[] = [];
  spec.include.forEach((ref, i) => {
    const m = REF.exec(ref);
    const path = ['audit', 'include', i];
    if (!m) {
      problems.push({
        path,
        message: `"${ref}" is not a pack reference`,
        hint: `write NAME@VERSION, one of: ${list(known)}`,
      });
      return;
    }
    const [, name, version] = m as unknown as [string, string, string | undefined];
    const lp = packs.get(name);
    if (!lp) {
      problems.push({
        path,
        message: `unknown rule pack "${name}" (known: ${list(known)})`,
        hint: 'fix the name, or add rules/NAME.yaml beside your case files (docs/cases.md, "Rule packs")',
      });
      return;
    }
    if (version !== undefined && Number(version) !== lp.pack.version) {
      problems.push({
        path,
        message: `rule pack "${name}" is version ${lp.pack.version} (${lp.file}), the case includes version ${version}`,
        hint: `read what changed in the pack's rules, then include ${name}@${lp.pack.version}`,
      });
      return;
    }
    if (included.includes(lp)) {
      problems.push({
        path,
        message: `rule pack "${name}" is included twice`,
        hint: 'include each pack once',
      });
      return;
    }
    included.push(lp);
  });
  const fromPacks = new Map(included.flatMap((lp) => lp.pack.rules.map((r) => [r.id, lp.pack.id] as const)));
  const except = new Set<string>();
  // An include that failed already explains an `except` of its rules: report the cause only.
  const includesOk = problems.length === 0;
  spec.except.forEach((id, i) => {
    if (includesOk && !fromPacks.has(id))
      problems.push({
        path: ['audit', 'except', i],
        message: `"${id}" is not a rule of the included packs (their rules: ${list([...fromPacks.keys()])})`,
        hint: 'name a rule id of an included pack; a rule of the case itself is removed by deleting it',
      });
    except.add(id);
  });
  const seen = new Set<string>();
  spec.rules.forEach((r, i) => {
    const pack = fromPacks.get(r.id);
    if (seen.has(r.id))
      problems.push({
        path: inlinePath(i),
        message: `audit rule id "${r.id}" appears twice`,
        hint: 'give each rule its own id',
      });
    else if (pack && !except.has(r.id))
      problems.push({
        path: inlinePath(i),
        message: `audit rule id "${r.id}" is also a rule of the included pack ${pack}`,
        hint: `to replace the pack's rule with this one, add ${r.id} to audit.except; else rename or delete this rule`,
      });
    seen.add(r.id);
  });
  const rules = [...spec.rules, ...included.flatMap((lp) => lp.pack.rules.filter((r) => !except.has(r.id)))];
  return { rules, problems };
}
