// "Reproduce locally": the one CLI command that runs a single case against the configuration that
// regressed, so a reviewer can go from the PR comment (or the CLI's closing list) to a local run.
//
// Ids and names come from a run result, which may be hostile (a run result is a file anyone can hand to
// `run-result`): a command is only printed as a code span when every argument is made of a small safe
// character set; otherwise the caller gets `undefined` and prints nothing rather than something unsafe.
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { builtinAdaptersDir, builtinCasesDir } from '../paths.js';
import type { CaseInfo, RunResult } from '../spec/run-result.js';

/** Characters an argument may hold to be printed inside a code span and pasted into a shell. */
const SAFE_ARG = /^[A-Za-z0-9._:/+=,@-]+$/;
/**
 * An argument printed in single quotes: SAFE_ARG's characters plus those of a JSON list of words (an ACP
 * agent's command); no quote, backtick, pipe, `<`, `$` or control character, so it stays one shell word and
 * one code span.
 */
const QUOTABLE_ARG = /^[A-Za-z0-9._:/+=,@{}[\]" -]+$/;

const printable = (a: string) => (SAFE_ARG.test(a) ? a : QUOTABLE_ARG.test(a) ? `'${a}'` : undefined);

const inside = (dir: string, file: string) => {
  const rel = relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

/** A case of the action's own library (not one of the repository's). */
export function isBuiltinCase(file: string | undefined, cwd = process.cwd()): boolean {
  if (!file) return true;
  if (file.startsWith('builtin:')) return true;
  try {
    return inside(builtinCasesDir(), resolve(cwd, file));
  } catch {
    return false;
  }
}

/** `--adapter` argument: the built-in name when the adapter is the action's own, else its file. */
export function adapterArg(adapter: RunResult['adapter'], cwd = process.cwd()): string {
  const file = adapter.file;
  if (!file) return adapter.name;
  try {
    const abs = resolve(cwd, file);
    if (inside(builtinAdaptersDir(), abs)) return adapter.name;
    // A relative path that does not exist here (a result made elsewhere) of the built-in layout.
    if (!existsSync(abs) && file.replace(/\\/g, '/').endsWith(`adapters/${adapter.name}/adapter.yaml`))
      return adapter.name;
  } catch {
    /* no action root: fall through to the path */
  }
  return file;
}

export interface ReproduceInput {
  adapter: RunResult['adapter'];
  caseId: string;
  info?: Pick<CaseInfo, 'file'> | undefined;
  seeds?: number;
  /** The run's strategies (RunResult.model.strategies; absent: `direct` alone). */
  strategies?: string[] | undefined;
  cwd?: string;
}

/**
 * The flags that pick what a run launched: `--wiring FILE` for a wiring run (its configuration is the
 * wiring's name, no configuration of the adapter), else `--adapter A --config C`; then
 * `--harness-package PKG@VER` when the run asked for another harness build than the adapter's own.
 */
export function harnessArgs(adapter: RunResult['adapter'], cwd = process.cwd()): string[] {
  const args = adapter.wiring
    ? ['--wiring', adapter.wiring]
    : ['--adapter', adapterArg(adapter, cwd), '--config', adapter.config];
  if (adapter.build) args.push('--harness-package', `${adapter.build.package}@${adapter.build.version}`);
  // The agent the run named: without it the command cannot start (an adapter with no launch command).
  if (adapter.acp_command) args.push('--acp-command', JSON.stringify(adapter.acp_command));
  return args;
}

/** The command, or undefined when an argument is not safe to print as a shell word (quoted or not). */
export function reproduceCommand(p: ReproduceInput): string | undefined {
  const cwd = p.cwd ?? process.cwd();
  const args = ['harness-risk', 'run', ...harnessArgs(p.adapter, cwd)];
  // A repository case is found by its file; the built-in library by id alone.
  if (p.info?.file && !isBuiltinCase(p.info.file, cwd)) args.push('--cases', p.info.file);
  args.push('--cases', `id:${p.caseId}`);
  if (p.seeds && p.seeds > 1) args.push('--seeds', String(p.seeds));
  // A case unsafe under a strategy is reproduced under the run's strategies, not `direct` alone.
  if (p.strategies?.some((s) => s !== 'direct')) args.push('--strategies', p.strategies.join(','));
  const words = args.map(printable);
  return words.every((w) => w !== undefined) ? words.join(' ') : undefined;
}
