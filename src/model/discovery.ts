// Tool discovery: harnesses that keep most tools out of the request until the model searches for them
// (OpenClaw's tool_search + tool_call, Claude Code's ToolSearch with deferred tools, MCP-style
// search_tools). A compliant model that lacks a tool for a step searches the catalog for the capability,
// reads what it found and calls it: directly when the harness offers the found tool in its next request
// (Claude Code), else through the harness's invoke tool (`tool_call {id, args}`). So does the scripted
// one, for the attacker's steps (a route, routes.ts) and the owner's (next-move.ts).
//
// The adapter may declare both tools (adapter `discovery`); otherwise they are recognised by shape: a
// search tool takes a query and says it searches or loads tools, an invoke tool takes a tool's name and
// an object of arguments. What a search found is read from its result text, whatever the harness's
// format: JSON entries with a name (and a schema, an input hint or an id), `<function>{…}</function>`
// lines, or the names of tools offered now.
import { callKey, type ScriptContext } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import type { Conversation, ToolSpec } from './conversation.js';
import { shellCall, viaShell } from './shell-tool.js';
import { argName, fillRequired, fitCall, type MappedCall, properties } from './tool-schema.js';
import { nativeCall } from './tools.js';

interface SearchTool {
  tool: ToolSpec;
  query: string;
}

interface InvokeTool {
  tool: ToolSpec;
  /** The argument naming the found tool, and the one carrying its input. */
  name: string;
  args: string;
}

export interface DiscoveryTools {
  search: SearchTool;
  invoke?: InvokeTool;
}

/** A tool a search found: its name, the id the invoke tool wants, what its input looks like. */
export interface FoundTool extends ToolSpec {
  id?: string;
}

const QUERY_ARGS = ['query', 'q', 'keywords', 'search', 'terms', 'search_query'];
const INVOKE_NAME_ARGS = ['id', 'name', 'tool', 'tool_name', 'toolName', 'tool_id'];
const INVOKE_INPUT_ARGS = ['args', 'arguments', 'input', 'params', 'parameters', 'tool_input'];

const norm = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const SEARCH_NAMES = ['toolsearch', 'searchtools', 'searchtool', 'findtools', 'discovertools', 'lookuptools'];
const INVOKE_NAMES = [
  'toolcall',
  'calltool',
  'invoketool',
  'usetool',
  'runtool',
  'executetool',
  'toolinvoke',
];
const SEARCH_WORDS =
  /\b(search|find|discover|look ?up|load|fetch)\w*\b[^.\n]{0,80}\btools?\b|\btools?\b[^.\n]{0,40}\b(search|catalog|deferred)/i;
const INVOKE_WORDS = /\b(call|invoke|run|execute)\w*\b[^.\n]{0,60}\btools?\b/i;

const propType = (tool: ToolSpec, arg: string): unknown => properties(tool)[arg]?.type;
const declares = (tool: ToolSpec, arg: string | undefined): arg is string =>
  !!arg && Object.hasOwn(properties(tool), arg);

/** The argument of `tool` among `names` the schema declares, typed as `type` (when it says). */
function typedArg(tool: ToolSpec, names: string[], type: string): string | undefined {
  const arg = argName(tool, names);
  if (!declares(tool, arg)) return undefined;
  const t = propType(tool, arg);
  return t === undefined || t === type || (Array.isArray(t) && t.includes(type)) ? arg : undefined;
}

function recogniseSearch(tool: ToolSpec): SearchTool | undefined {
  const query = typedArg(tool, QUERY_ARGS, 'string');
  if (!query || norm(tool.name).includes('mcp')) return undefined;
  // A search that needs more than its query (a required mode to choose) is some other tool's search.
  if (!fillRequired(tool, { [query]: 'q' }, '')) return undefined;
  const named = SEARCH_NAMES.includes(norm(tool.name));
  return named || SEARCH_WORDS.test(tool.description) ? { tool, query } : undefined;
}

