// The SARIF side of the case taxonomy (src/spec/taxonomy.ts): one `taxonomies` toolComponent per framework
// the unsafe cases name, holding the entries they name, and each rule's tags and `relationships` to them.
// Team frameworks (a taxonomy.yaml) come out the same way as the built-in ones, named by their id.
import { BUILTIN_FRAMEWORKS, frameworkTitle, type Taxon } from '../spec/taxonomy.js';

export interface SarifTaxonomies {
  /** `runs[].taxonomies`: one toolComponent per framework, in the order first named. */
  taxonomies: object[];
  /** `tool.driver.supportedTaxonomies`: references to those components. */
  supported: object[];
  /** A rule's `relationships` to the entries of its case. */
  relationships(taxa: readonly Taxon[]): object[];
}

/** Pure: the taxonomies of a run whose unsafe cases carry these entries. */
export function sarifTaxonomies(perCase: readonly (readonly Taxon[])[]): SarifTaxonomies {
  const frameworks = new Map<string, Taxon[]>();
  for (const taxa of perCase)
    for (const t of taxa) {
      const list = frameworks.get(t.framework) ?? [];
      if (!list.some((x) => x.id === t.id)) list.push(t);
      frameworks.set(t.framework, list);
    }
  const names = [...frameworks.keys()];
  const taxonomies = names.map((name) => {
    const known = BUILTIN_FRAMEWORKS.find((f) => f.id === name);
    return {
      name,
      ...(known
        ? {
            fullName: frameworkTitle(known),
            organization: known.organization,
            ...('version' in known ? { version: known.version } : {}),
            informationUri: known.informationUri,
          }
        : {}),
      taxa: frameworks.get(name)!.map((t) => ({
        id: t.id,
        name: t.name,
        shortDescription: { text: t.name },
        helpUri: t.helpUri,
      })),
    };
  });
  return {
    taxonomies,
    supported: names.map((name, index) => ({ name, index })),
    relationships: (taxa) =>
      taxa.map((t) => {
        const index = names.indexOf(t.framework);
        return {
          target: {
            id: t.id,
            index: frameworks.get(t.framework)!.findIndex((x) => x.id === t.id),
            toolComponent: { name: t.framework, index },
          },
          kinds: ['superset'],
        };
      }),
  };
}
