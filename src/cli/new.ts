// `harness-risk new case|adapter`: write a commented starting file, never over an existing one.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { scaffoldAdapter } from '../adapters/scaffold.js';
import { scaffoldCase } from '../cases/scaffold.js';
import { defaultTaxonomy, resolveTaxonomy, sortTaxonomy, teamTaxaFor } from '../cases/taxonomy.js';
import { UserError } from '../errors.js';
import { writeOutputFile } from '../output-path.js';
import { EFFECTS, ENTRY_POINTS, PHASES } from '../spec/vocabulary.js';

function oneOf<T extends string>(flag: string, value: string | undefined, valid: readonly T[]): T {
  if (value === undefined)
    throw new UserError(`new case: ${flag} is required`, `use one of ${valid.join(', ')}`);
  if (!(valid as readonly string[]).includes(value))
    throw new UserError(`new case: ${flag} "${value}" is unknown`, `use one of ${valid.join(', ')}`);
  return value as T;
}

function writeNew(file: string, text: string): void {
  if (existsSync(file))
    throw new UserError(`${file} already exists`, 'choose another --id/NAME or --out, or delete the file');
  writeOutputFile(file, text, '--out');
}

const NAME = /^[a-z0-9][a-z0-9-]*$/;

/** `--taxonomy LLM01,ASI02,…`: ids of the built-in frameworks or of a taxonomy.yaml the new file will see. */
function taxonomyFlag(value: string, file: string): string[] {
  const ids = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!ids.length)
    throw new UserError(
      'new case: --taxonomy is empty',
      'give ids such as --taxonomy LLM01,ASI02,AML.T0051.001',
    );
  const { problems } = resolveTaxonomy(ids, teamTaxaFor(file));
  if (problems.length)
    throw new UserError(
      `new case: --taxonomy: ${problems.map((p) => p.message).join('; ')}`,
      'use ids `harness-risk list taxonomy` prints, or declare your own in a taxonomy.yaml (docs/cases.md#taxonomy)',
    );
  return sortTaxonomy(ids);
}

function cmdNewCase(argv: string[]): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      phase: { type: 'string' },
      'entry-point': { type: 'string' },
      effect: { type: 'string' },
      id: { type: 'string' },
      out: { type: 'string' },
      taxonomy: { type: 'string' },
    },
  });
  const phase = oneOf('--phase', values.phase, PHASES);
  const entry_point = oneOf('--entry-point', values['entry-point'], ENTRY_POINTS);
  const effect = oneOf('--effect', values.effect, EFFECTS);
  const id = values.id ?? `${phase}-${entry_point}-${effect}`.replaceAll('_', '-');
  if (!NAME.test(id))
    throw new UserError(
      `new case: --id "${id}" is not a case id`,
      'use lower-case letters, digits and dashes',
    );
  const file = join(values.out ?? join('cases', phase), `${id}.yaml`);
  const taxonomy = values.taxonomy === undefined ? undefined : taxonomyFlag(values.taxonomy, file);
  writeNew(
    file,
    scaffoldCase({
      id,
      phase,
      entry_point,
      effect,
      file: relative(process.cwd(), file),
      ...(taxonomy ? { taxonomy } : {}),
    }),
  );
  const ids = taxonomy ?? defaultTaxonomy({ phase, entry_point, effect });
  process.stdout.write(
    `wrote ${file}\ntaxonomy: ${ids.join(', ')}${taxonomy ? '' : ` (suggested from ${entry_point} → ${effect}; choose with --taxonomy ID,ID…)`}\nfill every line marked FILL, then: harness-risk validate --cases ${relative(process.cwd(), file)}\n`,
  );
  return 0;
}

function cmdNewAdapter(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { out: { type: 'string' } },
    allowPositionals: true,
  });
  const name = positionals[0];
  if (!name || !NAME.test(name))
    throw new UserError(
      `new adapter: ${name ? `"${name}" is not an adapter name` : 'NAME is required'}`,
      'harness-risk new adapter NAME (lower-case letters, digits and dashes, e.g. my-agent)',
    );
  const file = join(values.out ?? join('adapters', name), 'adapter.yaml');
  writeNew(file, scaffoldAdapter(name));
  process.stdout.write(
    `wrote ${file}\nfill every line marked FILL, then: harness-risk doctor --adapter ${relative(process.cwd(), join(file, '..'))} --config default\n`,
  );
  return 0;
}

export function cmdNew(argv: string[]): number {
  const [what, ...rest] = argv;
  if (what === 'case') return cmdNewCase(rest);
  if (what === 'adapter') return cmdNewAdapter(rest);
  throw new UserError(
    `new: "${what ?? ''}" is neither case nor adapter`,
    'harness-risk new case --phase P --entry-point E --effect F, or harness-risk new adapter NAME',
  );
}