function recogniseInvoke(tool: ToolSpec): InvokeTool | undefined {
  // MCP's own generic tools (mcp_call, use_mcp_tool) are mcp-tools.ts's genericMcp, not a catalog's invoker.
  if (norm(tool.name).includes('mcp')) return undefined;
  const name = typedArg(tool, INVOKE_NAME_ARGS, 'string');
  const args = typedArg(tool, INVOKE_INPUT_ARGS, 'object');
  if (!name || !args || !fillRequired(tool, { [name]: 'n', [args]: {} }, '')) return undefined;
  return INVOKE_NAMES.includes(norm(tool.name)) || INVOKE_WORDS.test(tool.description)
    ? { tool, name, args }
    : undefined;
}

/** The harness's discovery tools offered in this request: the adapter's, else recognised by shape. */
export function discoveryTools(tools: ToolSpec[], ctx: ScriptContext): DiscoveryTools | undefined {
  const offered = tools.filter((t) => t.callable);
  const declared = ctx.discovery;
  if (declared) {
    const tool = offered.find((t) => t.name === declared.search.name);
    if (!tool) return undefined;
    const query = declared.search.query ?? argName(tool, QUERY_ARGS) ?? 'query';
    const inv = declared.invoke && offered.find((t) => t.name === declared.invoke!.name);
    const invoke = inv && {
      tool: inv,
      name: declared.invoke!.tool ?? argName(inv, INVOKE_NAME_ARGS) ?? 'name',
      args: declared.invoke!.args ?? argName(inv, INVOKE_INPUT_ARGS) ?? 'args',
    };
    return { search: { tool, query }, ...(invoke ? { invoke } : {}) };
  }
  const search = offered.map(recogniseSearch).find(Boolean);
  if (!search) return undefined;
  const invoke = offered
    .filter((t) => t !== search.tool)
    .map(recogniseInvoke)
    .find(Boolean);
  return { search, ...(invoke ? { invoke } : {}) };
}

/** The harness's own tool for the step among `tools`: its native tool, or its shell for a command. */
export function directCall(action: Action, tools: ToolSpec[], ctx: ScriptContext): MappedCall | undefined {
  if (action.do === 'run') return shellCall(action.command, tools, ctx, false);
  return nativeCall(action, tools, ctx);
}

/** Words that describe the capability a step needs, as a search query (catalog search is lexical). */
export function capabilityQuery(action: Action): string | undefined {
  switch (action.do) {
    case 'read':
      return 'read file';
    case 'write':
      return 'write file';
    case 'run':
      return 'run shell command';
    case 'fetch':
      return 'fetch url http request';
    case 'send':
      return action.channel === 'mail' ? 'send email mail' : 'send chat message';
    case 'call': {
      const wanted = action.service === 'mcp' ? action.args.tool : undefined;
      return typeof wanted === 'string' ? wanted : `${action.service} ${action.op}`.replace(/[_.]/g, ' ');
    }
    case 'install':
      return 'install skill plugin extension';
    case 'delegate':
      return 'agent subagent task';
    case 'remember':
      return 'memory remember save';
    case 'reply':
      return undefined;
  }
}

/**
 * The search for the step's capability, when the harness offers a search tool. A step a shell can also
 * carry out asks for a shell too: a catalog that has no tool of the step's own kind may still hide one.
 */
export function searchCall(action: Action, tools: ToolSpec[], ctx: ScriptContext): MappedCall | undefined {
  const found = discoveryTools(tools, ctx);
  const words = capabilityQuery(action);
  if (!found || !words) return undefined;
  const query = action.do === 'run' || action.do === 'delegate' ? words : `${words} or shell command`;
  return fitCall(found.search.tool, { [found.search.query]: query }, ctx.paths.workspace);
}

/**
 * What the conversation's last call identical to `call` (same tool, same arguments) returned, or
 * undefined when none was answered. A real model does not make the same search twice: it reads the answer
 * it has (and harnesses halt a model that repeats a call: Qwen Code's loop detection ends the run).
 */
export function answeredBefore(conv: Conversation, call: MappedCall): string | undefined {
  const same = (name: string, args: unknown) =>
    name === call.tool && JSON.stringify(args ?? {}) === JSON.stringify(call.args);
  const asked = new Set<string>();
  let answer: string | undefined;
  for (const m of conv.messages) {
    for (const c of m.toolCalls) if (same(c.name, c.args)) asked.add(callKey(c.id));
    for (const r of m.toolResults) if (asked.has(callKey(r.callId))) answer = r.text;
  }
  return answer;
}

// ---- what a search found ----

