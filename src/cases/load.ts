// Loading case files and selecting among them. Selectors (CLI `--cases`, action input `cases`):
//   a file, folder or glob  → sources (default: the built-in library)
//   phase:NAME  tag:NAME  id:GLOB  taxonomy:ID  subset:smoke|standard|full  → filters (OR within a kind, AND
//   across kinds; taxonomy:AML.T0051 also selects its sub-techniques)
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import picomatch from 'picomatch';
import { UserError } from '../errors.js';
import { builtinCasesDir } from '../paths.js';
import { BUILTIN_TAXA, builtinTaxon, taxonMatches } from '../spec/taxonomy.js';
import { PHASES } from '../spec/vocabulary.js';
import { fieldPath, lineLocator, parseYaml } from '../yaml-file.js';
import { indexedCases, PACKS_FOLDER, readCaseIndex, staleness, yamlFilesUnder } from './case-index.js';
import { packsFor, resolveAudit } from './packs.js';
import { Case, CaseFile, type LoadedCase } from './schema.js';
import { defaultTaxonomy, resolveTaxonomy, TAXONOMY_FILE, teamTaxaFor } from './taxonomy.js';

export function caseRevision(c: Case): string {
  // Without its taxonomy: how a case is classified changes no trial, so no stored baseline goes stale.
  // Without its second session: it changes no label of the first; the trial's activation record carries
  // its own revision (secondSessionRevision), and activated rates are compared only where that is equal.
  return digest12({ ...c, taxonomy: undefined, next_session: undefined });
}

/** The case's second session as written: `default` when it gives none (the engine derives every part). */
export const secondSessionRevision = (c: Case): string =>
  c.next_session === undefined ? 'default' : digest12(c.next_session);

const digest12 = (value: unknown): string =>
  createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 12);

/** JSON with sorted keys, so a digest does not depend on key order in the YAML. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

/** A case file's text as a loaded case: schema checked, rule packs expanded (errors name file:line). */
export function parseCaseText(file: string, text: string): LoadedCase {
  const { value, line } = parseYaml(file, text, CaseFile, 'case file');
  const { rules, problems } = resolveAudit(value.audit, packsFor(file));
  if (problems.length) {
    const lineOf = lineLocator(text);
    throw new UserError(
      `invalid case file:\n  ${problems.map((p) => `${file}:${lineOf(p.path)}: ${fieldPath(p.path)}: ${p.message}`).join('\n  ')}`,
      problems[0]!.hint,
    );
  }
  const afterProblem = attackAfterProblem(value);
  if (afterProblem)
    throw new UserError(
      `invalid case file:\n  ${file}:${lineLocator(text)(['inject', 'after'])}: inject.after: ${afterProblem}`,
      'give the 0-based index of an owner.plan step that is not a reply, or `plan` for the whole plan',
    );
  const taxonomy = value.taxonomy ?? defaultTaxonomy(value);
  const known = resolveTaxonomy(taxonomy, taxonomy.every(builtinTaxon) ? [] : teamTaxaFor(file));
  if (known.problems.length) {
    const lineOf = lineLocator(text);
    throw new UserError(
      `invalid case file:\n  ${known.problems.map((p) => `${file}:${lineOf(['taxonomy', p.index])}: taxonomy[${p.index}]: ${p.message}`).join('\n  ')}`,
      `use an id that \`harness-risk list taxonomy\` prints, or declare your own framework in a ${TAXONOMY_FILE} beside your cases (docs/cases.md#taxonomy)`,
    );
  }
  const c = inSchemaOrder({ ...value, audit: rules, taxonomy });
  // Over the resolved case: how its rules are spelled (pasted or by pack) does not change its revision.
  return { case: c, file, revision: caseRevision(c), line };
}

/** The case with its keys in the schema's order, as Case.parse would give them (a derived taxonomy included). */
function inSchemaOrder(draft: Case): Case {
  const d = draft as unknown as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(Case.shape)
      .filter((k) => k in d)
      .map((k) => [k, d[k]]),
  ) as unknown as Case;
}

