// `harness-risk coverage` (phase and entry point × effect tables of the selected cases) and
// `harness-risk schema` (the JSON Schemas derived from the zod schemas).
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { coverage, coverageMarkdown } from '../cases/coverage.js';
import { loadCases } from '../cases/load.js';
import { checkOutputPath, makeOutputDir, writeOutputFile } from '../output-path.js';
import { jsonSchemas } from './json-schemas.js';

export async function cmdCoverage(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      cases: { type: 'string', multiple: true },
      json: { type: 'string' },
      markdown: { type: 'string' },
    },
  });
  if (values.json) checkOutputPath(values.json, '--json');
  if (values.markdown) checkOutputPath(values.markdown, '--markdown');
  const cov = coverage(loadCases(values.cases ?? ['subset:full']));
  const md = coverageMarkdown(cov);
  if (values.json) writeOutputFile(values.json, `${JSON.stringify(cov, null, 2)}\n`, '--json');
  if (values.markdown) writeOutputFile(values.markdown, md, '--markdown');
  process.stdout.write(md);
  return 0;
}

export async function cmdSchema(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { out: { type: 'string', default: 'schema' } } });
  makeOutputDir(values.out!, '--out');
  const files = jsonSchemas();
  for (const [name, text] of Object.entries(files)) writeOutputFile(join(values.out!, name), text, '--out');
  process.stdout.write(`wrote ${Object.keys(files).length} JSON Schemas to ${values.out}/\n`);
  return 0;
}
