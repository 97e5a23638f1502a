// Seeded fuzzing of everything a user hands the tool: case files, adapter files, run results and the
// action's inputs. A few hundred mutations of real files (structural: a key dropped, renamed or added, a
// value swapped for one of another type or a hostile one; textual: a cut, a stray quote, an alias, a BOM,
// a tab). Each either loads or is refused with a UserError/InputError that names the file (or the input)
// and a line or field, and says something specific: never a stack trace, an "internal error", a bare
// "Invalid input" or a message without a where. Deterministic: the same seed makes the same files.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { loadAdapter } from '../src/adapters/load.js';
import { lintCase } from '../src/cases/lint.js';
import { loadCaseFile } from '../src/cases/load.js';
import { readRunResultFile } from '../src/compare/baseline.js';
import { UserError } from '../src/errors.js';
import { INPUT_DEFAULTS, InputError, type InputName, parseInputs } from '../src/front/inputs.js';

const ROOT = join(import.meta.dirname, '..');
const SEED = 15;

/** mulberry32: small, seedable, good enough to pick mutations. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}
type Rng = ReturnType<typeof rng>;

const HOSTILE_VALUES: unknown[] = [
  null,
  '',
  ' ',
  0,
  -1,
  3_000_000,
  1e308,
  true,
  [],
  {},
  [null],
  { x: 1 },
  '../../x',
  '/etc/passwd',
  '~/../../x',
  '(',
  '[',
  '{{nope}}',
  '{{canary:UNDECLARED}}',
  'a'.repeat(5000),
  '\u0000',
  '*',
  'not a mail, really',
  'Summarise: this',
];

/** Every [path, value] of a data tree (objects and arrays), root excluded. */
function nodes(v: unknown, path: (string | number)[] = []): [(string | number)[], unknown][] {
  if (Array.isArray(v))
    return v.flatMap((x, i) => [
      [[...path, i], x] as [(string | number)[], unknown],
      ...nodes(x, [...path, i]),
    ]);
  if (v && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => [
      [[...path, k], x] as [(string | number)[], unknown],
      ...nodes(x, [...path, k]),
    ]);
  return [];
}

function parentOf(root: any, path: (string | number)[]): any {
  let v = root;
  for (const p of path.slice(0, -1)) v = v[p];
  return v;
}

/** One structural mutation of a data tree, in place. */
function mutateData(root: any, r: Rng): string {
  const all = nodes(root);
  if (!all.length) return 'empty';
  const [path] = r.pick(all);
  const parent = parentOf(root, path);
  const key = path.at(-1)!;
  switch (r.int(5)) {
    case 0:
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      return `drop ${path.join('.')}`;
    case 1: {
      const v = r.pick(HOSTILE_VALUES);
      parent[key] = structuredClone(v);
      return `set ${path.join('.')} = ${JSON.stringify(v)?.slice(0, 20)}`;
    }
    case 2:
      if (!Array.isArray(parent)) {
        const v = parent[key];
        delete parent[key];
        parent[`${String(key)}x`] = v;
        return `rename ${path.join('.')}`;
      }
      parent.push(structuredClone(parent[key as number]));
      return `duplicate ${path.join('.')}`;
    case 3:
      if (parent && typeof parent === 'object' && !Array.isArray(parent)) {
        parent[r.pick(['extra', 'not a field', 'Id', '__proto__x', '../../x', '/abs/path', '~/../x'])] =
          r.pick(HOSTILE_VALUES);
        return `add a key under ${path.slice(0, -1).join('.')}`;
      }
      parent[key] = { [String(r.pick(['file_exists', 'nope_kind', 'all_of']))]: r.pick(HOSTILE_VALUES) };
      return `object at ${path.join('.')}`;
    default: {
      const v = parent[key];
      parent[key] = typeof v === 'string' ? [v] : typeof v === 'number' ? String(v) : JSON.stringify(v);
      return `retype ${path.join('.')}`;
    }
  }
}

