// Writes the docs' reference tables from their sources, so they cannot drift by hand: the action's inputs
// and outputs from action.yml (docs/action.md) and the CLI reference from the CLI's own --help text
// (docs/cli.md), the taxonomy table from `harness-risk list taxonomy` (docs/cases.md) and the strategies
// table from `harness-risk list strategies` (docs/strategies.md; run `npm run build`
// first, both read dist/cli.js). Each table sits between marker comments
//   <!-- generated: NAME … -->  …  <!-- end generated: NAME -->
// and only what is between them is rewritten. test/docs-tables.test.ts fails when a page differs from
// what this script would write.
//   node scripts/docs-tables.mjs           rewrite the blocks
//   node scripts/docs-tables.mjs --check   exit 1 naming the stale blocks, write nothing
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** One line of a table cell: YAML folding may leave newlines; a `|` would end the cell. */
const cell = (s) =>
  String(s ?? '')
    .trim()
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|');

/** The inputs table and the outputs table of an action.yml's text, in the file's order. */
export function actionTables(actionYml) {
  const doc = parse(actionYml);
  const inputs = Object.entries(doc.inputs ?? {}).map(([name, spec]) => {
    const dflt = spec.default === undefined || spec.default === '' ? '' : `\`${cell(spec.default)}\``;
    return `| \`${name}\` | ${dflt} | ${cell(spec.description)} |`;
  });
  const outputs = Object.entries(doc.outputs ?? {}).map(
    ([name, spec]) => `| \`${name}\` | ${cell(spec.description)} |`,
  );
  return {
    'action-inputs': ['| input | default | what |', '|---|---|---|', ...inputs].join('\n'),
    'action-outputs': ['| output | what |', '|---|---|', ...outputs].join('\n'),
  };
}

// The help text names the version; a release bump must not make the reference stale.
const VERSIONED = /^harness-risk \d+\.\d+\.\d+\S*( — |\n|$)/;
const withoutVersion = (text) =>
  text.replace(VERSIONED, (_m, sep) => (sep === ' — ' ? 'harness-risk — ' : '')).replace(/^\n+/, '');

/** The commands the global usage lists (`  harness-risk CMD …` lines), each once, in its order. */
export function commandsOf(usage) {
  const cmds = [...usage.matchAll(/^ {2}harness-risk ([a-z][a-z-]*)/gm)].map((m) => m[1]);
  return [...new Set(cmds)];
}

/**
 * The CLI reference: the global usage, then each command's `--help`, verbatim but for the version.
 * `help(args)` returns what `harness-risk ARGS` prints.
 */
export function cliReference(help) {
  const usage = help(['--help']);
  const block = (title, text) =>
    [`### \`${title}\``, '', '```text', withoutVersion(text).trimEnd(), '```'].join('\n');
  return [
    block('harness-risk --help', usage),
    ...commandsOf(usage).map((cmd) => block(`harness-risk ${cmd} --help`, help([cmd, '--help']))),
  ].join('\n\n');
}

/** The rows of a tab-separated `list …` listing, each split into its fields. */
const tsvRows = (listing) =>
  listing
    .trim()
    .split('\n')
    .map((line) => line.split('\t'));

/** The taxonomy vocabulary as a table, from `harness-risk list taxonomy`'s lines (framework, id, name, page). */
export function taxonomyTable(listing) {
  const rows = tsvRows(listing).map(
    ([framework, id, name, page]) => `| \`${cell(framework)}\` | [${cell(id)}](${page}) | ${cell(name)} |`,
  );
  return ['| framework | id | name |', '|---|---|---|', ...rows].join('\n');
}

