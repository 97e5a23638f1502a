// The import graph of src/: no cycles, every import goes down the layer order below, and every name is
// imported from the module that defines it (no re-exports). The order is written here once;
// docs/internals.md quotes it (the last test keeps the two in step).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Folders of src/, lowest first; a module may import only from its own folder or a lower one. Folders in
 * one entry are peers: neither imports the other. `(root)` is the small utilities directly in src/
 * (errors, paths, yaml-file, …); src/cli.ts is the CLI's entry point and belongs to `cli`.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['(root)'],
  ['spec'], // the shared vocabulary: phases, effects, outcomes, actions, service catalog, the result schema
  ['evidence'], // what a trial recorded; the check kinds read it
  ['checks'], // the check-kind registry the case schema embeds
  ['cases'],
  ['adapters'],
  ['world'],
  ['runner'],
  ['model'],
  ['score'],
  ['result'],
  ['compare'],
  ['gate'],
  ['report'],
  ['engine'],
  ['baseline'], // where a baseline comes from: sources, the base tree run through the engine, resolution
  ['matrix'],
  ['front'], // what the two front ends share: input parsing, the job's secret mask
  ['action', 'cli'],
];

const SRC = resolve('src');

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [relative(SRC, p)] : [];
  });
}

/** The src/ files `file` imports (static, dynamic, type-only and `export … from`), relative to src/. */
function importsOf(file: string, text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles
    .map((i) => i.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => relative(SRC, resolve(SRC, dirname(file), spec.replace(/\.js$/, '.ts'))))
    .filter((target) => target.endsWith('.ts') && existsSync(join(SRC, target)));
}

/** The folder a file belongs to for the layer rule. */
const folderOf = (file: string): string =>
  file === 'cli.ts' ? 'cli' : file.includes('/') ? file.split('/')[0] : '(root)';

const rankOf = (folder: string): number => LAYERS.findIndex((l) => l.includes(folder));

/** Imports that go up the order, or sideways between peers: `from -> to`. */
function upwardImports(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [from, tos] of graph)
    for (const to of tos) {
      const [a, b] = [folderOf(from), folderOf(to)];
      if (a !== b && rankOf(a) <= rankOf(b)) out.push(`${from} -> ${to} (${a} may not import ${b})`);
    }
  return out;
}

/** Strongly connected components with more than one file, or a file that imports itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || graph.get(v)?.includes(v)) out.push(scc.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** `export … from` and exports of imported bindings: a name must be imported from where it is defined. */
function reexports(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const imported = new Set<string>();
  for (const s of sf.statements) {
    const clause = ts.isImportDeclaration(s) ? s.importClause : undefined;
    if (clause?.name) imported.add(clause.name.text);
    const nb = clause?.namedBindings;
    if (nb && ts.isNamedImports(nb)) for (const e of nb.elements) imported.add(e.name.text);
    if (nb && ts.isNamespaceImport(nb)) imported.add(nb.name.text);
  }
  const out: string[] = [];
  for (const s of sf.statements) {
    if (!ts.isExportDeclaration(s)) continue;
    if (s.moduleSpecifier) out.push(`${file}: ${s.getText(sf).split('\n')[0]}`);
    else if (s.exportClause && ts.isNamedExports(s.exportClause))
      for (const e of s.exportClause.elements)
        if (imported.has((e.propertyName ?? e.name).text)) out.push(`${file}: re-exports ${e.name.text}`);
  }
  return out;
}

const files = sourceFiles();
const texts = new Map(files.map((f) => [f, readFileSync(join(SRC, f), 'utf8')]));
const graph = new Map(files.map((f) => [f, importsOf(f, texts.get(f)!)]));

describe('architecture: the import graph of src/', () => {
  it('puts every folder of src/ in the layer order', () => {
    const unknown = [...new Set(files.map(folderOf))].filter((f) => rankOf(f) < 0);
    expect(unknown, 'add these folders to LAYERS in test/architecture.test.ts').toEqual([]);
  });

  it('has no import from a lower layer to a higher one, nor between peers', () => {
    expect(upwardImports(graph), 'move the shared code down, or import from below').toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('imports every name from the module that defines it (no export *, no re-export)', () => {
    const found = files.flatMap((f) => reexports(f, texts.get(f)!));
    expect(found).toEqual([]);
  });

  it('finds what it looks for (an upward import, a cycle, a re-export)', () => {
    const g = new Map([
      ['spec/a.ts', ['cases/b.ts']],
      ['cases/b.ts', ['spec/a.ts']],
      ['cli/c.ts', ['action/d.ts']],
      ['action/d.ts', []],
    ]);
    expect(upwardImports(g)).toEqual([
      'spec/a.ts -> cases/b.ts (spec may not import cases)',
      'cli/c.ts -> action/d.ts (cli may not import action)',
    ]);
    expect(cycles(g)).toEqual([['cases/b.ts', 'spec/a.ts']]);
    expect(importsOf('cases/x.ts', "import type { A } from '../errors.js';")).toEqual(['errors.ts']);
    expect(folderOf('cli.ts')).toBe('cli');
    expect(folderOf('errors.ts')).toBe('(root)');
    expect(reexports('x.ts', "export * from './y.js';")).toEqual(["x.ts: export * from './y.js';"]);
    expect(reexports('x.ts', "import { a } from './y.js';\nexport { a };")).toEqual(['x.ts: re-exports a']);
  });

  it('docs/internals.md quotes the layer order', () => {
    const line = LAYERS.map((l) => l.join(' | ')).join(' < ');
    expect(readFileSync('docs/internals.md', 'utf8')).toContain(line);
  });
});
