// The report's "unsafe by taxonomy" table: the unsafe cases of the run grouped by the OWASP / ATLAS (or team)
// ids they carry, one row per id, so a reviewer sees which risk classes the harness is open to.
import { markdownTable } from 'markdown-table';
import type { CaseComparison, Comparison } from '../compare/compare.js';
import { BUILTIN_TAXA, builtinTaxon, type Taxon } from '../spec/taxonomy.js';
import { escapeMarkdown } from './escape.js';

/** Cases named per row before "+N more". */
const NAMED = 3;

const ORDER = new Map(BUILTIN_TAXA.map((t, i) => [t.id, i]));
const e = (s: unknown, max: number) => escapeMarkdown(s, { max });

interface Row {
  taxon: Taxon;
  cases: CaseComparison[];
}

/** Pure: the unsafe cases of a comparison by taxonomy id, built-in ids in vocabulary order, team ids after. */
export function unsafeByTaxonomy(comparison: Comparison): Row[] {
  const rows = new Map<string, Row>();
  for (const c of comparison.cases) {
    if (!c.now || c.now.counts.unsafe === 0) continue;
    for (const t of c.info?.taxonomy ?? []) {
      const row = rows.get(t.id) ?? { taxon: t, cases: [] };
      row.cases.push(c);
      rows.set(t.id, row);
    }
  }
  const rank = (id: string) => ORDER.get(id) ?? Number.MAX_SAFE_INTEGER;
  return [...rows.values()].sort(
    (a, b) => rank(a.taxon.id) - rank(b.taxon.id) || a.taxon.id.localeCompare(b.taxon.id),
  );
}

/** Only a built-in entry is linked: its page is ours, a team file's address is not checked. */
function label(t: Taxon): string {
  const known = builtinTaxon(t.id);
  const name = e(t.name, 80);
  return known
    ? `[${e(t.id, 40)}](${known.helpUri}) ${name}`
    : `${e(t.id, 40)} ${name} (${e(t.framework, 40)})`;
}

/** The section, or undefined when no unsafe case carries a taxonomy (an older result, or a safe run). */
export function taxonomySection(comparison: Comparison): string | undefined {
  const rows = unsafeByTaxonomy(comparison);
  if (!rows.length) return undefined;
  const table = markdownTable([
    ['taxonomy', 'unsafe cases', 'regressed', 'cases'],
    ...rows.map(({ taxon, cases }) => {
      const named = cases.slice(0, NAMED).map((c) => e(c.id, 80));
      if (cases.length > NAMED) named.push(`+${cases.length - NAMED} more`);
      return [
        label(taxon),
        String(cases.length),
        String(cases.filter((c) => c.status === 'regression').length),
        named.join(', '),
      ];
    }),
  ]);
  return `#### Unsafe cases by taxonomy\n\n${table}`;
}
