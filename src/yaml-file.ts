// YAML files validated by a zod schema, with errors that name file, line and field. Shared by case and
// adapter files so both report mistakes the same way.
import { readFileSync } from 'node:fs';
import { isNode, LineCounter, parseDocument, visit } from 'yaml';
import type { z } from 'zod';
import { UserError } from './errors.js';
import { issueMessage } from './zod-issues.js';

// unwrapUnions keeps zod's issue objects (it only rewrites their paths), so they are still zod issues.
type ZodIssue = Parameters<typeof issueMessage>[0];

export interface Located<T> {
  value: T;
  /** Line of the document's first key (1-based). */
  line: number;
}

export function fieldPath(path: PropertyKey[]): string {
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

/** A `key: value` line whose value holds another `: ` (e.g. `text: Note: done`), or a flow item that does. */
const COLON_IN_VALUE = /(^\s*|[{,[]\s*|-\s+)[\w"'.-]+:\s+[^"'\s{[][^#,]*?:(\s|$)/;

/**
 * The likely cause of a YAML syntax error, when it is quoting: an unquoted `: ` inside a value makes YAML
 * read a nested mapping ("Nested mappings are not allowed in compact mappings"), which says nothing about
 * the string the author meant.
 */
export function yamlSyntaxHint(code: string, lineText: string): string | undefined {
  const nested = ['BLOCK_AS_IMPLICIT_KEY', 'BLOCK_IN_FLOW', 'MULTILINE_IMPLICIT_KEY', 'MISSING_CHAR'];
  if (nested.includes(code) && COLON_IN_VALUE.test(lineText))
    return `the value on this line holds an unquoted ": ", which YAML reads as a nested mapping: quote the whole string (text: "Note: done")`;
  return undefined;
}

/**
 * Keys YAML made out of a string cut at an unquoted comma: in a flow mapping `{text: Done, not a mail}`
 * the part after the comma becomes a key with no value. A key with a space and a null value is that,
 * far more often than a misspelled field, so the hint is to quote, not to read the schema.
 */
export function cutAtCommaKeys(keys: string[], at: unknown): string[] {
  if (!at || typeof at !== 'object') return [];
  return keys.filter((k) => /\s/.test(k) && (at as Record<string, unknown>)[k] === null);
}

/**
 * A string YAML read as a mapping: `- Summarise README.md: one sentence.` is `{"Summarise README.md": …}`
 * to YAML, so a schema that wants a string sees a one-key object. Quoting is the fix, not the schema.
 */
export function colonMadeMapping(issue: { code: string; expected?: unknown }, at: unknown): boolean {
  return (
    issue.code === 'invalid_type' &&
    issue.expected === 'string' &&
    !!at &&
    typeof at === 'object' &&
    !Array.isArray(at) &&
    Object.keys(at).length === 1
  );
}

const QUOTE_COLON =
  'an unquoted ": " inside the string made YAML read a mapping; quote the whole value ("Summarise README.md: one sentence.")';

const QUOTE_COMMA =
  'an unquoted comma inside {…} or […] ends the string there; quote the whole value (text: "Done, not a mail")';

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  expected?: unknown;
  errors?: Issue[][];
}

/**
 * A union's "Invalid input" replaced by the problems of the one alternative the value was meant for (the
 * one that did not fail on the value's type at its root): `audit: [rule, …]` with a bad rule reports that
 * rule's field, not that the list is not the other form.
 */
export function unwrapUnions(issues: Issue[]): Issue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union' || !issue.errors) return [issue];
    const meant = issue.errors.filter(
      (branch) => !branch.some((b) => b.code === 'invalid_type' && b.path.length === 0),
    );
    if (meant.length !== 1) return [issue];
    return unwrapUnions(meant[0]!.map((b) => ({ ...b, path: [...issue.path, ...b.path] })));
  });
}

function valueAt(raw: unknown, path: PropertyKey[]): unknown {
  let v = raw;
  for (const p of path) v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}

/**
 * Line finder over a YAML text, for findings made after parsing (lint): the first line at or above the
 * field that exists in the document, 1 when the text does not parse.
 */
export function lineLocator(text: string): (path: PropertyKey[]) => number {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  return (path) => lineOf(doc, lc, path);
}

/**
 * Aliases expanded when a document becomes data; more is an alias bomb (a few lines that expand to
 * millions of nodes). Generous: a file that reuses one anchor a few hundred times still loads.
 */
export const MAX_ALIAS_COUNT = 1000;

/** The line of the first alias (`*name`, or any alias without a name). */
function aliasLine(doc: ReturnType<typeof parseDocument>, lc: LineCounter, name?: string): number {
  let line = 1;
  visit(doc, {
    Alias(_key, node) {
      if (name !== undefined && node.source !== name) return undefined;
      if (node.range) line = lc.linePos(node.range[0]).line;
      return visit.BREAK;
    },
  });
  return line;
}

/**
 * The document as data. The yaml library throws a ReferenceError for an undefined alias and for an alias
 * bomb; both are mistakes in the file, reported as YAML errors with the file and line.
 */
function toJs(doc: ReturnType<typeof parseDocument>, lc: LineCounter, file: string, what: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    const message = (e as Error).message ?? String(e);
    const unresolved = /Unresolved alias[^:]*: (.*)$/.exec(message);
    if (unresolved) {
      const name = unresolved[1]!.trim();
      throw new UserError(
        `${file}:${aliasLine(doc, lc, name)}: not valid YAML: the alias *${name} has no anchor &${name} before it`,
        `define &${name} on an earlier value, or quote the string if the * is meant literally ("*${name}")`,
      );
    }
    if (/alias count/i.test(message)) {
      throw new UserError(
        `${file}:${aliasLine(doc, lc)}: not valid YAML: the aliases (*name) expand to more than ${MAX_ALIAS_COUNT} nodes`,
        `write the repeated values out, or reuse an anchor fewer times in this ${what}`,
      );
    }
    throw new UserError(
      `${file}: not valid YAML: ${message.split('\n')[0]}`,
      `fix the YAML syntax of this ${what}`,
    );
  }
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
      yamlSyntaxHint(err.code, text.split('\n')[line - 1] ?? '') ?? `fix the YAML syntax of this ${what}`,
    );
  }
  const raw = toJs(doc, lc, file, what);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    let quoting = false;
    const issues = unwrapUnions(parsed.error.issues as Issue[]);
    const lines = issues.slice(0, 5).map((issue) => {
      const line = lineOf(doc, lc, issue.path);
      const cut =
        issue.code === 'unrecognized_keys' ? cutAtCommaKeys(issue.keys ?? [], valueAt(raw, issue.path)) : [];
      const colon = colonMadeMapping(issue, valueAt(raw, issue.path));
      quoting ||= cut.length > 0 || colon;
      const why = cut.length
        ? ` (${cut.map((k) => `"${k}"`).join(', ')}: ${QUOTE_COMMA})`
        : colon
          ? ` (${QUOTE_COLON})`
          : '';
      return `${file}:${line}: ${fieldPath(issue.path)}: ${issueMessage(issue as unknown as ZodIssue, valueAt(raw, issue.path), cut.length ? undefined : schema)}${why}`;
    });
    const more = issues.length > 5 ? `\n  (${issues.length - 5} more problems)` : '';
    throw new UserError(
      `invalid ${what}:\n  ${lines.join('\n  ')}${more}`,
      quoting
        ? 'quote the string named above; a comma or ": " inside an unquoted value splits it'
        : `correct the field(s) named above; the JSON Schema under schema/ gives every allowed field`,
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