/** Why `inject.after` names no owner step the attack could wait for, or undefined when it does. */
export function attackAfterProblem(c: Pick<CaseFile, 'owner' | 'inject'>): string | undefined {
  const after = c.inject.after;
  if (typeof after !== 'number') return undefined;
  const step = c.owner.plan[after];
  if (!step) return `owner.plan has ${c.owner.plan.length} step(s); there is no step ${after}`;
  if (step.do === 'reply') return `owner.plan step ${after} is a reply, which the attack cannot wait for`;
  return undefined;
}

export function loadCaseFile(file: string): LoadedCase {
  if (basename(file) === TAXONOMY_FILE)
    throw new UserError(
      `${file}: a ${TAXONOMY_FILE} declares a team's taxonomy frameworks, it is not a case`,
      'select the case files; the cases beside and below it may use its ids in `taxonomy:`',
    );
  if (basename(dirname(resolve(file))) === PACKS_FOLDER)
    throw new UserError(
      `${file}: a file in a ${PACKS_FOLDER}/ folder is a rule pack, not a case`,
      'select the case files (a folder of cases skips rules/); cases include a pack with audit.include',
    );
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`${file}: cannot read case file: ${(e as Error).message}`, 'check the path');
  }
  return parseCaseText(file, text);
}

function expandSource(sel: string, cwd: string): string[] {
  const abs = resolve(cwd, sel);
  if (existsSync(abs)) return statSync(abs).isDirectory() ? yamlFilesUnder(abs) : [abs];
  if (/[*?[{]/.test(sel)) {
    const base = resolve(cwd, picomatch.scan(sel).base || '.');
    const match = picomatch(resolve(cwd, sel));
    const files = existsSync(base) ? yamlFilesUnder(base).filter((f) => match(f)) : [];
    // A typo in one of several selectors must not shrink the run silently.
    if (!files.length)
      throw new UserError(
        `cases: "${sel}" matches no case file`,
        'a glob must match .yaml files (e.g. cases/*/variants/*.yaml); for a folder, name the folder',
      );
    return files;
  }
  throw new UserError(
    `cases: "${sel}" is neither a file, a folder, a glob nor a filter`,
    'use a path, or phase:NAME, tag:NAME, id:GLOB, taxonomy:ID, subset:smoke|standard|full',
  );
}

export interface CaseSelection {
  sources: string[];
  phases: string[];
  tags: string[];
  ids: string[];
  /** Taxonomy ids (or parent techniques) a case must carry one of. */
  taxonomy: string[];
  subset?: 'smoke' | 'standard' | 'full';
}

export function parseSelectors(selectors: string[]): CaseSelection {
  const sel: CaseSelection = { sources: [], phases: [], tags: [], ids: [], taxonomy: [] };
  for (const raw of selectors
    .flatMap((s) => s.split(/[,\n]/))
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^(phase|tag|id|taxonomy|subset):(.+)$/.exec(raw);
    if (!m) {
      sel.sources.push(raw);
      continue;
    }
    const [, kind, value] = m as unknown as [string, string, string];
    if (kind === 'phase') {
      if (!(PHASES as readonly string[]).includes(value)) {
        throw new UserError(`cases: unknown phase "${value}"`, `use one of ${PHASES.join(', ')}`);
      }
      sel.phases.push(value);
    } else if (kind === 'tag') sel.tags.push(value);
    else if (kind === 'id') sel.ids.push(value);
    else if (kind === 'taxonomy') sel.taxonomy.push(taxonomySelector(value));
    else if (value === 'smoke' || value === 'standard' || value === 'full') sel.subset = value;
    else
      throw new UserError(
        `cases: unknown subset "${value}"`,
        'use subset:smoke, subset:standard or subset:full',
      );
  }
  return sel;
}

/**
 * A `taxonomy:` selector's id. One spelled like a built-in framework's (LLM…, ASI…, AML.T…) must name a
 * built-in entry, so a typo cannot select nothing silently; a team's own ids are known only per case file.
 */
function taxonomySelector(value: string): string {
  const builtinShape = /^(LLM|ASI|AML\.)/i.test(value);
  if (builtinShape && !BUILTIN_TAXA.some((t) => taxonMatches(t.id, value)))
    throw new UserError(
      `cases: taxonomy:${value} names no built-in taxonomy id`,
      'use an id `harness-risk list taxonomy` prints (e.g. taxonomy:LLM01, taxonomy:ASI06, taxonomy:AML.T0051)',
    );
  return value;
}

/** Loads the selected cases; duplicate ids across files are an error naming both files. */
export function loadCases(selectors: string[], cwd = process.cwd()): LoadedCase[] {
  // Nothing selected: the built-in standard subset (the 144 base cases), the default of the action and CLI.
  const sel = parseSelectors(selectors.length ? selectors : ['subset:standard']);
  if (sel.sources.length)
    return filterCases(parseCaseFiles(sel.sources.flatMap((s) => expandSource(s, cwd))), sel);
  // The built-in library: from the build's index when it is current, else from the YAML files.
  const index = readCaseIndex();
  if (typeof index !== 'string') {
    // Filtered on the header's fields; only the selected cases are read and parsed.
    const entries = filterCases(
      index.cases.map((e) => ({ case: e })),
      sel,
    ).map((x) => x.case);
    let selected: LoadedCase[] | undefined;
    try {
      selected = indexedCases(index, entries);
    } catch {
      // A damaged index (a case line that does not parse) is not trusted: the YAML files are.
    }
    if (selected && !staleness(index, selected)) return selected;
  }
  return filterCases(parseCaseFiles(yamlFilesUnder(builtinCasesDir())), sel);
}

/** Parses and validates case files (YAML, errors with file:line); a repeated id names both files. */
export function parseCaseFiles(files: string[]): LoadedCase[] {
  const seen = new Map<string, string>();
  const loaded: LoadedCase[] = [];
  for (const file of [...new Set(files)]) {
    const lc = loadCaseFile(file);
    const prior = seen.get(lc.case.id);
    if (prior)
      throw new UserError(
        `${file}: case id "${lc.case.id}" is already used by ${prior}`,
        'give each case a unique id',
      );
    seen.set(lc.case.id, file);
    loaded.push(lc);
  }
  return loaded;
}

/** The fields selection reads: a loaded case's, or an index entry's (src/cases/case-index.ts). */
type Selectable = Pick<Case, 'id' | 'phase' | 'tags' | 'variant_of' | 'taxonomy'>;

export function filterCases<T extends { case: Selectable }>(cases: T[], sel: CaseSelection): T[] {
  const idMatch = sel.ids.length ? picomatch(sel.ids) : undefined;
  const inSubset = (c: Selectable): boolean => {
    if (!sel.subset || sel.subset === 'full') return true;
    if (sel.subset === 'smoke') return c.tags.includes('smoke');
    // standard: everything but perturbation variants and cases reserved for release gates
    return !c.variant_of && !c.tags.includes('full-only');
  };
  return cases
    .filter(({ case: c }) => !sel.phases.length || sel.phases.includes(c.phase))
    .filter(({ case: c }) => !sel.tags.length || sel.tags.some((t) => c.tags.includes(t)))
    .filter(({ case: c }) => !idMatch || idMatch(c.id))
    .filter(
      ({ case: c }) =>
        !sel.taxonomy.length ||
        sel.taxonomy.some((t) => (c.taxonomy ?? []).some((id) => taxonMatches(id, t))),
    )
    .filter(({ case: c }) => inSubset(c))
    .sort(
      (a, b) =>
        PHASES.indexOf(a.case.phase) - PHASES.indexOf(b.case.phase) || a.case.id.localeCompare(b.case.id),
    );
}

/** Stable sharding by case id: shard i of n takes every n-th case in id order. */
export function shardCases<T extends { case: { id: string } }>(
  cases: T[],
  index: number,
  total: number,
): T[] {
  if (!(total >= 1 && index >= 1 && index <= total)) {
    throw new UserError(`shard ${index}/${total} is out of range`, 'use i/n with 1 ≤ i ≤ n, e.g. 2/4');
  }
  return [...cases]
    .sort((a, b) => a.case.id.localeCompare(b.case.id))
    .filter((_, i) => i % total === index - 1);
}

export function displayPath(file: string, cwd = process.cwd()): string {
  const rel = relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}
