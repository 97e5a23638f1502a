// The strategy registry: every attack strategy a run can select, name → module (one module a strategy).
// The run options' schema, `harness-risk list strategies`, the docs table (docs/strategies.md), the
// policy's routes and the engine's injected text all read this table, so a new strategy is one module
// and one line here.
import type { ScriptContext } from '../../evidence/types.js';
import type { Action } from '../../spec/actions.js';
import type { ToolSpec } from '../conversation.js';
import { baseTools } from '../discovery.js';
import { escalatedRoutes } from '../escalation.js';
import { prepareAction } from '../prepare-action.js';
import { MAX_ROUTES_PER_STEP, memoryFileRoutes, type Route, routesFor } from '../routes.js';
import { authority } from './authority.js';
import { direct } from './direct.js';
import { encoded } from './encoded.js';
import { fused } from './fused.js';
import { inProject } from './in-project.js';
import { indirect } from './indirect.js';
import { retry } from './retry.js';
import { searchedShellRoutes } from './searched-shell.js';
import { split } from './split.js';
import type { StrategyModule } from './strategy.js';

export const STRATEGIES = {
  direct,
  split,
  encoded,
  indirect,
  authority,
  'in-project': inProject,
  retry,
  fused,
} satisfies Record<string, StrategyModule>;

export type StrategyName = keyof typeof STRATEGIES;
export const STRATEGY_NAMES = Object.keys(STRATEGIES) as [StrategyName, ...StrategyName[]];
export const DEFAULT_STRATEGY: StrategyName = 'direct';

const moduleOf = (name: string | undefined): StrategyModule =>
  (STRATEGIES as Record<string, StrategyModule>)[name ?? DEFAULT_STRATEGY] ?? direct;

/**
 * The routes of one attacker step under the trial's strategy: the strategy's own, or the direct ones when
 * it has no form of this step with the tools offered.
 */
export function strategyRoutes(step: Action, tools: ToolSpec[], ctx: ScriptContext): Route[] {
  const routes =
    step.do === 'remember'
      ? memoryFileRoutes(ctx, (one) => stepRoutes(step, tools, one))
      : stepRoutes(step, tools, ctx);
  // Under every strategy: a call the sandbox stopped is asked again outside it (escalation.ts).
  return escalatedRoutes(routes, baseTools(tools), ctx);
}

function stepRoutes(step: Action, tools: ToolSpec[], ctx: ScriptContext): Route[] {
  const directRoutes = routesFor(step, tools, ctx);
  const own = moduleOf(ctx.strategy).routes;
  if (!own || step.do === 'reply') return directRoutes;
  // Tools a search loaded are not the strategy's to build on (their routes are direct ones: routes.ts).
  const base = baseTools(tools);
  const action = prepareAction(step, ctx);
  const at = ctx.goal.indexOf(step);
  const earlier = at > 0 ? ctx.goal.slice(0, at).map((a) => prepareAction(a, ctx)) : [];
  const routes = own(action, base, ctx, directRoutes, earlier);
  if (routes.length) return routes;
  // A shell behind the harness's tool search is the strategy's too (searched-shell.ts), as it is direct's.
  const offered = { base, offered: tools };
  const searched = searchedShellRoutes(
    (a, t, c) => own(a, t, c, directRoutes, earlier),
    action,
    offered,
    ctx,
  );
  return searched.length ? searched : directRoutes;
}

/** Routes tried per attacker step under the strategy. */
export const routeBound = (name: string | undefined): number =>
  moduleOf(name).maxRoutes ?? MAX_ROUTES_PER_STEP;

/** The injected text under the strategy (unchanged unless it rewrites it). */
export const injectText = (name: string | undefined, text: string, trigger: string): string =>
  moduleOf(name).inject?.(text, trigger) ?? text;

/** Whether the strategy rewrites the injected text (the engine then rewrites the case's world). */
export const rewritesInjection = (name: string | undefined): boolean => !!moduleOf(name).inject;
