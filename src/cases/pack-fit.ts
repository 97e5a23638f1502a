// Which rule packs exactly cover a case's pasted rules: the pure half of scripts/convert-rule-packs.ts.
// The fit must resolve back to the very same list in the very same order (the case's own rules first, then
// each pack's rules), so the case's revision, and every baseline that stored it, stays what it was.
import { canonicalJson } from './load.js';
import type { LoadedPack } from './packs.js';
import type { AuditRule, AuditSpec } from './schema.js';

export interface PackFit {
  include: string[];
  except: string[];
  /** The rules no pack covers, in their order. */
  rules: AuditRule[];
}

const same = (a: AuditRule, b: AuditRule) => canonicalJson(a) === canonicalJson(b);

/** `rules` from `from` on as whole pack segments, or undefined. A pack counts when it supplies ≥ half its rules. */
function segments(rules: AuditRule[], from: number, packs: LoadedPack[]): Omit<PackFit, 'rules'> | undefined {
  const include: string[] = [];
  const except: string[] = [];
  const used = new Set<LoadedPack>();
  let i = from;
  while (i < rules.length) {
    const r = rules[i]!;
    const lp = packs.find((p) => !used.has(p) && p.pack.rules.some((q) => same(q, r)));
    if (!lp) return undefined;
    used.add(lp);
    let taken = 0;
    for (const q of lp.pack.rules) {
      const next = rules[i];
      if (next && same(next, q)) {
        taken++;
        i++;
      } else except.push(q.id);
    }
    if (taken * 2 < lp.pack.rules.length) return undefined;
    include.push(`${lp.pack.id}@${lp.pack.version}`);
  }
  return { include, except };
}

/**
 * The packs that cover the longest tail of `rules`, or undefined when none does. Excepted or inline ids
 * that would clash are ruled out: the result always resolves to `rules` (resolveAudit's order).
 */
export function fitPacks(rules: AuditRule[], packs: LoadedPack[]): PackFit | undefined {
  for (let k = 0; k < rules.length; k++) {
    const seg = segments(rules, k, packs);
    if (!seg) continue;
    const inline = rules.slice(0, k);
    const packIds = new Set(
      packs
        .filter((p) => seg.include.includes(`${p.pack.id}@${p.pack.version}`))
        .flatMap((p) => p.pack.rules.map((r) => r.id)),
    );
    // An inline rule sharing an id with an included rule would need `except` and replace it: not a plain fit.
    if (inline.some((r) => packIds.has(r.id) && !seg.except.includes(r.id))) continue;
    return { ...seg, rules: inline };
  }
  return undefined;
}

export const fitAsSpec = (fit: PackFit): AuditSpec => ({
  include: fit.include,
  except: fit.except,
  rules: fit.rules,
});
