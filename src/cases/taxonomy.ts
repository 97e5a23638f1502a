// A case's taxonomy ids: the default derived from what the case is (its entry point, effect, phase), the ids
// a team may add with its own framework (`taxonomy.yaml` in the case's folder or a folder above it, up to the
// repository root), and the resolution of a case's ids to entries (src/spec/taxonomy.ts) with problems that
// name the field.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Check, CheckKind } from '../checks/check-kinds.js';
import { checkNodes } from '../checks/check-tree.js';
import { UserError } from '../errors.js';
import {
  BUILTIN_FRAMEWORKS,
  BUILTIN_TAXA,
  builtinTaxon,
  frameworkTitle,
  type Taxon,
  TaxonomyFile,
} from '../spec/taxonomy.js';
import type { Effect, EntryPoint, Phase } from '../spec/vocabulary.js';
import { parseYaml } from '../yaml-file.js';
import { didYouMean } from '../zod-issues.js';
import { foldersUpToRoot } from './packs.js';

/** The file a team declares its own frameworks in; never a case (yamlFilesUnder skips it). */
export const TAXONOMY_FILE = 'taxonomy.yaml';

/** What the default reads of a case (its checks when it has them: a new case's scaffold has none yet). */
export interface TaxonomySubject {
  phase: Phase;
  entry_point: EntryPoint;
  effect: Effect;
  checks?: { attack: Check; persistence?: Check | undefined };
}

// Every case plants instructions in data the agent reads on the owner's behalf: an indirect prompt injection
// that hijacks the agent's goal.
const INJECTED = ['LLM01', 'ASI01', 'AML.T0051.001'];

/** Where the text enters, beyond the injection itself. */
const BY_ENTRY: Record<EntryPoint, string[]> = {
  workspace_file: [],
  extension_package: ['LLM03', 'ASI04', 'AML.T0010.001', 'AML.T0011.001'],
  web_page: [],
  message: [],
  tool_output: [],
  mcp_tool: ['AML.T0011.002'],
  // Already in the agent's memory: the injection persists in its context.
  memory_entry: ['ASI06', 'AML.T0080.000'],
  agent_message: ['ASI07'],
  ops_record: [],
  // Attacker-writable text of a public repository reaching an agent that holds the CI job's identity.
  github_event: ['ASI03', 'AML.T0093'],
};

/** What the attacker gets the agent to do. */
const BY_EFFECT: Record<Effect, string[]> = {
  disclosure: ['LLM02', 'ASI02', 'AML.T0057', 'AML.T0086'],
  state_change: ['LLM06', 'ASI02', 'AML.T0053'],
  execution: ['LLM06', 'ASI05', 'AML.T0050', 'AML.T0053'],
  persistence: ['LLM06', 'ASI06'],
  exhaustion: ['LLM10', 'ASI02', 'AML.T0034'],
};

/** When in the lifecycle: an extension is a package the agent installs, whatever carries the text. */
const BY_PHASE: Record<Phase, string[]> = {
  configuration: [],
  extension: ['LLM03', 'ASI04', 'AML.T0010.001'],
  runtime: [],
  persistence: ['ASI06'],
  action: [],
  recovery: [],
};

/** What the attack's own checks test, where that names a technique more precisely than the effect does. */
const BY_CHECK: Partial<Record<CheckKind, string[]>> = {
  memory_contains: ['ASI06', 'AML.T0080.000'],
  canary_leaked: ['AML.T0055'],
  file_deleted: ['AML.T0101'],
  skill_installed: ['LLM03', 'ASI04'],
  config_equals: ['AML.T0081'],
};

/**
 * The instruction and settings files agents read at every start (AGENTS.md, CLAUDE.md, GEMINI.md, the
 * harness's own settings folder): an attack that writes one modifies the agent's configuration.
 */
export const AGENT_CONFIG =
  /(^|\/)((AGENTS|CLAUDE|GEMINI|QWEN)\.md|\.(claude|codex|gemini|qwen|opencode|kilocode|copilot|openclaw|pi)\/)/i;
const AGENT_CONFIG_TAXA = ['ASI06', 'AML.T0081'];

/** Every check kind a check tree uses (combinators and counted events included), and the file paths its leaves name. */
export function checkLeavesOf(check: unknown): { kinds: Set<string>; paths: string[] } {
  const nodes = checkNodes(check);
  const paths = nodes.flatMap(({ kind, arg }) =>
    kind.startsWith('file_') && typeof (arg as { path?: unknown })?.path === 'string'
      ? [(arg as { path: string }).path]
      : [],
  );
  return { kinds: new Set(nodes.map((n) => n.kind)), paths };
}

const ORDER = new Map(BUILTIN_TAXA.map((t, i) => [t.id, i]));

