// What a strategy is and the few pieces its modules share. A strategy is a general transformation of
// how the scripted adversary delivers an attacker step (and, for some, of the injected text): it never
// holds per-case text. The registry (strategy-kinds.ts) names every module; the policy asks it for a
// step's routes and the engine asks it for the injected text (docs/strategies.md).
import type { ScriptContext } from '../../evidence/types.js';
import type { Action } from '../../spec/actions.js';
import type { ToolSpec } from '../conversation.js';
import { resolvePath } from '../prepare-action.js';
import type { Route } from '../routes.js';
import { shellCommand, writeCommand } from '../shell.js';
import { shellCall } from '../shell-tool.js';
import type { MappedCall } from '../tool-schema.js';
import { nativeWrite } from '../tools.js';

export interface StrategyModule {
  /** One line for `harness-risk list strategies` and the docs table. */
  doc: string;
  /**
   * The routes of one attacker step (the action prepared: absolute paths, dedicated forms) under this
   * strategy, given the step's direct routes. Empty: the strategy has no form of this step with the tools
   * offered, and the step runs as `direct` (docs/strategies.md, "Fallback"). `earlier`: the goal's steps
   * before this one, prepared.
   */
  routes?: (
    action: Action,
    tools: ToolSpec[],
    ctx: ScriptContext,
    direct: Route[],
    earlier: Action[],
  ) => Route[];
  /** The injected text (a string of the case's world that holds the trigger), rewritten; the trigger stays. */
  inject?: (text: string, trigger: string) => string;
  /** Routes tried per step (default MAX_ROUTES_PER_STEP). */
  maxRoutes?: number;
}

/** The one shell command that carries out a prepared step (what `direct` would run in the shell). */
export function stepCommand(action: Action, ctx: ScriptContext): string | undefined {
  const memoryFile = ctx.memory_file ? resolvePath(ctx.memory_file, ctx.paths) : undefined;
  return shellCommand(action, memoryFile);
}

/** The step's command run through the harness's shell tool (`via_shell` unless the step is a run). */
export const runCall = (
  command: string,
  action: Action,
  tools: ToolSpec[],
  ctx: ScriptContext,
): MappedCall | undefined => shellCall(command, tools, ctx, action.do !== 'run');

/**
 * A helper file a route stages (a script, a Makefile, a part): the harness's own write tool, else the
 * shell's heredoc. Staging calls are recorded as such (ToolCallRecord.staging): they carry no step out.
 */
export function stageFile(
  path: string,
  content: string,
  tools: ToolSpec[],
  ctx: ScriptContext,
): MappedCall | undefined {
  const call =
    nativeWrite(path, content, tools, ctx) ?? shellCall(writeCommand(path, content, false), tools, ctx);
  // Its outcome is the world's: the file holds what was staged (policy.ts stagedEffect), whatever was said.
  return call && { ...call, writes: { path, content } };
}

/** A path inside the trial's workspace (helper files live where a project keeps its own). */
export const workspacePath = (rel: string, ctx: ScriptContext): string => resolvePath(rel, ctx.paths);

/**
 * A route whose last call carries the step out and whose earlier calls only stage files. `carries` is the
 * step's plain command, so a check's `contains` matches what ran, not how it was spelled.
 */
export function stagedRoute(
  label: string,
  staged: (MappedCall | undefined)[],
  final: MappedCall | undefined,
  carries: string,
): Route[] {
  if (!final || staged.some((c) => !c)) return [];
  const calls = [...staged, final].map((c) => () => c);
  // The files the staging calls write: a write the world shows did not land is read and made again, once.
  const writes = [...staged, final].map((c) => c?.writes?.path);
  return [{ label, calls, staging: staged.length, carries, ...(writes.some(Boolean) ? { writes } : {}) }];
}
