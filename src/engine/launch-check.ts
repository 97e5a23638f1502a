// Before a harness is started: does the adapter's launch command exist and execute? A wrong launch path
// otherwise shows only as a harness that never asked the model, which `doctor` used to blame on the
// base-URL variable. Checked on the host for what the host can know: the program (on the trial's PATH, or
// a path), and every argument that is a path under a folder the engine binds read-only (`{{repo}}`,
// `{{adapter_dir}}`, `{{action_root}}`, `{{cache}}` unless the adapter installs into it when the run
// starts); paths under the trial's own folders do not exist yet.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { LoadedAdapter } from '../adapters/schema.js';
import { renderTemplate, TemplateError } from '../world/template.js';

/** The host folders a launch argument may name before the trial exists. */
export interface LaunchRoots {
  repo: string;
  adapter_dir: string;
  action_root: string;
  cache: string;
}

const isExecutable = (p: string) => {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const exists = (p: string) => {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
};

/** `text` rendered with the host folders only; undefined when it names a trial variable. */
function hostRender(text: string, roots: LaunchRoots): string | undefined {
  try {
    return renderTemplate(text, { ...roots });
  } catch (e) {
    if (e instanceof TemplateError) return undefined;
    throw e;
  }
}

/**
 * What is wrong with the launch of configuration `config` (empty when nothing the host can see is):
 * a program not found on `searchPath` or not executable, an argument under a read-only root that does
 * not exist. Each message names the field and what to do.
 */
export function launchProblems(
  loaded: LoadedAdapter,
  config: string,
  roots: LaunchRoots,
  searchPath: string[],
): string[] {
  const a = loaded.adapter;
  const args = [...a.launch.command, ...(a.configs[config]?.args ?? [])];
  const where = (i: number) =>
    i < a.launch.command.length
      ? `launch.command[${i}]`
      : `configs.${config}.args[${i - a.launch.command.length}]`;
  const out: string[] = [];
  // An adapter that installs its harness fills {{cache}} when the run starts: not there yet is fine.
  const pending = (p: string) => !!a.install && (p === roots.cache || p.startsWith(`${roots.cache}/`));
  const exe = hostRender(args[0]!, roots);
  if (exe !== undefined && !pending(exe)) {
    if (exe.includes('/')) {
      if (!isAbsolute(exe)) {
        // Relative to launch.cwd, a trial folder: nothing to check on the host.
      } else if (!exists(exe)) out.push(`${where(0)} "${exe}" does not exist: fix the path of the harness`);
      else if (!isExecutable(exe))
        out.push(
          `${where(0)} "${exe}" is not an executable file: chmod +x it, or launch it with its interpreter`,
        );
    } else if (!searchPath.some((d) => isExecutable(join(d, exe))))
      out.push(
        `${where(0)} "${exe}" is not found on the trial's PATH (${searchPath.join(delimiter)}): install it, or give its full path`,
      );
  }
  const rootDirs = Object.values(roots).filter(Boolean);
  args.forEach((raw, i) => {
    if (i === 0 || !raw.includes('{{')) return;
    const v = hostRender(raw, roots);
    if (v === undefined || !isAbsolute(v)) return;
    if (rootDirs.some((r) => v === r || v.startsWith(`${r}/`)) && !pending(v) && !exists(v))
      out.push(`${where(i)} "${v}" does not exist (from "${raw}"): fix the path, or build the harness first`);
  });
  return out;
}