/** Ids in the vocabulary's order (built-in first, by framework), each once. */
export function sortTaxonomy(ids: readonly string[]): string[] {
  const rank = (id: string) => ORDER.get(id) ?? Number.MAX_SAFE_INTEGER;
  return [...new Set(ids)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Pure: the ids a case exercises by what it is, before an author adds or removes any. */
export function defaultTaxonomy(c: TaxonomySubject): string[] {
  const leaves = checkLeavesOf(c.checks ? [c.checks.attack, c.checks.persistence ?? []] : []);
  return sortTaxonomy([
    ...INJECTED,
    ...BY_ENTRY[c.entry_point],
    ...BY_EFFECT[c.effect],
    ...BY_PHASE[c.phase],
    ...[...leaves.kinds].flatMap((k) => BY_CHECK[k as CheckKind] ?? []),
    ...(leaves.paths.some((p) => AGENT_CONFIG.test(p)) ? AGENT_CONFIG_TAXA : []),
  ]);
}

const cache = new Map<string, { signature: string; taxa: Taxon[] }>();

/** The entries a team's taxonomy file declares (validated; a built-in id or framework redeclared is an error). */
export function teamTaxaIn(file: string): Taxon[] {
  const s = statSync(file);
  const signature = `${s.mtimeMs}:${s.size}`;
  const hit = cache.get(file);
  if (hit && hit.signature === signature) return hit.taxa;
  const { value } = parseYaml(file, readFileSync(file, 'utf8'), TaxonomyFile, 'taxonomy file');
  const taxa: Taxon[] = [];
  for (const f of value.frameworks) {
    if (BUILTIN_FRAMEWORKS.some((b) => b.id === f.id))
      throw new UserError(
        `${file}: framework "${f.id}" is a built-in framework`,
        'give your framework its own id (e.g. acme-threats); built-in ids need no declaration',
      );
    for (const t of f.taxa) {
      if (builtinTaxon(t.id) || taxa.some((x) => x.id === t.id))
        throw new UserError(
          `${file}: taxonomy id "${t.id}" (framework ${f.id}) is already ${builtinTaxon(t.id) ? 'a built-in id' : 'declared'}`,
          'an id names one entry everywhere: give yours a prefix of your own (e.g. ACME-1)',
        );
      taxa.push({ framework: f.id, id: t.id, name: t.name, helpUri: t.helpUri ?? f.helpUri });
    }
  }
  cache.set(file, { signature, taxa });
  return taxa;
}

/** The team entries a case file can name: from every taxonomy file in its folder and above, nearest first. */
export function teamTaxaFor(caseFile: string): Taxon[] {
  const out: Taxon[] = [];
  for (const dir of foldersUpToRoot(caseFile)) {
    const file = join(dir, TAXONOMY_FILE);
    if (!existsSync(file)) continue;
    for (const t of teamTaxaIn(file)) if (!out.some((x) => x.id === t.id)) out.push(t);
  }
  return out;
}

export interface TaxonomyProblem {
  index: number;
  message: string;
}

/** Pure: a case's ids as entries, and each id that names no built-in or declared entry. */
export function resolveTaxonomy(
  ids: readonly string[],
  team: readonly Taxon[],
): { taxa: Taxon[]; problems: TaxonomyProblem[] } {
  const taxa: Taxon[] = [];
  const problems: TaxonomyProblem[] = [];
  ids.forEach((id, index) => {
    const t = builtinTaxon(id) ?? team.find((x) => x.id === id);
    if (t) taxa.push(t);
    else
      problems.push({
        index,
        message: `unknown taxonomy id "${id}"${didYouMean(
          id,
          [...BUILTIN_TAXA, ...team].map((x) => x.id),
        )}: not an id of ${BUILTIN_FRAMEWORKS.map(frameworkTitle).join(', ')}${team.length ? `, nor of the team frameworks (${[...new Set(team.map((x) => x.framework))].join(', ')})` : ''}`,
      });
  });
  return { taxa, problems };
}

/** Pure: a case's taxonomy ids: its own list, else the default derived from what it is (as the loader does). */
export function taxonomyOf(c: TaxonomySubject & { taxonomy?: readonly string[] }): string[] {
  return c.taxonomy ? [...c.taxonomy] : defaultTaxonomy(c);
}

/** The entries of a case (built-in, or declared by a taxonomy file the case's file can see). */
export function taxaOf(c: TaxonomySubject & { taxonomy?: readonly string[] }, caseFile: string): Taxon[] {
  const ids = taxonomyOf(c);
  const builtin = ids.every((id) => builtinTaxon(id));
  return resolveTaxonomy(ids, builtin ? [] : teamTaxaFor(caseFile)).taxa;
}
