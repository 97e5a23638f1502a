// The taxonomy vocabulary: the public frameworks a case's `taxonomy:` ids come from (OWASP Top 10 for LLM
// Applications 2025, OWASP Top 10 for Agentic Applications 2026, MITRE ATLAS techniques), and the schema of a
// team's own framework (`taxonomy.yaml` beside its cases, src/cases/taxonomy.ts). SARIF, the report, `list
// cases`, `new case` and the docs table all read these rows; nothing else spells an id or a name.
// Names and pages as published (genai.owasp.org, atlas.mitre.org); ATLAS ids only where the published id and
// name were confirmed.
import { z } from 'zod';

/** One entry of a framework: what a case's `taxonomy:` names. */
export const Taxon = z
  .object({
    /** The framework's id (`owasp-llm-2025`, `owasp-agentic-2026`, `mitre-atlas`, or a team's own). */
    framework: z.string(),
    id: z.string(),
    name: z.string(),
    /** The framework's public page for this entry. */
    helpUri: z.string(),
  })
  .strict();
export type Taxon = z.infer<typeof Taxon>;

export interface Framework {
  id: string;
  name: string;
  /** Who publishes it (SARIF toolComponent.organization). */
  organization: string;
  /** The edition, where the framework names one (ATLAS is a living catalogue). */
  version?: string;
  informationUri: string;
}

export const BUILTIN_FRAMEWORKS = [
  {
    id: 'owasp-llm-2025',
    name: 'OWASP Top 10 for LLM Applications',
    organization: 'OWASP GenAI Security Project',
    version: '2025',
    informationUri: 'https://genai.owasp.org/llm-top-10/',
  },
  {
    id: 'owasp-agentic-2026',
    name: 'OWASP Top 10 for Agentic Applications',
    organization: 'OWASP GenAI Security Project',
    version: '2026',
    informationUri: 'https://genai.owasp.org/resource/owasp-top-10-for-agentic-applications-for-2026/',
  },
  {
    id: 'mitre-atlas',
    name: 'MITRE ATLAS',
    organization: 'MITRE',
    informationUri: 'https://atlas.mitre.org/',
  },
] as const satisfies readonly Framework[];
/** A framework's name with its edition (`OWASP Top 10 for LLM Applications 2025`). */
export const frameworkTitle = (f: Framework): string => (f.version ? `${f.name} ${f.version}` : f.name);

export type BuiltinFrameworkId = (typeof BUILTIN_FRAMEWORKS)[number]['id'];

const llm = (n: string, name: string, slug: string): Taxon => ({
  framework: 'owasp-llm-2025',
  id: `LLM${n}`,
  name,
  // LLM01's 2025 page kept the 2023 address; the other nine carry the year in theirs.
  helpUri: `https://genai.owasp.org/llmrisk/llm${n}${n === '01' ? '' : '2025'}-${slug}/`,
});
// The agentic list is published as one document: every entry links to it.
const asi = (n: string, name: string): Taxon => ({
  framework: 'owasp-agentic-2026',
  id: `ASI${n}`,
  name,
  helpUri: BUILTIN_FRAMEWORKS[1].informationUri,
});
const atlas = (id: string, name: string): Taxon => ({
  framework: 'mitre-atlas',
  id,
  name,
  helpUri: `https://atlas.mitre.org/techniques/${id}`,
});

