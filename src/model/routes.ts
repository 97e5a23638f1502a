// The routes an attacker step can take. A worst-case model does not stop when the harness refuses one
// way of doing something: it tries the other ways the harness offers for the same abstract action. This
// module lists them, in a fixed order (docs/internals.md, "Routes"), built from the tools offered in the
// request at hand; the policy walks the list until one route executes or MAX_ROUTES_PER_STEP were tried
// (routeLimit: a route's other places do not count).
//
// A route is one or two tool calls. Two-call routes first read what the file holds (append through a
// full write or an edit tool) or write a script the shell then runs; the second call is built from the
// first call's result text.

import type { ScriptContext } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import {
  fetchForms,
  readForms,
  type ShellForm,
  serviceForms,
  serviceHttp,
  writeForms,
} from './alternates.js';
import type { ToolSpec } from './conversation.js';
import { baseTools, directCall, foundCall, searchCall } from './discovery.js';
import { genericMcpCall, serviceMcpCalls } from './mcp-tools.js';
import { editCall } from './native-tools.js';
import { prepareAction, resolvePath } from './prepare-action.js';
import { quote, runScript } from './shell.js';
import { shellCall, viaShell as shellFallback } from './shell-tool.js';
import { fitCall, type MappedCall } from './tool-schema.js';
import { nativeCall, nativeRead, nativeWrite } from './tools.js';

/** Routes tried per attacker step before moving on to the next step (the bound keeps trials short). */
export const MAX_ROUTES_PER_STEP = 6;

export interface Route {
  /** What the report shows: `write_file`, `bash: printf >>`, `read_file + write_file`. */
  label: string;
  /**
   * The route's calls. Call i > 0 is built from the text call i-1 returned (undefined: the route cannot
   * go on, e.g. an edit of an empty file).
   */
  calls: ((previous: string) => MappedCall | undefined)[];
  /**
   * The first call only prepares (reads the file): if it fails without a refusal (the file does not exist
   * yet), the route goes on with empty text.
   */
  prepares?: boolean;
  /**
   * The file call i writes with one of the harness's own file tools (write, edit), when it does: a
   * harness that refuses to overwrite a file the session has not read is answered by reading it and
   * making the call again (replay.ts, readFirst).
   */
  writes?: (string | undefined)[];
  /** A strategy's route: its first `staging` calls only stage files for the last one (not the step). */
  staging?: number;
  /** The step's plain command, recorded on the call that carries it out (ToolCallRecord.carries). */
  carries?: string;
  /** Tried only when the step's previous route was refused (a strategy's retry). */
  after?: 'refused';
  /** The previous route with its file in another place (SCRIPT_PLACES): not counted in the bound. */
  elsewhere?: boolean;
}

const one = (label: string, call: MappedCall | undefined): Route[] =>
  call ? [{ label, calls: [() => call] }] : [];

function shellRoutes(forms: ShellForm[], tools: ToolSpec[], ctx: ScriptContext, viaShell = true): Route[] {
  return forms.flatMap((f) => {
    const call = shellCall(f.command, tools, ctx, viaShell);
    return one(`${call?.tool}: ${f.form}`, call);
  });
}

/** Claude Code's Read adds `<system-reminder>` blocks after the content; they are not the file's. */
const REMINDER = /\n*<system-reminder>[\s\S]*?<\/system-reminder>\s*/g;
const GUTTER = /^[ \t]*\d+(→|\t| \| |\| |: )/;

/**
 * What a file held, from the text a read tool returned: without line-number gutters (only when every
 * line has one, so a file whose lines start with numbers survives) and harness trailers.
 */
export function fileText(result: string): string {
  const text = result.replace(REMINDER, '\n');
  const lines = text.split('\n');
  const body = lines.at(-1) === '' ? lines.slice(0, -1) : lines;
  if (body.length && body.every((l) => GUTTER.test(l))) {
    return `${body.map((l) => l.replace(GUTTER, '')).join('\n')}\n`;
  }
  return text;
}

/** Content plus appended text, with a newline between when the file did not end in one. */
const appended = (held: string, content: string): string =>
  held === '' || held.endsWith('\n') ? held + content : `${held}\n${content}`;

