// YAML files validated by a zod schema, with errors that name file, line and field. Shared by case and
// adapter files so both report mistakes the same way.
import { readFileSync } from 'node:fs';
import { isNode, LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { UserError } from './errors.js';

export interface Located<T> {
  value: T;
  /** Line of the document's first key (1-based). */
  line: number;
}

function fieldPath(path: PropertyKey[]): string {
  return (
    path
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
      .join('')
      .replace(/^\./, '') || '(top level)'
  );
}

/** The first line at or above `path` that exists in the document. */
function lineOf(doc: ReturnType<typeof parseDocument>, lc: LineCounter, path: PropertyKey[]): number {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n) as (string | number)[], true);
    if (isNode(node) && node.range) return lc.linePos(node.range[0]).line;
  }
  return 1;
}

export function parseYaml<S extends z.ZodTypeAny>(
  file: string,
  text: string,
  schema: S,
  what: string,
): Located<z.infer<S>> {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!;
    const line = err.linePos?.[0]?.line ?? 1;
    throw new UserError(
      `${file}:${line}: not valid YAML: ${err.message.split('\n')[0]}`,
      `fix the YAML syntax of this ${what}`,
    );
  }
  const raw = doc.toJS({ maxAliasCount: 100 });
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.slice(0, 5).map((issue) => {
      const line = lineOf(doc, lc, issue.path);
      return `${file}:${line}: ${fieldPath(issue.path)}: ${issue.message}`;
    });
    const more =
      parsed.error.issues.length > 5 ? `\n  (${parsed.error.issues.length - 5} more problems)` : '';
    throw new UserError(
      `invalid ${what}:\n  ${lines.join('\n  ')}${more}`,
      `correct the field(s) named above; the JSON Schema under schema/ gives every allowed field`,
    );
  }
  const first =
    doc.contents && isNode(doc.contents) && doc.contents.range ? lc.linePos(doc.contents.range[0]).line : 1;
  return { value: parsed.data, line: first };
}

export function readYaml<S extends z.ZodTypeAny>(file: string, schema: S, what: string): Located<z.infer<S>> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`${file}: cannot read ${what}: ${(e as Error).message}`, 'check the path');
  }
  return parseYaml(file, text, schema, what);
}