export const BUILTIN_TAXA: readonly Taxon[] = [
  llm('01', 'Prompt Injection', 'prompt-injection'),
  llm('02', 'Sensitive Information Disclosure', 'sensitive-information-disclosure'),
  llm('03', 'Supply Chain', 'supply-chain'),
  llm('04', 'Data and Model Poisoning', 'data-and-model-poisoning'),
  llm('05', 'Improper Output Handling', 'improper-output-handling'),
  llm('06', 'Excessive Agency', 'excessive-agency'),
  llm('07', 'System Prompt Leakage', 'system-prompt-leakage'),
  llm('08', 'Vector and Embedding Weaknesses', 'vector-and-embedding-weaknesses'),
  llm('09', 'Misinformation', 'misinformation'),
  llm('10', 'Unbounded Consumption', 'unbounded-consumption'),
  asi('01', 'Agent Goal Hijack'),
  asi('02', 'Tool Misuse and Exploitation'),
  asi('03', 'Identity and Privilege Abuse'),
  asi('04', 'Agentic Supply Chain Vulnerabilities'),
  asi('05', 'Unexpected Code Execution (RCE)'),
  asi('06', 'Memory and Context Poisoning'),
  asi('07', 'Insecure Inter-Agent Communication'),
  asi('08', 'Cascading Failures'),
  asi('09', 'Human-Agent Trust Exploitation'),
  asi('10', 'Rogue Agents'),
  atlas('AML.T0010', 'AI Supply Chain Compromise'),
  atlas('AML.T0010.001', 'AI Supply Chain Compromise: AI Software'),
  atlas('AML.T0011', 'User Execution'),
  atlas('AML.T0011.001', 'User Execution: Malicious Package'),
  atlas('AML.T0011.002', 'User Execution: Poisoned AI Agent Tool'),
  atlas('AML.T0024', 'Exfiltration via AI Inference API'),
  atlas('AML.T0025', 'Exfiltration via Cyber Means'),
  atlas('AML.T0029', 'Denial of AI Service'),
  atlas('AML.T0034', 'Cost Harvesting'),
  atlas('AML.T0048', 'External Harms'),
  atlas('AML.T0048.000', 'External Harms: Financial Harm'),
  atlas('AML.T0050', 'Command and Scripting Interpreter'),
  atlas('AML.T0051', 'LLM Prompt Injection'),
  atlas('AML.T0051.000', 'LLM Prompt Injection: Direct'),
  atlas('AML.T0051.001', 'LLM Prompt Injection: Indirect'),
  atlas('AML.T0051.002', 'LLM Prompt Injection: Triggered'),
  atlas('AML.T0053', 'AI Agent Tool Invocation'),
  atlas('AML.T0054', 'LLM Jailbreak'),
  atlas('AML.T0055', 'Unsecured Credentials'),
  atlas('AML.T0056', 'Extract LLM System Prompt'),
  atlas('AML.T0057', 'LLM Data Leakage'),
  atlas('AML.T0061', 'LLM Prompt Self-Replication'),
  atlas('AML.T0070', 'RAG Poisoning'),
  atlas('AML.T0080', 'AI Agent Context Poisoning'),
  atlas('AML.T0080.000', 'AI Agent Context Poisoning: Memory'),
  atlas('AML.T0080.001', 'AI Agent Context Poisoning: Thread'),
  atlas('AML.T0081', 'Modify AI Agent Configuration'),
  atlas('AML.T0083', 'Credentials from AI Agent Configuration'),
  atlas('AML.T0086', 'Exfiltration via AI Agent Tool Invocation'),
  atlas('AML.T0093', 'Prompt Infiltration via Public-Facing Application'),
  atlas('AML.T0094', 'Delay Execution of LLM Instructions'),
  atlas('AML.T0098', 'AI Agent Tool Credential Harvesting'),
  atlas('AML.T0101', 'Data Destruction via AI Agent Tool Invocation'),
];

const BY_ID = new Map(BUILTIN_TAXA.map((t) => [t.id, t]));

/** The built-in entry of an id, or undefined. */
export const builtinTaxon = (id: string): Taxon | undefined => BY_ID.get(id);

/** How a taxonomy id is spelled: a letter or digit first, then letters, digits and `. _ : -`. */
export const TAXON_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
export const TaxonId = z.string().regex(TAXON_ID, 'an id such as LLM01, ASI06 or AML.T0051.001');

/**
 * Does `selector` name this id: the id itself (any case) or, for a technique, its parent
 * (`AML.T0051` selects `AML.T0051.001`).
 */
export function taxonMatches(id: string, selector: string): boolean {
  const a = id.toUpperCase();
  const s = selector.toUpperCase();
  return a === s || a.startsWith(`${s}.`);
}

/** A team's own framework (`taxonomy.yaml`): its ids may be used by the cases beside it and below it. */
export const TeamFramework = z
  .object({
    /** Lower-case id of the framework (`acme-threats`); not one of the built-in frameworks. */
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case id of letters, digits and dashes'),
    name: z.string().min(1),
    /** The framework's page (every entry without its own helpUri links here). */
    helpUri: z.url({ protocol: /^https?$/ }),
    taxa: z
      .array(
        z
          .object({
            id: TaxonId,
            name: z.string().min(1),
            helpUri: z.url({ protocol: /^https?$/ }).optional(),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();
export type TeamFramework = z.infer<typeof TeamFramework>;

export const TaxonomyFile = z.object({ frameworks: z.array(TeamFramework).min(1) }).strict();
export type TaxonomyFile = z.infer<typeof TaxonomyFile>;
