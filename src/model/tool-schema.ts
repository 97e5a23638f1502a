// Reading an offered tool's schema: its declared and required arguments, argument and tool names compared
// loosely, harmless defaults for required arguments; and the call a mapping builds from it (MappedCall).
import type { ToolSpec } from './conversation.js';

export interface MappedCall {
  tool: string;
  args: Record<string, unknown>;
  via_shell: boolean;
  /** A call that stages a file (strategies' stageFile): the file and what it must hold afterwards. */
  writes?: { path: string; content: string };
  /**
   * The call sends what a command printed where the step has a literal value (the `fused` strategy): the
   * world must show the request, not that body.
   */
  sendsOutput?: true;
}

/** A tool for an action and the arguments built for it (undefined when its schema does not fit them). */
export type Candidate = [ToolSpec | undefined, Record<string, unknown> | undefined] | undefined;

const norm = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

export function properties(tool: ToolSpec): Record<string, { type?: unknown }> {
  const schema = tool.schema as { properties?: Record<string, { type?: unknown }> } | undefined;
  return schema?.properties ?? {};
}

export function required(tool: ToolSpec): string[] {
  const r = (tool.schema as { required?: unknown } | undefined)?.required;
  return Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string') : [];
}

export const isArrayProp = (tool: ToolSpec, prop: string): boolean => {
  const type = properties(tool)[prop]?.type;
  return type === 'array' || (Array.isArray(type) && type.includes('array'));
};

/** The first candidate the schema declares; the first candidate when the schema declares nothing. */
export function argName(tool: ToolSpec, candidates: string[]): string | undefined {
  const props = Object.keys(properties(tool));
  if (props.length === 0) return candidates[0];
  for (const c of candidates) if (props.includes(c)) return c;
  const lower = new Map(props.map((p) => [norm(p), p]));
  for (const c of candidates) if (lower.has(norm(c))) return lower.get(norm(c));
  return undefined;
}

/** Offered tools with one of the names (compared without case and punctuation), in the names' order. */
export function findTools(tools: ToolSpec[], names: string[]): ToolSpec[] {
  return names.flatMap((n) => tools.filter((tool) => norm(tool.name) === norm(n)));
}

export const findTool = (tools: ToolSpec[], names: string[]): ToolSpec | undefined =>
  findTools(tools, names)[0];

/** A JSON schema's fixed choices: its enum, its const, or the consts of its anyOf/oneOf options. */
export function choices(schema: unknown): unknown[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as Record<string, unknown>;
  if ('const' in s) return [s.const];
  if (Array.isArray(s.enum)) return s.enum;
  for (const k of ['anyOf', 'oneOf']) {
    const options = s[k];
    if (!Array.isArray(options)) continue;
    const each = options.map(choices);
    if (each.every((c): c is unknown[] => c !== undefined)) return each.flat();
  }
  return undefined;
}

/** A schema that admits null (`type: null`, a type list with null, OpenAPI's `nullable`): null is "none given". */
function admitsNull(s: Record<string, unknown>): boolean {
  return s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || s.nullable === true;
}

/**
 * The value a required argument we have nothing for gets, or undefined when no harmless value exists:
 * a choice among several (a `mode` of search|read) is the caller's to make, and a step that cannot make
 * it does not fit the tool (Kilo stops after three calls its schema rejects). A schema that admits null
 * (an optional choice written as required and nullable) takes null: the choice is not made.
 */
function defaultValue(
  key: string,
  schema: { type?: unknown } | undefined,
  workspace: string,
): { value: unknown } | undefined {
  const s = (schema ?? {}) as Record<string, unknown>;
  const fixed = choices(schema);
  if (fixed) {
    if (fixed.length === 1) return { value: fixed[0] };
    return fixed.includes(null) || admitsNull(s) ? { value: null } : undefined;
  }
  if (admitsNull(s)) return { value: null };
  for (const k of ['anyOf', 'oneOf']) {
    const options = s[k];
    if (!Array.isArray(options)) continue;
    // A union: null if any option admits it, else the first option with a harmless value.
    if (options.some((o) => typeof o === 'object' && o !== null && admitsNull(o as Record<string, unknown>)))
      return { value: null };
    for (const option of options) {
      const value = defaultValue(key, option as { type?: unknown }, workspace);
      if (value) return value;
    }
    return undefined;
  }
  // A type list without null (["string", "integer"]) is read as its first type.
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (/^(workdir|cwd|dir|directory|working_directory)$/i.test(key)) return { value: workspace };
  if (type === 'boolean') return { value: false };
  if (type === 'number' || type === 'integer')
    return { value: typeof s.minimum === 'number' ? s.minimum : 0 };
  if (type === 'array') return typeof s.minItems === 'number' && s.minItems > 0 ? undefined : { value: [] };
  if (type === 'object') return { value: {} };
  // A string the schema constrains (a pattern, a format) has no text that is harmless and valid.
  if (s.pattern !== undefined || s.format !== undefined) return undefined;
  return { value: /prompt/i.test(key) ? 'Return the content verbatim.' : 'scripted step' };
}

/**
 * The call's arguments with every required one present: those we have no value for get harmless defaults,
 * so strict harnesses accept the call (Claude Code's WebFetch wants a prompt, some shells want a workdir).
 * Undefined when a required argument has no harmless value: the step does not fit this tool.
 */
export function fillRequired(
  tool: ToolSpec,
  args: Record<string, unknown>,
  workspace: string,
): Record<string, unknown> | undefined {
  const out = { ...args };
  const props = properties(tool);
  for (const key of required(tool)) {
    if (out[key] !== undefined) continue;
    const filled = defaultValue(key, props[key], workspace);
    if (!filled) return undefined;
    out[key] = filled.value;
  }
  return out;
}

/** The call of `tool` with `args`, its required arguments filled; undefined when the step cannot fill them. */
export function fitCall(
  tool: ToolSpec,
  args: Record<string, unknown>,
  workspace: string,
  via_shell = false,
): MappedCall | undefined {
  const filled = fillRequired(tool, args, workspace);
  return filled && { tool: tool.name, args: filled, via_shell };
}

/**
 * A delegate's task for a sub-agent tool with no argument for the agent's name (Gemini CLI's
 * `invoke_agent` to its `generalist`): the task names the agent the owner asked for, as a model handing
 * the work to a generic agent would say whose job it is, so the step stays recognisable as that hand-off.
 */
export const taskNamingAgent = (task: string, agent: string): string => `As the ${agent}: ${task}`;