/** The read that prepares a whole-file rewrite: the native read tool, else `cat` in the shell. */
function readFirst(path: string, tools: ToolSpec[], ctx: ScriptContext): MappedCall | undefined {
  return nativeRead(path, tools, ctx) ?? shellCall(`cat ${quote(path)}`, tools, ctx);
}

/** Appending without an append tool or the shell's `>>`: read the file, write it back whole or edit it. */
function rewriteRoutes(path: string, content: string, tools: ToolSpec[], ctx: ScriptContext): Route[] {
  const read = readFirst(path, tools, ctx);
  if (!read) return [];
  const routes: Route[] = [];
  const write = nativeWrite(path, content, tools, ctx);
  if (write) {
    routes.push({
      label: `${read.tool} + ${write.tool}`,
      prepares: true,
      writes: [undefined, path],
      calls: [() => read, (held) => nativeWrite(path, appended(fileText(held), content), tools, ctx)],
    });
  }
  const probe = editCall(path, 'x', 'xy', tools, ctx);
  if (probe) {
    routes.push({
      label: `${read.tool} + ${probe.tool}`,
      prepares: true,
      writes: [undefined, path],
      calls: [
        () => read,
        (held) => {
          const old = fileText(held);
          return editCall(path, old, appended(old, content), tools, ctx);
        },
      ],
    });
  }
  return routes;
}

/**
 * Where the script route puts its script, in the order tried: the temp folder first (nothing left in the
 * project), then the workspace, for a harness whose file tools write only there (Gemini CLI: "Path not in
 * workspace"). Each place is a route of its own, so the adversary moves on to the next place after any
 * outcome that did not carry the step out; the label names the place, so the step's record shows it.
 */
export const SCRIPT_PLACES: readonly { name: string; path: string }[] = [
  { name: '$TMP', path: '$TMP/hr-step.sh' },
  { name: 'workspace', path: '.hr-step.sh' },
];

/** A script file written with the native write tool, then run by the shell (beats command-text filters). */
export function scriptRoutes(command: string, tools: ToolSpec[], ctx: ScriptContext): Route[] {
  return SCRIPT_PLACES.flatMap((place, i): Route[] => {
    const script = resolvePath(place.path, ctx.paths);
    const native = nativeWrite(script, `${command}\n`, tools, ctx);
    // Staged: the world says whether the script landed (policy.ts stagedEffect), not the write's answer.
    const write = native && { ...native, writes: { path: script, content: `${command}\n` } };
    const run = shellCall(runScript(script, command), tools, ctx);
    if (!write || !run) return [];
    return [
      {
        label: `${write.tool} + ${run.tool}: script file in ${place.name}`,
        calls: [() => write, () => run],
        writes: [script, undefined],
        // Writing the script carries nothing out: only the run does (a refused run is a step not done,
        // even though the write went through), and the run's own text names the script, not the command.
        staging: 1,
        carries: command,
        // The same route elsewhere: not one more route against the step's bound (routeLimit).
        ...(i > 0 ? { elsewhere: true } : {}),
      },
    ];
  });
}

/**
 * How many of a step's routes are tried: the first `bound` routes, each with its other places
 * (Route.elsewhere) which do not count against the bound.
 */
export function routeLimit(routes: readonly Route[], bound: number): number {
  let counted = 0;
  for (const [i, r] of routes.entries()) {
    if (!r.elsewhere) counted++;
    if (counted > bound) return i;
  }
  return routes.length;
}

/**
 * Every route for one attacker step, in the documented order: the harness's own tool, the shell's
 * primary form, then the action's alternatives. Duplicates (two routes making the same first call)
 * are dropped.
 */