type Json = unknown;

/** The JSON values a result text holds: the whole text, `<function>` lines, or its outermost braces. */
function jsonValues(text: string): Json[] {
  const tryParse = (s: string): Json[] => {
    try {
      return [JSON.parse(s)];
    } catch {
      return [];
    }
  };
  const whole = tryParse(text.trim());
  if (whole.length) return whole;
  const functions = [...text.matchAll(/<function>([\s\S]*?)<\/function>/g)].flatMap((m) => tryParse(m[1]!));
  if (functions.length) return functions;
  const start = text.search(/[[{]/);
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  return start >= 0 && end > start ? tryParse(text.slice(start, end + 1)) : [];
}

/**
 * A compact input hint (`{ url: string; maxChars?: number }`, as OpenClaw's catalog shows a tool's input)
 * as a JSON schema, so arguments can be named.
 */
export function hintSchema(hint: string): Record<string, unknown> {
  const props: Record<string, { type: string }> = {};
  const required: string[] = [];
  for (const m of hint.matchAll(/(?:^|[{;,]\s*)"?([A-Za-z_][\w-]*)"?(\?)?:\s*([A-Za-z]+)/g)) {
    const type = m[3]!.toLowerCase();
    props[m[1]!] = { type: type === 'record' ? 'object' : type };
    if (!m[2]) required.push(m[1]!);
  }
  return { type: 'object', properties: props, required };
}

/**
 * Where a found tool's entry carries its argument schema, by dialect: Gemini's function declarations
 * (`parametersJsonSchema`, or the OpenAPI subset `parameters`; conversation.ts reads the same fields off a
 * request), OpenAI's `parameters`, Anthropic's `input_schema`, MCP's `inputSchema`, OpenClaw's `input` hint.
 */
const SCHEMA_KEYS = ['parametersJsonSchema', 'parameters', 'input_schema', 'inputSchema', 'schema', 'input'];

function entryOf(o: Record<string, unknown>): FoundTool | undefined {
  if (typeof o.name !== 'string' || !o.name) return undefined;
  const key = SCHEMA_KEYS.find((k) => o[k] !== undefined);
  const raw = key ? o[key] : undefined;
  const schema = typeof raw === 'string' ? hintSchema(raw) : (raw ?? {});
  const described = typeof o.description === 'string';
  if (!key && !described && typeof o.id !== 'string') return undefined;
  return {
    name: o.name,
    description: described ? (o.description as string) : '',
    schema,
    callable: true,
    ...(typeof o.id === 'string' ? { id: o.id } : {}),
  };
}

function collect(value: Json, out: FoundTool[], depth = 0): void {
  if (depth > 6 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) collect(v, out, depth + 1);
    return;
  }
  const entry = entryOf(value as Record<string, unknown>);
  if (entry) out.push(entry);
  for (const v of Object.values(value as Record<string, unknown>)) collect(v, out, depth + 1);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The tools a search result names: its JSON entries, with the schema the harness offers now where it
 * offers the tool (that schema is the one its call is checked against), and tools offered now that the
 * text names (Claude Code's tool_reference blocks carry only names).
 */
export function foundTools(text: string, tools: ToolSpec[]): FoundTool[] {
  const entries: FoundTool[] = [];
  for (const v of jsonValues(text)) collect(v, entries);
  const offered = tools.filter((t) => t.callable);
  const merged = entries.map((e) => {
    const now = offered.find((t) => t.name === e.name);
    return now ? { ...now, ...(e.id ? { id: e.id } : {}) } : e;
  });
  const named = offered.filter(
    (t) =>
      !merged.some((e) => e.name === t.name) &&
      new RegExp(`(^|[^\\w-])${escapeRe(t.name)}($|[^\\w-])`).test(text),
  );
  return [...merged, ...named];
}

const COMMAND_ARGS = ['command', 'cmd', 'script', 'commandLine', 'command_line'];
const URL_ARGS = ['url', 'uri', 'href', 'link'];

/**
 * A found tool whose schema fits the step though its name is none the mapper knows: a command argument
 * for a command, a URL argument for a fetch. Other steps need a tool the mapper knows by name.
 */
function bySchema(action: Action, found: ToolSpec[], workspace: string): MappedCall | undefined {
  const pick = (args: string[]) =>
    found
      .map((tool) => ({ tool, arg: typedArg(tool, args, 'string') }))
      .find((x): x is { tool: ToolSpec; arg: string } => !!x.arg);
  if (action.do === 'run') {
    const hit = pick(COMMAND_ARGS);
    return hit && fitCall(hit.tool, { [hit.arg]: action.command }, workspace);
  }
  if (action.do === 'fetch' && (action.method ?? 'GET') === 'GET' && action.body === undefined) {
    const hit = pick(URL_ARGS);
    return hit && fitCall(hit.tool, { [hit.arg]: action.url }, workspace);
  }
  return undefined;
}

/** The call of a found tool that carries the step out: its own tool, else a found shell's command. */
function foundMapping(action: Action, found: ToolSpec[], ctx: ScriptContext): MappedCall | undefined {
  return (
    directCall(action, found, ctx) ??
    bySchema(action, found, ctx.paths.workspace) ??
    viaShell(action, found, ctx)
  );
}

/**
 * The call that carries the step out with a tool a search found: the tool itself when the harness offers
 * it now, else the invoke tool naming it. Undefined when nothing found fits the step.
 */
export function foundCall(
  action: Action,
  text: string,
  tools: ToolSpec[],
  ctx: ScriptContext,
): MappedCall | undefined {
  const found = foundTools(text, tools);
  const call = foundMapping(action, found, ctx);
  if (!call) return undefined;
  const offered = tools.some((t) => t.callable && t.name === call.tool);
  if (offered) return call;
  const invoke = discoveryTools(tools, ctx)?.invoke;
  if (!invoke) return undefined;
  const entry = found.find((t) => t.name === call.tool);
  const input = propType(invoke.tool, invoke.args) === 'string' ? JSON.stringify(call.args) : call.args;
  const args = { [invoke.name]: entry?.id ?? call.tool, [invoke.args]: input };
  return fitCall(invoke.tool, args, ctx.paths.workspace, call.via_shell);
}

// ---- tools a search loaded ----

/** A search the session made: the step it served and the text it returned. */
export interface SearchMade {
  action: Action;
  text: string;
}

const RUN: Action = { do: 'run', command: '' };
const SHELL_QUERY = capabilityQuery(RUN);
const askedForShell = (args: unknown, query: string): boolean =>
  typeof args === 'object' && args !== null && (args as Record<string, unknown>)[query] === SHELL_QUERY;

/** The searches this conversation holds, paired with their results; `actionOf` names a call's step. */
export function searchesMade(
  conv: Conversation,
  ctx: ScriptContext,
  actionOf: (callId: string) => Action | undefined,
  key: (id: string) => string,
): SearchMade[] {
  const search = discoveryTools(conv.tools, ctx)?.search;
  if (!search) return [];
  const calls = new Map<string, Action>();
  const out: SearchMade[] = [];
  for (const m of conv.messages) {
    for (const c of m.toolCalls) {
      const action = c.name === search.tool.name ? actionOf(c.id) : undefined;
      // A search for a shell was made for a run, whatever step it served (a strategy's shell for a write).
      if (action) calls.set(key(c.id), askedForShell(c.args, search.query) ? RUN : action);
    }
    for (const r of m.toolResults) {
      const action = calls.get(key(r.callId));
      if (action) out.push({ action, text: r.text });
    }
  }
  return out;
}

/**
 * The request's tools with those a search of ours loaded marked `loaded`: a tool the search found that
 * could carry out the step it was made for. A search is made only when no offered tool could, so such a
 * tool was not offered when the step's routes were first computed.
 */
export function markLoaded(tools: ToolSpec[], searches: SearchMade[], ctx: ScriptContext): ToolSpec[] {
  if (!searches.length) return tools;
  const loaded = new Set<string>();
  for (const s of searches)
    for (const t of foundTools(s.text, tools))
      if (tools.some((o) => o.name === t.name) && directCall(s.action, [t], ctx)) loaded.add(t.name);
  return loaded.size ? tools.map((t) => (loaded.has(t.name) ? { ...t, loaded: true } : t)) : tools;
}

/** The tools offered before any search of this session loaded one (markLoaded). */
export const baseTools = (tools: ToolSpec[]): ToolSpec[] => tools.filter((t) => !t.loaded);
