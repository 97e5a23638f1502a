// Declarative output parsing: an adapter says in YAML how its harness's stdout/stderr signal a denial, an
// error, a tool it does not offer, the end of the session, or a tool it ran. Plain lines are matched with
// a regex; JSON lines and a whole JSON document are selected by field values and read through paths, an
// array element by element with `each`. Rules are data, so a new harness needs no parser code, and one
// whose refusals appear only in its own output (opencode's `run` auto-rejecting an "ask") is still
// measured. The built-in adapters' own parsers are such rules (adapters/*/adapter.yaml); apply.ts runs them.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { HARNESS_EVENT_KINDS } from '../../evidence/types.js';
import { builtinAdaptersDir } from '../../paths.js';
import { regexSource } from '../../regex-source.js';
import { Template, templatePaths } from './template.js';

const regex = regexSource('i');
const Kind = z.enum(HARNESS_EVENT_KINDS);
const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** A test on one value; every operator given must hold. */
const Test = z
  .object({
    /** Any value but this one (a missing value too). */
    not: Scalar.optional(),
    /** One of these values. */
    in: z.array(Scalar).min(1).optional(),
    /** Present and not null (true), or missing or null (false). */
    exists: z.boolean().optional(),
    /** A regex on the value's text (case-insensitive unless the rule says `case_sensitive`). */
    match: regex.optional(),
  })
  .strict()
  .refine((t) => Object.keys(t).length > 0, {
    message:
      'a test needs one of not, in, exists, match ({exists: true}), or give the value itself (type: result)',
  });
export type Test = z.infer<typeof Test>;

/** Path → a value it must equal, or a test. */
const Conditions = z.record(z.string().min(1), z.union([Scalar, Test]));
export type Conditions = z.infer<typeof Conditions>;

/** Where a rule's tool name comes from. */
const ToolSource = z.union([
  /** A path. */
  z.string().min(1),
  /** A template (a fixed name is a template without placeholders: `{text: exec_command}`). */
  z.object({ text: Template }).strict(),
  /** The tool of the event recorded earlier with the same `id` (a result naming only its call's id). */
  z.object({ from_id: z.literal(true) }).strict(),
]);

/** Earlier events this rule looks for: of these kinds, with the same id (default) or the same tool. */
const Earlier = z.union([
  Kind.transform((k) => ({ kind: [k], same: 'id' as const })),
  z
    .array(Kind)
    .min(1)
    .transform((kind) => ({ kind, same: 'id' as const })),
  z
    .object({
      kind: z.union([Kind.transform((k) => [k]), z.array(Kind).min(1)]),
      same: z.enum(['id', 'tool']).default('id'),
    })
    .strict(),
]);

export const OutputRule = z
  .object({
    /** The event this rule records. */
    kind: Kind,
    stream: z.enum(['stdout', 'stderr', 'both']).default('both'),
    /**
     * `lines`: each line as text; `json`: each line that is a JSON object; `document`: the stream's last
     * top-level JSON object (pretty-printed over many lines, after any other output), read once.
     */
    format: z.enum(['lines', 'json', 'document']).default('lines'),
    /** json/document: a path to an array; the rule applies to each element (paths then read the element). */
    each: z.string().min(1).optional(),
    /** Conditions on paths (lines: on `match`'s named groups); a list means any one of them. */
    where: z.union([Conditions, z.array(Conditions).min(1)]).default({}),
    /** json/document: the path `match` reads and the text comes from (default: the whole item). */
    field: z.string().min(1).optional(),
    /** Regex (case-insensitive) on the line, or on the field; named groups are the paths of a lines rule. */
    match: regex.optional(),
    /** `match` and `where` regexes respect case. */
    case_sensitive: z.boolean().default(false),
    /** The tool: a path, `{text: TEMPLATE}` or `{from_id: true}`; lines: the group `tool` by default. */
    tool: ToolSource.optional(),
    /** A path whose value identifies the call the event is about, for `unless_seen` and `from_id`. */
    id: z.string().min(1).optional(),
    /**
     * A regex on the id's text for harnesses that decorate the call id they print (Gemini CLI prints
     * `read_file__<id>`): its group `id` (else the whole match) is the id; no match keeps the text.
     */
    id_match: regex.optional(),
    /** Record nothing when an event of this kind (these kinds) with the same id, or tool, came earlier. */
    unless_seen: Earlier.optional(),
    /** Replace the latest such earlier event with this one, in its place (a fuller report of the same call). */
    replaces: Earlier.optional(),
    /** The event's text, a template (default: the field's text, a lines rule's line, else the item's JSON). */
    text: Template.optional(),
    /** Let later rules see the same item as well (by default the first rule that matches an item wins). */
    continue: z.boolean().default(false),
  })
  .strict()
  .superRefine((r, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (r.format === 'lines') {
      if (r.match === undefined) issue('match', 'a `lines` rule needs `match` (a regex on the line)');
      for (const f of ['field', 'each'] as const)
        if (r[f] !== undefined) issue(f, `\`${f}\` reads JSON: give \`format: json\` (or document)`);
      lineGroupIssues(r, issue);
    }
    for (const f of ['unless_seen', 'replaces'] as const)
      if (r[f]?.same === 'id' && r.id === undefined)
        issue(f, `\`${f}\` compares ids: give \`id\` (the path of the call id), or say \`same: tool\``);
    if (r.id_match !== undefined && r.id === undefined)
      issue('id_match', '`id_match` reads the call id: give `id` (the path of the call id)');
    if (typeof r.tool === 'object' && 'from_id' in r.tool && r.id === undefined)
      issue('tool', '`tool: {from_id: true}` looks the tool up by id: give `id`');
  });