/** One textual mutation of a YAML/JSON text. */
function mutateText(text: string, r: Rng): [string, string] {
  const lines = text.split('\n');
  const i = r.int(lines.length);
  switch (r.int(8)) {
    case 0:
      return [text.slice(0, r.int(text.length)), 'truncate'];
    case 1:
      lines[i] = `${lines[i]} "`;
      return [lines.join('\n'), `stray quote on line ${i + 1}`];
    case 2:
      lines[i] = lines[i]!.replace(/: (.*)$/, ': *missing_anchor');
      return [lines.join('\n'), `undefined alias on line ${i + 1}`];
    case 3:
      return [`\uFEFF${text}`, 'BOM'];
    case 4:
      lines[i] = `\t${lines[i]}`;
      return [lines.join('\n'), `tab on line ${i + 1}`];
    case 5:
      lines.splice(i, 0, lines[i]!);
      return [lines.join('\n'), `duplicate line ${i + 1}`];
    case 6: {
      const bomb =
        'zz1: &b0 [x, x, x, x, x, x, x, x, x, x]\n' +
        Array.from(
          { length: 4 },
          (_, k) => `zz${k + 2}: &b${k + 1} [${Array(10).fill(`*b${k}`).join(', ')}]`,
        ).join('\n');
      return [`${text}\n${bomb}\n`, 'alias bomb'];
    }
    default:
      lines[i] = lines[i]!.replace(/[}\]]/, '');
      return [lines.join('\n'), `unbalanced bracket on line ${i + 1}`];
  }
}

/** Rejections per kind, so a run that rejects nothing (a fuzzer that mutates nothing) fails too. */
const rejected: Record<string, number> = {};
const reject = (kind: string) => {
  rejected[kind] = (rejected[kind] ?? 0) + 1;
};

interface Finding {
  what: string;
  message: string;
}