/** What the built CLI prints for `args` (dist/cli.js: the text users see). */
export const builtHelp = (args) =>
  execFileSync(process.execPath, [join(ROOT, 'dist/cli.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });

const START = (name) => new RegExp(`<!-- generated: ${name}\\b[^>]*-->\\n`);
const END = (name) => `<!-- end generated: ${name} -->`;

/** The text between a block's markers, or an error naming the page and the marker it lacks. */
export function blockIn(text, name, page = 'the page') {
  const start = START(name).exec(text);
  const end = text.indexOf(END(name));
  if (!start || end < start.index)
    throw new Error(
      `${page}: no "<!-- generated: ${name} … -->" … "${END(name)}" markers; add them where the table goes`,
    );
  return {
    from: start.index + start[0].length,
    to: end,
    body: text.slice(start.index + start[0].length, end),
  };
}

/** The page with each named block's body replaced by its generated text. */
export function fillBlocks(text, blocks, page) {
  let out = text;
  for (const [name, body] of Object.entries(blocks)) {
    const { from, to } = blockIn(out, name, page);
    out = `${out.slice(0, from)}${body}\n${out.slice(to)}`;
  }
  return out;
}

/** Names of the blocks whose body differs from the generated text. */
export const staleBlocks = (text, blocks, page) =>
  Object.entries(blocks)
    .filter(([name, body]) => blockIn(text, name, page).body !== `${body}\n`)
    .map(([name]) => name);

/**
 * What the scripted model answers each built-in configuration's reviewer, from `harness-risk list
 * reviewers` (ADAPTER, CONFIG, MODE, what the mode does): the modes used, then each adapter's
 * configurations by mode.
 */
export function reviewerTables(listing) {
  const rows = listing
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  const modes = new Map(rows.map(([, , mode, doc]) => [mode, doc]));
  const adapters = [...new Set(rows.map(([a]) => a))];
  const names = [...modes.keys()];
  const byAdapter = adapters.map((a) => {
    const configs = (mode) =>
      rows
        .filter(([x, , m]) => x === a && m === mode)
        .map(([, c]) => `\`${cell(c)}\``)
        .join(', ');
    return `| ${a} | ${names.map(configs).join(' | ')} |`;
  });
  return {
    'reviewer-modes': [
      '| reviewer | what the scripted model answers |',
      '|---|---|',
      ...names.map((m) => `| \`${m}\` | ${cell(modes.get(m))} |`),
    ].join('\n'),
    'reviewer-configs': [
      `| adapter | ${names.map((m) => `\`${m}\``).join(' | ')} |`,
      `|---|${names.map(() => '---').join('|')}|`,
      ...byAdapter,
    ].join('\n'),
  };
}

/** The strategies table, from `harness-risk list strategies`'s lines (name, what it does). */
export function strategyTable(listing) {
  const rows = tsvRows(listing).map(([name, doc]) => `| \`${cell(name)}\` | ${cell(doc)} |`);
  return ['| strategy | what the adversary does |', '|---|---|', ...rows].join('\n');
}

/** Every generated block, by the docs page that holds it. */
export function docBlocks(help = builtHelp) {
  return {
    'docs/action.md': actionTables(readFileSync(join(ROOT, 'action.yml'), 'utf8')),
    'docs/cli.md': { 'cli-reference': cliReference(help) },
    'docs/adapters.md': reviewerTables(help(['list', 'reviewers'])),
    'docs/cases.md': { taxonomy: taxonomyTable(help(['list', 'taxonomy'])) },
    'docs/strategies.md': { strategies: strategyTable(help(['list', 'strategies'])) },
  };
}

function main(argv) {
  const check = argv.includes('--check');
  let stale = 0;
  for (const [page, blocks] of Object.entries(docBlocks())) {
    const file = join(ROOT, page);
    const text = readFileSync(file, 'utf8');
    if (check) {
      for (const name of staleBlocks(text, blocks, page)) {
        console.error(`${page}: block "${name}" is stale: run node scripts/docs-tables.mjs`);
        stale++;
      }
    } else {
      const next = fillBlocks(text, blocks, page);
      if (next !== text) writeFileSync(file, next);
      console.log(`${page}: ${next === text ? 'current' : 'rewritten'}`);
    }
  }
  return stale ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  process.exitCode = main(process.argv);
