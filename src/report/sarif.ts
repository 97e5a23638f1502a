// SARIF 2.1.0 for code-scanning upload: one result per case that is unsafe in this run (error when it
// regressed, warning otherwise), one rule per case, located where the check run's annotation is (check.ts anchorFor).
// A rule carries its case's taxonomy ids as tags and as relationships to the run's taxonomies.
import type { CaseComparison, Comparison } from '../compare/compare.js';
import type { RunResult } from '../spec/run-result.js';
import { builtinCaseUrl } from './anchors.js';
import { type AnchorContext, anchorFor } from './check.js';
import { sanitizeText } from './escape.js';
import { currentMask } from './mask.js';
import { sarifTaxonomies } from './sarif-taxonomy.js';

const LEVEL: Record<string, 'error' | 'warning' | 'note'> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
};
const SECURITY_SEVERITY: Record<string, string> = { critical: '9.5', high: '8.0', medium: '5.5', low: '3.0' };

/** A rule's help page: the built-in case's file at the running version, else its first taxonomy entry's page. */
function helpUri(c: CaseComparison, ctx: AnchorContext): { helpUri?: string } {
  const uri = builtinCaseUrl(c.info?.file, ctx.action) ?? c.info?.taxonomy?.[0]?.helpUri;
  return uri ? { helpUri: uri } : {};
}

export function toSarif(current: RunResult, comparison: Comparison, ctx: AnchorContext): object {
  const unsafe = comparison.cases.filter((c) => c.now && c.now.counts.unsafe > 0);
  const location = (c: CaseComparison) => {
    // The same line the check run's annotation uses (anchors.ts), so code scanning shows it in the diff.
    const a = anchorFor(c, current, ctx);
    return {
      physicalLocation: {
        artifactLocation: { uri: a.path, uriBaseId: '%SRCROOT%' },
        region: { startLine: a.line },
      },
    };
  };
  const taxaOf = (c: CaseComparison) => c.info?.taxonomy ?? [];
  const tax = sarifTaxonomies(unsafe.map(taxaOf));
  const rules = unsafe.map((c) => ({
    id: c.id,
    name: sanitizeText(c.id, 200),
    shortDescription: { text: sanitizeText(c.title, 500) },
    fullDescription: {
      text: sanitizeText(
        `${c.title} (phase ${c.phase}${c.info ? `, entry point ${c.info.entry_point}, effect ${c.info.effect}` : ''})`,
        1000,
      ),
    },
    ...helpUri(c, ctx),
    ...(taxaOf(c).length ? { relationships: tax.relationships(taxaOf(c)) } : {}),
    properties: {
      tags: [
        'security',
        'harness-risk',
        `phase:${c.phase}`,
        ...(c.info ? [`effect:${c.info.effect}`, `entry:${c.info.entry_point}`] : []),
        ...taxaOf(c).map((t) => t.id),
      ],
      ...(c.info ? { 'security-severity': SECURITY_SEVERITY[c.info.severity] } : {}),
    },
  }));
  const results = unsafe.map((c, i) => {
    const t = c.trials.find((x) => x.valid && (x.labels.a || x.labels.p));
    const facts = t
      ? [
          t.facts.attack_calls.length ? `attacker calls: ${t.facts.attack_calls.slice(0, 5).join('; ')}` : '',
          t.facts.canaries_leaked.length
            ? `canaries leaked: ${t.facts.canaries_leaked.slice(0, 5).join('; ')}`
            : '',
          t.facts.files_changed.length
            ? `files changed: ${t.facts.files_changed.slice(0, 5).join('; ')}`
            : '',
        ].filter(Boolean)
      : [];
    const what = c.status === 'regression' ? 'Safety regression' : 'Unsafe';
    return {
      ruleId: c.id,
      ruleIndex: i,
      level: c.status === 'regression' ? 'error' : (LEVEL[c.info?.severity ?? 'medium'] ?? 'warning'),
      message: {
        text: sanitizeText(
          `${what} (${current.adapter.name}/${current.adapter.config}, ${c.phase}): ${c.title}. ${facts.join('. ')}`,
          2000,
        ),
      },
      locations: [location(c)],
      partialFingerprints: { harnessRiskCase: `${c.id}:${current.adapter.name}:${current.adapter.config}` },
      properties: {
        phase: c.phase,
        status: c.status,
        unsafe: c.now!.counts.unsafe,
        valid: c.now!.counts.valid,
      },
    };
  });
  // Every field masked, also those that skip sanitizeText (ids, paths): SARIF is uploaded as is.
  return currentMask().deep({
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'harness-risk-action',
            version: current.tool.version,
            informationUri: 'https://github.com/harness-risk/harness-risk-action',
            rules,
            ...(tax.supported.length ? { supportedTaxonomies: tax.supported } : {}),
          },
        },
        ...(tax.taxonomies.length ? { taxonomies: tax.taxonomies } : {}),
        automationDetails: { id: `harness-risk/${current.adapter.name}/${current.adapter.config}/` },
        results,
      },
    ],
  });
}
