// `harness-risk list cases|adapters|strategies|reviewers|taxonomy`: what is built in, one line each.
import { parseArgs } from 'node:util';
import { listBuiltinAdapters, loadAdapter } from '../adapters/load.js';
import { loadCases } from '../cases/load.js';
import { taxonomyOf } from '../cases/taxonomy.js';
import { STRATEGIES, STRATEGY_NAMES } from '../model/strategies/strategy-kinds.js';
import { REVIEWER_MODES, reviewerMode } from '../spec/reviewer-modes.js';
import { BUILTIN_TAXA } from '../spec/taxonomy.js';

export async function cmdList(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      cases: { type: 'string', multiple: true },
      taxonomy: { type: 'string', multiple: true },
    },
    allowPositionals: true,
  });
  if (positionals[0] === 'taxonomy') {
    for (const t of BUILTIN_TAXA) process.stdout.write(`${t.framework}\t${t.id}\t${t.name}\t${t.helpUri}\n`);
    return 0;
  }
  if (positionals[0] === 'strategies') {
    for (const name of STRATEGY_NAMES) process.stdout.write(`${name}\t${STRATEGIES[name].doc}\n`);
    return 0;
  }
  if (positionals[0] === 'reviewers') {
    // What the scripted model answers each built-in configuration's reviewer (docs/adapters.md's table).
    for (const name of listBuiltinAdapters())
      for (const [config, c] of Object.entries(loadAdapter(name).adapter.configs)) {
        const mode = reviewerMode(c);
        process.stdout.write(`${name}\t${config}\t${mode}\t${REVIEWER_MODES[mode]}\n`);
      }
    return 0;
  }
  if (positionals[0] === 'adapters') {
    for (const name of listBuiltinAdapters()) {
      const a = loadAdapter(name).adapter;
      process.stdout.write(`${name}\t${Object.keys(a.configs).join(', ')}\t${a.description}\n`);
    }
    return 0;
  }
  // --taxonomy ID is the taxonomy:ID selector, over the default selection when no --cases is given.
  const byTaxonomy = (values.taxonomy ?? []).map((id) => `taxonomy:${id}`);
  const selectors = values.cases ?? (byTaxonomy.length ? ['subset:standard'] : []);
  for (const lc of loadCases([...selectors, ...byTaxonomy])) {
    const c = lc.case;
    process.stdout.write(
      `${c.id}\t${c.phase}\t${c.entry_point}\t${c.effect}\t${c.tags.join(',')}\t${taxonomyOf(c).join(',')}\n`,
    );
  }
  return 0;
}
