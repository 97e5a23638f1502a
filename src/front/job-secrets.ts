// The job's secrets, masked in everything either front end (action or CLI) prints or writes: the
// environment's secrets and the credential files' values, in every form the renderers produce.
import { inertMarkdown } from '../report/escape.js';
import { xmlEscape } from '../report/junit.js';
import { NO_MASK, SecretMask, withSecretMask } from '../report/mask.js';
import { secretEntry } from '../report/secret-rule.js';
import { credentialFileValues } from '../world/credential-values.js';

/** The mask for finished output: each secret raw, markdown-escaped, XML-escaped and JSON-escaped. */
export function outputMask(mask: SecretMask): SecretMask {
  // xmlEscape masks too; under NO_MASK it shows what the secret itself becomes.
  const xml = (s: string) => withSecretMask(NO_MASK, () => xmlEscape(s, Number.MAX_SAFE_INTEGER));
  return mask.withForms(inertMarkdown, xml, (s) => JSON.stringify(s).slice(1, -1));
}

export interface JobSecretSources {
  /** The repository checkout whose credential files (credential-paths.ts) hold secrets: GITHUB_WORKSPACE. */
  workspace?: string;
  /** Folders whose top holds credential files setup and login actions write (HOME, RUNNER_TEMP). */
  near?: (string | undefined)[];
}

/** The secret values of the credential files of `sources` (certain ones, and entries the rule judges). */
export function credentialSecrets(sources: JobSecretSources): string[] {
  return credentialFileValues(sources.workspace, sources.near ?? []).flatMap((v) =>
    'certain' in v || secretEntry(v.key, v.value) ? [v.value] : [],
  );
}

/**
 * The job's secret mask: every secret of the environment the action runs in (before anything is removed
 * from it; report/secret-rule.ts), and the values of the credential files in the workspace and near the
 * top of HOME and RUNNER_TEMP (read when the mask is first used), in every form (report/mask-forms.ts)
 * and as the renderers escape them.
 */
export function jobSecretMask(
  env: NodeJS.ProcessEnv,
  sources: JobSecretSources = { workspace: env.GITHUB_WORKSPACE, near: [env.HOME, env.RUNNER_TEMP] },
): SecretMask {
  return outputMask(SecretMask.fromEnv(env).with(() => credentialSecrets(sources)));
}
