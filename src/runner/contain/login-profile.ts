// The /etc/profile a contained trial's login shells read. Harnesses that run every command as a login
// shell (`sh -l -c`, `bash -lc`: Continue's CLI does) read /etc/profile first, and Debian's sets PATH to a
// fixed list: the trial's bin/ (the `svc` CLI, `mcp-stdio`) would vanish from the harness's shell, and its
// service steps fail for a reason that is no part of the harness. GitHub's Ubuntu runners leave PATH alone
// there; the sandbox does the same: the host's file, then the PATH the shell started with put back in front.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The host's system-wide login profile. */
export const HOST_PROFILE = '/etc/profile';

/** The profile text: the host's `profile`, with the PATH the login shell inherited put back first. Pure. */
export function loginProfile(host: string): string {
  return [
    '# harness-risk: the host /etc/profile, then the PATH this shell inherited put back in front (a login',
    '# shell keeps the trial bin/ as on Ubuntu, where /etc/profile does not set PATH).',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    '__hr_inherited_path="${PATH-}"',
    host.replace(/\n?$/, '\n'),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    'if [ -n "$__hr_inherited_path" ]; then PATH="$__hr_inherited_path${PATH:+:$PATH}"; export PATH; fi',
    'unset __hr_inherited_path',
    '',
  ].join('\n');
}

/**
 * Writes the trial's profile into `dir` (the engine's folder for the trial, outside its writable ones) and
 * returns its path; undefined when the host has none (nothing to replace).
 */
export function writeLoginProfile(dir: string, host = HOST_PROFILE): string | undefined {
  if (!existsSync(host)) return undefined;
  const path = join(dir, 'profile');
  writeFileSync(path, loginProfile(readFileSync(host, 'utf8')), { mode: 0o644 });
  return path;
}
