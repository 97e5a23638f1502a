// The docs' reference tables are generated (scripts/docs-tables.mjs): the action's inputs and outputs from
// action.yml (docs/action.md) and the CLI reference from the built CLI's --help (docs/cli.md). A page that
// differs from what the script writes fails here, the way docs/cases.md's check-kind table is pinned
// (test/score-check-kinds.test.ts). Fix: `npm run build && node scripts/docs-tables.mjs`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  actionTables,
  blockIn,
  builtHelp,
  cliReference,
  commandsOf,
  docBlocks,
  fillBlocks,
  staleBlocks,
  // @ts-expect-error: a plain ES module of the scripts, without types
} from '../scripts/docs-tables.mjs';

const ROOT = join(import.meta.dirname, '..');
const read = (f: string) => readFileSync(join(ROOT, f), 'utf8');
const actionYml = read('action.yml');
const rowNames = (table: string) => [...table.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]);

describe('generated docs tables', () => {
  // Each help text is one node start-up of the built CLI: run each once for every test below.
  const seen = new Map<string, string>();
  const help = (args: string[]): string => {
    const key = args.join(' ');
    if (!seen.has(key)) seen.set(key, builtHelp(args));
    return seen.get(key)!;
  };
  const blocks: Record<string, Record<string, string>> = docBlocks(help);

  it.each(Object.keys(blocks))('%s carries its tables as generated', (page) => {
    const stale = staleBlocks(read(page), blocks[page], page);
    expect(stale, `${page}: run npm run build && node scripts/docs-tables.mjs`).toEqual([]);
  });

  it('the inputs and outputs tables name every input and output of action.yml, in its order', () => {
    const spec = parse(actionYml) as { inputs: object; outputs: object };
    const docs = read('docs/action.md');
    expect(rowNames(blockIn(docs, 'action-inputs').body)).toEqual(Object.keys(spec.inputs));
    expect(rowNames(blockIn(docs, 'action-outputs').body)).toEqual(Object.keys(spec.outputs));
  });

  it('an input action.yml gains makes the docs table stale, naming the block', () => {
    const grown = actionYml.replace(
      /^outputs:/m,
      `  brand-new:\n    description: An input the docs do not have yet.\n    required: false\n    default: 'x'\n\noutputs:`,
    );
    const tables = actionTables(grown);
    expect(rowNames(tables['action-inputs'])).toContain('brand-new');
    expect(staleBlocks(read('docs/action.md'), tables, 'docs/action.md')).toEqual(['action-inputs']);
    // …and writing the tables makes the page current again.
    const fixed = fillBlocks(read('docs/action.md'), tables, 'docs/action.md');
    expect(staleBlocks(fixed, tables, 'docs/action.md')).toEqual([]);
    expect(fixed).toContain('| `brand-new` | `x` | An input the docs do not have yet. |');
  });

  it('a CLI help text that changed makes the docs reference stale', () => {
    const changed = cliReference((args: string[]) =>
      args[0] === 'doctor' ? `${help(args)}  --new-flag   a flag the docs lack\n` : help(args),
    );
    expect(staleBlocks(read('docs/cli.md'), { 'cli-reference': changed }, 'docs/cli.md')).toEqual([
      'cli-reference',
    ]);
  });

  it('the CLI reference has every command the global usage lists, without the version', () => {
    const usage = help(['--help']);
    const cmds = commandsOf(usage);
    expect(cmds).toEqual(expect.arrayContaining(['run', 'compare', 'matrix', 'validate', 'doctor']));
    const ref = blockIn(read('docs/cli.md'), 'cli-reference').body;
    for (const cmd of cmds) expect(ref).toContain(`### \`harness-risk ${cmd} --help\``);
    expect(ref).not.toMatch(/harness-risk \d+\.\d+\.\d+/);
  });

  it('cells keep one line and escape the pipe', () => {
    const { 'action-inputs': t } = actionTables(
      'inputs:\n  a:\n    description: |\n      one | two\n      three\n    default: ""\noutputs: {}\n',
    );
    expect(t.split('\n')[2]).toBe('| `a` |  | one \\| two three |');
  });

  it('a page without the markers is an error naming the page and the block', () => {
    expect(() => fillBlocks('# nothing here\n', { 'cli-reference': 'x' }, 'docs/cli.md')).toThrow(
      /docs\/cli\.md: no "<!-- generated: cli-reference/,
    );
  });
});
