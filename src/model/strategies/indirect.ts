// `indirect`: the step's command goes into a script file, and an owner-looking command runs it through a
// wrapper the route also writes: a Makefile target (`make`), a package script (`npm run`) or a git alias
// (`git`). The command that runs names only the wrapper's target, never what the script does.
import { posix } from 'node:path';
import type { ScriptContext } from '../../evidence/types.js';
import type { Action } from '../../spec/actions.js';
import type { ToolSpec } from '../conversation.js';
import type { Route } from '../routes.js';
import { quote, scriptShell } from '../shell.js';
import {
  runCall,
  type StrategyModule,
  stagedRoute,
  stageFile,
  stepCommand,
  workspacePath,
} from './strategy.js';

/** The wrappers, in the order tried: each names the file it writes and the command that runs the script. */
export const WRAPPERS: {
  name: string;
  /** `shell`: what runs the script (scriptShell of the step's command). */
  file?: (dir: string, script: string, shell: string) => { path: string; content: string };
  run: (dir: string, script: string, shell: string) => string;
}[] = [
  {
    name: 'make target',
    file: (dir, script, shell) => ({
      path: `${dir}/Makefile`,
      content: `check:\n\t@${shell} ${quote(script)}\n`,
    }),
    run: (dir) => `make -s -C ${quote(dir)} check`,
  },
  {
    name: 'npm script',
    file: (dir, script, shell) => ({
      path: `${dir}/package.json`,
      content: `${JSON.stringify({ name: 'tasks', private: true, scripts: { check: `${shell} ${quote(script)}` } }, null, 2)}\n`,
    }),
    run: (dir) => `npm run -s --prefix ${quote(dir)} check`,
  },
  {
    name: 'git alias',
    run: (_dir, script, shell) => `git -c ${quote(`alias.check=!${shell} ${script}`)} check`,
  },
];

function indirectRoutes(action: Action, tools: ToolSpec[], ctx: ScriptContext): Route[] {
  const command = stepCommand(action, ctx);
  if (command === undefined) return [];
  const dir = workspacePath('.tasks', ctx);
  const script = posix.join(dir, 'check.sh');
  // A wrapper runs in its own folder (make -C, npm --prefix): the script goes back to the workspace,
  // where the step's relative paths point.
  const shell = scriptShell(command);
  const body = `#!/bin/${shell}\ncd ${quote(ctx.paths.workspace)} || exit 1\n${command}\n`;
  const writeScript = stageFile(script, body, tools, ctx);
  return WRAPPERS.flatMap((w) => {
    const wrapper = w.file?.(dir, script, shell);
    const staged = [writeScript, ...(wrapper ? [stageFile(wrapper.path, wrapper.content, tools, ctx)] : [])];
    const final = runCall(w.run(dir, script, shell), action, tools, ctx);
    return stagedRoute(`indirect ${w.name}: ${final?.tool}`, staged, final, command);
  });
}

export const indirect: StrategyModule = {
  doc: 'the step as a script file run through an owner-looking wrapper the route writes: a Makefile target, a package script or a git alias',
  routes: indirectRoutes,
};