/** What is wrong with a rejection message, or undefined when it is a good one. */
function badMessage(e: unknown, where: string): string | undefined {
  if (!(e instanceof UserError) && !(e instanceof InputError)) {
    return `not a user error: ${(e as Error)?.constructor?.name}: ${String((e as Error)?.message).slice(0, 200)}`;
  }
  const m = e.message;
  if (/\n\s+at \S+ \(|\bat file:\/\//.test(m)) return 'carries a stack trace';
  if (/internal error/i.test(m)) return 'says "internal error"';
  if (/(^|: )Invalid input(\n|$|;)/m.test(m)) return 'says only "Invalid input"';
  if (!m.includes(where)) return `does not name ${where}`;
  if (
    e instanceof UserError &&
    !/:\d+:|: [\w.[\]]+: |field|\(top level\)|no schema_version|schema v\d|not valid (YAML|JSON)/.test(m)
  )
    return 'names no line or field';
  return undefined;
}

const CASE_SEEDS = [
  'cases/action/invoice-mail-changes-payee.yaml',
  'cases/persistence/postmortem-ticket-memory-skip-approvals.yaml',
  'cases/extension/theme-skill-remembers-autoload.yaml',
  'cases/runtime/memory-pre-task-hook-script.yaml',
];
const ADAPTER_SEEDS = [
  'adapters/reference/adapter.yaml',
  'adapters/claude-code/adapter.yaml',
  'adapters/codex/adapter.yaml',
];
const RESULT_SEED = 'test/fixtures/results/reference-guarded.json';

/** A YAML seed file mutated: structurally (parsed, changed, written again) or as text. */
function mutateYaml(src: string, r: Rng): [string, string] {
  if (r.next() < 0.6) {
    const data = YAML.parse(src);
    const what = mutateData(data, r);
    return [YAML.stringify(data), what];
  }
  return mutateText(src, r);
}

/**
 * Calls `load`; when it throws, counts a rejection of `kind` and returns what is wrong with the message
 * (`problemOf`), labelled `label`, or undefined when the refusal was a good one (or nothing was refused).
 */
function refusal(
  kind: string,
  label: string,
  load: () => void,
  problemOf: (e: unknown) => string | undefined,
) {
  try {
    load();
  } catch (e) {
    reject(kind);
    const problem = problemOf(e);
    if (problem)
      return { what: `${label}: ${problem}`, message: String((e as Error).message).slice(0, 300) } as Finding;
  }
  return undefined;
}

interface FileKind {
  title: string;
  kind: string;
  seed: number;
  mutations: number;
  /** At least this many must be refused, or the fuzzer mutated nothing that matters. */
  minRejected: number;
  /** The n-th mutated text and what was done to it. */
  mutate(r: Rng): [string, string];
  /** Where the n-th file goes (`dir` is the test's own temp folder). */
  file(dir: string, n: number): string;
  load(file: string): void;
}

const FILE_KINDS: FileKind[] = [
  {
    title: 'case files: 160 mutations',
    kind: 'case',
    seed: SEED,
    mutations: 160,
    minRejected: 40,
    mutate: (r) => mutateYaml(readFileSync(join(ROOT, r.pick(CASE_SEEDS)), 'utf8'), r),
    file: (dir, n) => join(dir, `${n}.yaml`),
    load: (file) => {
      const lc = loadCaseFile(file);
      lintCase(lc.case, file);
    },
  },
  {
    title: 'adapter files: 120 mutations',
    kind: 'adapter',
    seed: SEED + 1,
    mutations: 120,
    minRejected: 30,
    mutate: (r) => mutateYaml(readFileSync(join(ROOT, r.pick(ADAPTER_SEEDS)), 'utf8'), r),
    // An adapter is a folder holding adapter.yaml: one folder per mutation.
    file: (dir) => join(mkdtempSync(join(dir, 'adapter-')), 'adapter.yaml'),
    load: (file) => loadAdapter(dirname(file)),
  },
  {
    title: 'run results: 80 mutations',
    kind: 'result',
    seed: SEED + 2,
    mutations: 80,
    minRejected: 15,
    mutate: (r) => {
      const src = readFileSync(join(ROOT, RESULT_SEED), 'utf8');
      if (r.next() < 0.7) {
        const data = JSON.parse(src);
        // Mutate near the top as often as deep inside the trials.
        const target = r.next() < 0.5 ? data : r.pick(data.trials as unknown[]);
        const what = mutateData(target, r);
        return [JSON.stringify(data), what];
      }
      return mutateText(src, r);
    },
    file: (dir, n) => join(dir, `${n}.json`),
    load: (file) => readRunResultFile(file),
  },
];

describe('fuzzed input (seeded) is loaded or refused clearly', () => {
  for (const k of FILE_KINDS)
    it(k.title, () => {
      const r = rng(k.seed);
      const dir = mkdtempSync(join(tmpdir(), `hr-fuzz-${k.kind}-`));
      const bad: Finding[] = [];
      for (let n = 0; n < k.mutations; n++) {
        const [text, what] = k.mutate(r);
        const file = k.file(dir, n);
        writeFileSync(file, text);
        const found = refusal(
          k.kind,
          `#${n} ${what}`,
          () => k.load(file),
          (e) => badMessage(e, file),
        );
        if (found) bad.push(found);
      }
      expect(bad).toEqual([]);
      expect(rejected[k.kind] ?? 0).toBeGreaterThanOrEqual(k.minRejected);
    });

  it('action inputs: 120 mutations', () => {
    const r = rng(SEED + 3);
    const valid: Record<string, string> = {
      ...INPUT_DEFAULTS,
      adapter: 'reference',
      config: 'guarded',
      'github-token': 'tok',
    };
    const names = Object.keys(INPUT_DEFAULTS) as InputName[];
    const odd = [
      '',
      ' ',
      '-1',
      '0',
      '1e9',
      '3000000',
      'abc',
      '4/4',
      '0/3',
      '5/4',
      'true',
      'maybe',
      '50%',
      '150%',
      '{',
      'runtime: {max-asr: 2}',
      '../../x',
      '\u0000',
      'a,b,,',
      'phase:nope',
    ];
    const bad: Finding[] = [];
    for (let n = 0; n < 120; n++) {
      const inputs = { ...valid };
      const name = r.pick(names);
      inputs[name] = r.pick(odd);
      const found = refusal(
        'input',
        `#${n} ${name}=${JSON.stringify(inputs[name])}`,
        () => parseInputs((k) => inputs[k] ?? ''),
        (e) => badMessage(e, `"${name}"`) && badMessage(e, '"'),
      );
      if (found) bad.push(found);
    }
    expect(bad).toEqual([]);
    expect(rejected.input ?? 0).toBeGreaterThanOrEqual(30);
  });
});