export type OutputRule = z.infer<typeof OutputRule>;

/** The named groups of a regex source. */
export const groupNames = (source: string): string[] =>
  [...source.matchAll(/\(\?<([A-Za-z_$][\w$]*)>/g)].map((m) => m[1]!);

/** A lines rule reads `match`'s named groups: every path it names must be one (or `$`, the line). */
function lineGroupIssues(r: OutputRule, issue: (path: string, message: string) => void): void {
  if (r.match === undefined) return;
  const groups = new Set([...groupNames(r.match), '$', '@']);
  const missing = (path: string) => !groups.has(path.split('.')[0]!);
  const say = (field: string, path: string) =>
    issue(
      field,
      `"${path}" is not a named group of \`match\`: in a lines rule paths name groups, (?<${path}>…), or $ for the line`,
    );
  const conditions = Array.isArray(r.where) ? r.where : [r.where];
  for (const c of conditions) for (const p of Object.keys(c)) if (missing(p)) say('where', p);
  if (typeof r.tool === 'string' && missing(r.tool)) say('tool', r.tool);
  if (typeof r.tool === 'object' && 'text' in r.tool)
    for (const p of templatePaths(r.tool.text)) if (missing(p)) say('tool', p);
  if (r.id !== undefined && missing(r.id)) say('id', r.id);
  for (const p of templatePaths(r.text ?? '')) if (missing(p)) say('text', p);
}

/** `none`, or the name of a built-in adapter (adapters/NAME/) whose output rules to use. */
const ParserName = z
  .string()
  .superRefine((name, ctx) => {
    if (!isParserName(name))
      ctx.addIssue({
        code: 'custom',
        message: `not a built-in adapter: use one of none, ${builtinNames().join(', ')} (its output rules are used), or write rules`,
      });
  })
  .describe('none, or a built-in adapter (adapters/NAME) whose output rules are used');

const builtinNames = (): string[] => {
  const dir = builtinAdaptersDir();
  return readdirSync(dir)
    .filter((n) => existsSync(join(dir, n, 'adapter.yaml')))
    .sort();
};

/** True when NAME is `none` or a built-in adapter. */
export function isParserName(name: string): boolean {
  return (
    name === 'none' ||
    (/^[a-z0-9][a-z0-9-]*$/.test(name) && existsSync(join(builtinAdaptersDir(), name, 'adapter.yaml')))
  );
}

/**
 * An adapter's `output:` (README, "Reading a harness's output"): a built-in adapter's name, or
 * `{parser, rules}`: that adapter's rules (default none) followed by these.
 */
export const Output = z
  .union([
    ParserName,
    z.object({ parser: ParserName.default('none'), rules: z.array(OutputRule).default([]) }).strict(),
  ])
  .default('none');
export type OutputSpec = z.infer<typeof Output>;
