// A strategy's routes where the harness's shell is reachable only through its tool search (OpenClaw's
// tool_search + tool_call, Claude Code's ToolSearch): the strategy builds its routes against a stand-in
// shell, and each call of the stand-in becomes a search for a shell and the call of what it found
// (discovery.ts foundCall: the found tool itself, or the invoke tool naming it), as `direct` does
// (routes.ts discoveryRoute). A found call needs the search's answer as its previous text, so every
// stand-in call gets a search of its own; the searches only stage (they carry nothing out).
import type { ScriptContext } from '../../evidence/types.js';
import type { Action } from '../../spec/actions.js';
import type { ToolSpec } from '../conversation.js';
import { discoveryTools, foundCall, searchCall } from '../discovery.js';
import type { Route } from '../routes.js';
import { shellCall } from '../shell-tool.js';
import type { MappedCall } from '../tool-schema.js';

/** The stand-in's name: no harness offers it, so a call naming it can only be one of ours. */
const STAND_IN = 'searched-shell';

const standIn: ToolSpec = {
  name: STAND_IN,
  description: 'A shell found by the tool search.',
  schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  callable: true,
};

/** The command a stand-in call runs. */
const commandOf = (call: MappedCall): string => String(call.args.command ?? '');

/** The stand-in call as a search for a shell, then the found tool's call running the same command. */
function searched(
  make: Route['calls'][number],
  tools: Offered,
  ctx: ScriptContext,
): Route['calls'] | undefined {
  const search = searchCall({ do: 'run', command: '' }, tools.base, ctx);
  if (!search) return undefined;
  return [
    () => search,
    (found) => {
      const call = make('');
      // The found tool may be one the search loaded: offered now, though not among the base tools.
      const run = call && foundCall({ do: 'run', command: commandOf(call) }, found, tools.offered, ctx);
      // The stand-in's via_shell (a step carried out by a shell form, not a run step) is the found call's.
      return run && { ...run, via_shell: call.via_shell };
    },
  ];
}

/** The tools offered before any search loaded one (discovery.ts baseTools), and all offered now. */
interface Offered {
  base: ToolSpec[];
  offered: ToolSpec[];
}

/** One route of the strategy with each stand-in call replaced by a search and the found tool's call. */
function throughSearch(route: Route, tools: Offered, ctx: ScriptContext): Route | undefined {
  const calls: Route['calls'] = [];
  const writes: (string | undefined)[] = [];
  let search = '';
  for (const [i, make] of route.calls.entries()) {
    if (make('')?.tool !== STAND_IN) {
      calls.push(make);
      writes.push(route.writes?.[i]);
      continue;
    }
    const pair = searched(make, tools, ctx);
    if (!pair) return undefined;
    search = pair[0]('')?.tool ?? search;
    calls.push(...pair);
    writes.push(undefined, undefined);
  }
  return {
    ...route,
    label: route.label.replaceAll(STAND_IN, `${search} + found shell`),
    calls,
    ...(route.writes ? { writes } : {}),
    // Everything before the last call stages it: the searches and the strategy's own staging calls.
    staging: calls.length - 1,
  };
}

/**
 * The strategy's routes built with a shell the harness offers only through its tool search; empty when
 * it offers no search, or offers a shell up front (the strategy then had its chance with that one).
 */
export function searchedShellRoutes(
  routes: (action: Action, tools: ToolSpec[], ctx: ScriptContext) => Route[],
  action: Action,
  tools: Offered,
  ctx: ScriptContext,
): Route[] {
  if (!discoveryTools(tools.base, ctx) || shellCall('', tools.base, ctx)) return [];
  const hinted: ScriptContext = {
    ...ctx,
    tool_hints: { ...ctx.tool_hints, shell: { name: STAND_IN, args: { command: 'command' } } },
  };
  return routes(action, [...tools.base, standIn], hinted).flatMap((r) => {
    const through = throughSearch(r, tools, ctx);
    return through ? [through] : [];
  });
}
