// `harness-risk list cases|adapters|strategies|reviewers|taxonomy`: what is built in, one line each.
import { parseArgs } from 'node:util';
import { listBuiltinAdapters, loadAdapter } from '../adapters/load.js';
import { loadCases } from '../cases/load.js';
import { taxonomyOf } from '../cases/taxonomy.js';
import { UserError } from '../errors.js';
import { STRATEGIES, STRATEGY_NAMES } from '../model/strategies/strategy-kinds.js';
import { REVIEWER_MODES, reviewerMode } from '../spec/reviewer-modes.js';
import { BUILTIN_TAXA } from '../spec/taxonomy.js';
import { didYouMean } from '../zod-issues.js';

const TOPICS = ['cases', 'taxonomy', 'adapters', 'strategies', 'reviewers'] as const;

export async function cmdList(argv: string[]): Promise<number> {
  // The topic is the first word; the rest parse as run's and validate's flags do (no positionals), so a
  // second word, or a glob the shell expanded into several files after --cases, is refused, not dropped.
  const topic = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : 'cases';
  if (!(TOPICS as readonly string[]).includes(topic))
    throw new UserError(
      `list: unknown topic "${topic}"${didYouMean(topic, TOPICS)}`,
      `list one of ${TOPICS.join(', ')} (default cases)`,
    );
  const { values } = parseArgs({
    args: topic === argv[0] ? argv.slice(1) : argv,
    options: {
      cases: { type: 'string', multiple: true },
      taxonomy: { type: 'string', multiple: true },
    },
  });
  if (topic === 'taxonomy') {
    for (const t of BUILTIN_TAXA) process.stdout.write(`${t.framework}\t${t.id}\t${t.name}\t${t.helpUri}\n`);
    return 0;
  }
  if (topic === 'strategies') {
    for (const name of STRATEGY_NAMES) process.stdout.write(`${name}\t${STRATEGIES[name].doc}\n`);
    return 0;
  }
  if (topic === 'reviewers') {
    // What the scripted model answers each built-in configuration's reviewer (docs/adapters.md's table).
    for (const name of listBuiltinAdapters())
      for (const [config, c] of Object.entries(loadAdapter(name).adapter.configs)) {
        const mode = reviewerMode(c);
        process.stdout.write(`${name}\t${config}\t${mode}\t${REVIEWER_MODES[mode]}\n`);
      }
    return 0;
  }
  if (topic === 'adapters') {
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