export function routesFor(input: Action, offered: ToolSpec[], ctx: ScriptContext): Route[] {
  if (input.do === 'reply') return [];
  // The routes are those of the tools offered before any search loaded one (discovery.ts), so a step's
  // route list, and the route indices the policy replays, stay the same after a search.
  const tools = baseTools(offered);
  const action = prepareAction(input, ctx);
  const routes: Route[] = [];
  const native = nativeCall(action, tools, ctx);
  if (native) {
    const writes = action.do === 'write' && !native.via_shell ? [action.path] : undefined;
    routes.push(...one(native.tool, native).map((r) => (writes ? { ...r, writes } : r)));
  } else if (!directCall(action, tools, ctx)) routes.push(...discoveryRoute(action, tools, offered, ctx));
  const primary = primaryShell(action, tools, ctx);
  if (primary) routes.push(primary);
  routes.push(...alternatives(action, tools, ctx));
  return dedupe(routes);
}

/**
 * The owner's step by its next plain form (one call, nothing staged), once its own tool and the shell's
 * primary form failed before the world saw anything of them: `svc` not on the PATH of a login shell the
 * harness starts, a fetch tool that will not fetch the world's host. A user's model tries another way
 * (curl for `svc`); without it the owner's task reads undone, and an injection it delivers unseen, for a
 * reason that is not the harness's safety. Undefined when the step has no other form.
 */
export function ownerAlternative(
  input: Action,
  offered: ToolSpec[],
  ctx: ScriptContext,
): MappedCall | undefined {
  if (input.do === 'reply') return undefined;
  const tools = baseTools(offered);
  const action = prepareAction(input, ctx);
  const tried = new Set(
    [nativeCall(action, tools, ctx), shellFallback(action, tools, ctx)].map(callSignature),
  );
  for (const r of alternatives(action, tools, ctx)) {
    if (r.calls.length !== 1 || r.prepares || r.staging || r.after) continue;
    const call = r.calls[0]!('');
    if (call && !tried.has(callSignature(call))) return call;
  }
  return undefined;
}

/**
 * No tool of the harness's own carries the step out, but it offers a tool search: search the catalog for
 * the capability, then call what it found (directly when the harness now offers it, else through its
 * invoke tool). The search only stages the call (it carries nothing out).
 */
function discoveryRoute(action: Action, tools: ToolSpec[], offered: ToolSpec[], ctx: ScriptContext): Route[] {
  const search = searchCall(action, tools, ctx);
  if (!search) return [];
  return [
    {
      label: `${search.tool} + found tool`,
      calls: [() => search, (found) => foundCall(action, found, offered, ctx)],
      staging: 1,
    },
  ];
}

/** The shell's primary form (what mapAction falls back to): heredoc writes, `svc`, `cat`. */
function primaryShell(action: Action, tools: ToolSpec[], ctx: ScriptContext): Route | undefined {
  const call = shellFallback(action, tools, ctx);
  return call ? { label: `${call.tool}: ${primaryForm(action)}`, calls: [() => call] } : undefined;
}

function primaryForm(action: Action): string {
  switch (action.do) {
    case 'write':
      return action.append ? 'cat >>' : 'cat >';
    case 'remember':
      return 'printf >> memory file';
    case 'read':
      return 'cat';
    case 'run':
      return 'command';
    default:
      return action.do === 'call' && action.service === 'mcp' ? 'svc mcp' : 'svc';
  }
}

function alternatives(action: Action, tools: ToolSpec[], ctx: ScriptContext): Route[] {
  switch (action.do) {
    case 'write': {
      const append = action.append ?? false;
      const forms = writeForms(action.path, action.content, append);
      return [
        ...(append ? rewriteRoutes(action.path, action.content, tools, ctx) : []),
        ...shellRoutes(forms.slice(0, 2), tools, ctx),
        ...scriptRoutes(forms[0].command, tools, ctx),
        ...shellRoutes(forms.slice(2), tools, ctx),
      ];
    }
    case 'remember': {
      if (!ctx.memory_file) return [];
      const path = resolvePath(ctx.memory_file, ctx.paths);
      return alternatives({ do: 'write', path, content: `${action.text}\n`, append: true }, tools, ctx);
    }
    case 'read':
      return shellRoutes(readForms(action.path), tools, ctx);
    case 'run':
      return scriptRoutes(action.command, tools, ctx);
    case 'fetch':
      return shellRoutes(fetchForms(action.url, action.method ?? 'GET', action.body), tools, ctx);
    case 'call':
    case 'send':
    case 'install':
    case 'delegate':
      return [
        ...mcpRoutes(action, tools, ctx),
        ...serviceMcpRoutes(action, tools, ctx),
        ...serviceRoutes(action, tools, ctx),
      ];
    case 'reply':
      return [];
  }
}

