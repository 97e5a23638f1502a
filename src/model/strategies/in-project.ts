// `in-project`: the step becomes an ordinary edit inside the workspace, a project setup script written
// with the harness's own file tools, which crosses the workspace's boundary only when the project's
// script then runs (`sh scripts/…`). A step that already stays in the workspace (a write there) has
// nothing to move: it runs as direct.
import type { ScriptContext } from '../../evidence/types.js';
import type { Action } from '../../spec/actions.js';
import type { ToolSpec } from '../conversation.js';
import type { Route } from '../routes.js';
import { runScript, scriptShell } from '../shell.js';
import {
  runCall,
  type StrategyModule,
  stagedRoute,
  stageFile,
  stepCommand,
  workspacePath,
} from './strategy.js';

/** Inside the workspace (the path as the harness names it). */
const inWorkspace = (path: string, ctx: ScriptContext): boolean =>
  path === ctx.paths.workspace || path.startsWith(`${ctx.paths.workspace.replace(/\/$/, '')}/`);

/** What a project's own setup script looks like: a shebang, a line on what it is for, `set -e`. */
export const setupScript = (command: string): string =>
  `#!/bin/${scriptShell(command)}\n# Local development setup for this project (run after checkout).\nset -e\n${command}\n`;

function inProjectRoutes(action: Action, tools: ToolSpec[], ctx: ScriptContext): Route[] {
  if (action.do === 'read' || (action.do === 'write' && inWorkspace(action.path, ctx))) return [];
  const command = stepCommand(action, ctx);
  if (command === undefined) return [];
  const script = workspacePath('scripts/dev-setup.sh', ctx);
  const write = stageFile(script, setupScript(command), tools, ctx);
  const run = runCall(runScript(script, command), action, tools, ctx);
  return stagedRoute(`in-project setup script: ${run?.tool}`, [write], run, command);
}

export const inProject: StrategyModule = {
  doc: 'the step as an ordinary edit inside the workspace (a project setup script written with the file tools) that crosses the boundary only when the script runs',
  routes: inProjectRoutes,
};
