// An npm install runs the harness package's install scripts (and its dependencies'): code the harness's
// authors wrote, run before any sandbox exists. It gets what npm needs to reach its registry and nothing
// of the job: not its token, inputs or runner variables, not a provider key or cloud credential.
import { existsSync, readFileSync } from 'node:fs';
import { FORBIDDEN_ENV } from '../job-env.js';
import { userNpmrc } from './npmrc.js';

/** What npm and Node need to run and to reach a registry (through a proxy, with a private CA). */
const NEEDED =
  /^(PATH|HOME|TMPDIR|TMP|TEMP|LANG|LC_[A-Z]+|TZ|USER|LOGNAME|SHELL|NODE_EXTRA_CA_CERTS|NODE_OPTIONS|SSL_CERT_(FILE|DIR)|(HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy|npm_config_\w+|NPM_CONFIG_\w+)$/;

/** Pure: the variables `${NAME}` in .npmrc texts refer to (a token the registry needs). */
export function npmrcReferences(texts: string[]): string[] {
  return [
    ...new Set(
      texts.flatMap((t) => [...t.matchAll(/(?<!\\)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!)),
    ),
  ];
}

/**
 * Pure: the install's environment from the parent's: what npm needs, plus the variables the .npmrc files
 * name; never a forbidden one, even when an .npmrc names it (a registry token belongs in its own variable).
 */
export function installEnv(parent: NodeJS.ProcessEnv, npmrcTexts: string[] = []): NodeJS.ProcessEnv {
  const referenced = new Set(npmrcReferences(npmrcTexts));
  return Object.fromEntries(
    Object.entries(parent).filter(
      ([k, v]) => v !== undefined && !FORBIDDEN_ENV.test(k) && (NEEDED.test(k) || referenced.has(k)),
    ),
  );
}

/** The .npmrc files npm reads for an install of this project: the project's copy and the user's. */
export function npmrcTextsFor(parent: NodeJS.ProcessEnv, projectNpmrc: string | undefined): string[] {
  return [projectNpmrc, userNpmrc(parent)]
    .filter((f): f is string => !!f && existsSync(f))
    .map((f) => readFileSync(f, 'utf8'));
}