/** Services by plain HTTP: curl/wget against $HR_SVC, or the harness's own HTTP tool. */
function serviceRoutes(action: Action, tools: ToolSpec[], ctx: ScriptContext): Route[] {
  const routes = shellRoutes(serviceForms(action), tools, ctx);
  const http = serviceHttp(action);
  if (http && ctx.services_url) {
    const url = `${ctx.services_url.replace(/\/$/, '')}${http.path}`;
    const method = http.method as Extract<Action, { do: 'fetch' }>['method'];
    const fetch = nativeCall({ do: 'fetch', url, method, body: http.body }, tools, ctx);
    if (fetch) routes.unshift(...one(fetch.tool, fetch));
  }
  return routes;
}

/**
 * MCP tools: when the direct proxy tool (mcp__server__tool) is the native route, the harness's generic MCP
 * tool (mcp_call) is another one; the svc and curl routes follow as for every service.
 */
function mcpRoutes(action: Action, tools: ToolSpec[], ctx: ScriptContext): Route[] {
  if (action.do !== 'call' || action.service !== 'mcp') return [];
  const generic = genericMcpCall(action, tools, ctx.paths.workspace);
  return generic ? one(generic.tool, generic) : [];
}

/**
 * The other MCP tools that carry out a service operation (a comment by add_issue_comment, then by the
 * action's update_claude_comment): the first is the native route already.
 */
function serviceMcpRoutes(action: Action, tools: ToolSpec[], ctx: ScriptContext): Route[] {
  if (action.do !== 'call') return [];
  return serviceMcpCalls(action, tools).flatMap(([tool, args]) => {
    const call = fitCall(tool, args, ctx.paths.workspace);
    return call ? one(tool.name, call) : [];
  });
}

/**
 * A `remember` step's routes when the harness loads several memory files (the adapter's
 * `state.memory_files`): `build`'s routes for the first file, each followed by the same route for the
 * other files (Route.elsewhere: not more routes against the step's bound), so a harness that refuses one
 * of its memory files (a home folder outside its project) is tried on the next one it loads, as a
 * persistent attacker would. The other files' labels name the file; routes that do not depend on the file
 * (a memory tool) are tried once.
 */
export function memoryFileRoutes(ctx: ScriptContext, build: (ctx: ScriptContext) => Route[]): Route[] {
  const files = ctx.memory_files ?? [];
  if (files.length < 2) return build(ctx);
  const per = files.map((file, k) =>
    build({ ...ctx, memory_file: file, memory_files: [file] }).map((r) =>
      k === 0
        ? r
        : { ...r, label: `${r.label} (memory file ${asCaseWrites(file, ctx.paths)})`, elsewhere: true },
    ),
  );
  const longest = Math.max(...per.map((routes) => routes.length));
  const out: Route[] = [];
  for (let j = 0; j < longest; j++) for (const routes of per) if (routes[j]) out.push(routes[j]!);
  return dedupe(out);
}

/** A harness path in a case's notation (relative to the workspace, `~/` for home): stable across trials. */
function asCaseWrites(path: string, paths: ScriptContext['paths']): string {
  if (path.startsWith(`${paths.workspace}/`)) return path.slice(paths.workspace.length + 1);
  if (path.startsWith(`${paths.home}/`)) return `~/${path.slice(paths.home.length + 1)}`;
  return path;
}

/** A call as sent: its tool and arguments (two routes whose first calls match make the same call). */
const callSignature = (c: MappedCall | undefined): string => (c ? `${c.tool}:${JSON.stringify(c.args)}` : '');

const signature = (r: Route): string => `${r.calls.length}:${callSignature(r.calls[0]!(''))}`;

function dedupe(routes: Route[]): Route[] {
  const seen = new Set<string>();
  return routes.filter((r) => {
    const key = signature(r);
    if (r.calls.length === 1 && seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
