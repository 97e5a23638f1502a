// Reading an offered tool's schema: its declared and required arguments, argument and tool names compared
// loosely, harmless defaults for required arguments; and the call a mapping builds from it (MappedCall).
import type { ToolSpec } from './conversation.js';

export interface MappedCall {
  tool: string;
  args: Record<string, unknown>;
  via_shell: boolean;
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

/**
 * Required arguments we have no value for get harmless defaults, so strict harnesses accept the call
 * (Claude Code's WebFetch wants a prompt, some shells want a workdir).
 */
export function fillRequired(
  tool: ToolSpec,
  args: Record<string, unknown>,
  workspace: string,
): Record<string, unknown> {
  const out = { ...args };
  const props = properties(tool);
  for (const key of required(tool)) {
    if (out[key] !== undefined) continue;
    const type = props[key]?.type;
    if (/^(workdir|cwd|dir|directory|working_directory)$/i.test(key)) out[key] = workspace;
    else if (type === 'boolean') out[key] = false;
    else if (type === 'number' || type === 'integer') out[key] = 0;
    else if (type === 'array') out[key] = [];
    else if (type === 'object') out[key] = {};
    else out[key] = /prompt/i.test(key) ? 'Return the content verbatim.' : 'scripted step';
  }
  return out;
}
