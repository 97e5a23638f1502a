// Replaces the audit rules a case pasted from a rule pack by an include of that pack, in every hand-written
// case file under a folder (default: the built-in library), then regenerates the perturbation variants.
// Safe to re-run: a case already using packs is re-fitted the same way, and a file is only rewritten when
// the new text resolves to the very same rules in the same order, so its revision (and every stored
// baseline) is unchanged; anything else is left alone and listed.
//
//   npx tsx scripts/convert-rule-packs.ts [FOLDER] [--check]   # --check: exit 1 when a file would change
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Document, isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { yamlFilesUnder } from '../src/cases/case-index.js';
import { parseCaseText } from '../src/cases/load.js';
import { fitPacks, type PackFit } from '../src/cases/pack-fit.js';
import { packsFor } from '../src/cases/packs.js';
import type { AuditRule } from '../src/cases/schema.js';
import { builtinCasesDir } from '../src/paths.js';

/** One rule as a one-line flow mapping (for a rule whose original text cannot be reused line by line). */
function flowRule(rule: AuditRule): string {
  const doc = new Document(rule);
  if (isMap(doc.contents)) doc.contents.flow = true;
  return doc.toString({ lineWidth: 0 }).trim();
}

/**
 * The text of each kept rule with the comment lines just above it, re-indented under `rules:`; the original
 * lines when every item of the sequence starts its own line, else one flow line per rule.
 */
function keptRuleLines(text: string, keep: AuditRule[]): string[] {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  const lines = text.split('\n');
  const audit = doc.get('audit', true);
  const seq = isSeq(audit) ? audit : isMap(audit) ? audit.get('rules', true) : undefined;
  const keepIds = new Set(keep.map((r) => r.id));
  const out: string[] = [];
  if (isSeq(seq) && !seq.flow) {
    let prevEnd = (seq.range ? lc.linePos(seq.range[0]).line : 1) - 1;
    for (const item of seq.items) {
      if (!isMap(item) || !item.range) return keep.map((r) => `    - ${flowRule(r)}`);
      const start = lc.linePos(item.range[0]).line;
      const end = lc.linePos(Math.max(item.range[0], item.range[1] - 1)).line;
      const id = item.get('id');
      const own = lines.slice(start - 1, end);
      if (start <= prevEnd || !/^\s*-\s/.test(own[0] ?? '')) return keep.map((r) => `    - ${flowRule(r)}`);
      const above = lines.slice(prevEnd, start - 1).filter((l) => /^\s*#/.test(l));
      prevEnd = end;
      if (!(typeof id === 'string' && keepIds.has(id))) continue;
      const indent = /^\s*/.exec(own[0]!)![0].length;
      for (const l of [...above, ...own])
        out.push(`    ${l.slice(Math.min(indent, /^\s*/.exec(l)![0].length))}`);
    }
    return out;
  }
  return keep.map((r) => `    - ${flowRule(r)}`);
}

/** The file's text with its `audit:` block replaced by the fit, or undefined when the block cannot be found. */
export function rewriteAudit(text: string, fit: PackFit): string | undefined {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  if (!isMap(doc.contents)) return undefined;
  const pair = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === 'audit');
  if (!pair || !isScalar(pair.key) || !pair.key.range) return undefined;
  const value = pair.value as { range?: [number, number, number] } | null;
  const lines = text.split('\n');
  const from = lc.linePos(pair.key.range[0]).line;
  let to = value?.range ? lc.linePos(Math.max(value.range[0], value.range[1] - 1)).line : from;
  // Comment lines right after the last rule belong to the block (e.g. a trailing "# ---" rule).
  while (to < lines.length && /^\s*#/.test(lines[to] ?? '') && /^\s/.test(lines[to] ?? '')) to++;
  if (!/^audit:/.test(lines[from - 1] ?? '')) return undefined;
  const block = [
    'audit:',
    `  include: [${fit.include.join(', ')}]`,
    ...(fit.except.length ? [`  except: [${fit.except.join(', ')}]`] : []),
    ...(fit.rules.length ? ['  rules:', ...keptRuleLines(text, fit.rules)] : []),
  ];
  return [...lines.slice(0, from - 1), ...block, ...lines.slice(to)].join('\n');
}

export type Outcome = 'converted' | 'unchanged' | 'no-fit' | 'kept';

/** One file: the new text (when it changes) and what happened. Never changes the resolved rules. */
export function convertText(file: string, text: string): { outcome: Outcome; text?: string; why?: string } {
  const before = parseCaseText(file, text);
  if (before.case.variant_of)
    return { outcome: 'kept', why: 'generated variant (regenerated from its base)' };
  const fit = fitPacks(before.case.audit, [...packsFor(file).values()]);
  if (!fit) return { outcome: 'no-fit' };
  const next = rewriteAudit(text, fit);
  if (next === undefined) return { outcome: 'kept', why: 'no top-level audit: block found' };
  if (next === text) return { outcome: 'unchanged' };
  let after: ReturnType<typeof parseCaseText>;
  try {
    after = parseCaseText(file, next);
  } catch (e) {
    return { outcome: 'kept', why: `the rewritten file does not load: ${(e as Error).message}` };
  }
  if (after.revision !== before.revision)
    return {
      outcome: 'kept',
      why: `the rewrite would change the revision ${before.revision} → ${after.revision}`,
    };
  return { outcome: 'converted', text: next };
}

function main(argv: string[]): number {
  const check = argv.includes('--check');
  const dir = argv.find((a) => !a.startsWith('--')) ?? builtinCasesDir();
  const counts: Record<Outcome, number> = { converted: 0, unchanged: 0, 'no-fit': 0, kept: 0 };
  for (const file of yamlFilesUnder(dir)) {
    const r = convertText(file, readFileSync(file, 'utf8'));
    counts[r.outcome]++;
    if (r.outcome === 'kept' && !r.why?.startsWith('generated'))
      console.error(`kept ${relative(process.cwd(), file)}: ${r.why}`);
    if (r.text !== undefined && !check) writeFileSync(file, r.text);
  }
  console.log(
    `${counts.converted} ${check ? 'would be ' : ''}converted, ${counts.unchanged} already by pack, ${counts['no-fit']} with no pack rules, ${counts.kept} left alone`,
  );
  if (check) return counts.converted ? 1 : 0;
  // Variants copy their base's audit field: regenerate them from the converted bases.
  const generator = join(dir, 'generate-variants.mjs');
  try {
    readFileSync(generator);
    execFileSync('node', [generator], { stdio: 'inherit' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return 0;
}

if (process.argv[1] && /convert-rule-packs\.ts$/.test(process.argv[1]))
  process.exitCode = main(process.argv.slice(2));
