// Which of the job's values are secrets. A custom secret passed with `env:` (`DB_CONN`, `STRIPE_LIVE`)
// has no secret-looking name, so every variable of the job's environment is a secret unless its name is
// on a short allow-list of variables the runner and the system set (which reports quote: the repository,
// the commit, paths) or its value cannot be a secret (too short, a number, a version, a plain word or
// two, a path). docs/internals.md ("What is published") states the rule; test/report-mask.test.ts
// table-tests it.
import { MIN_SECRET } from './mask-forms.js';

/**
 * Variables whose value is a secret by their name, whatever it looks like (provider keys, tokens…). A `-`
 * counts as a separator too: the runner passes the `model-key` input as INPUT_MODEL-KEY.
 */
export const SECRET_NAME =
  /TOKEN|SECRET|PASSW(OR)?D|(^|[_-])(API_?)?KEY($|_)|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH|(^|_)PAT($|_)/i;

/**
 * Variables that are not secrets (unless their name says so, e.g. GITHUB_TOKEN): the GitHub context
 * (GITHUB_*: GitHub refuses secrets and `env:` names with that prefix), the system's own (PATH, HOME,
 * USER, SHELL, locale, terminal, temp dirs, XDG_*), CI and the runner image's ImageOS/ImageVersion.
 */
export const NON_SECRET_VARIABLE =
  /^(GITHUB_\w+|PATH|HOME|USER|USERNAME|LOGNAME|SHELL|PWD|OLDPWD|HOSTNAME|SHLVL|TERM|COLORTERM|TZ|LANG|LANGUAGE|LC_\w+|TMPDIR|TEMP|TMP|CI|DEBIAN_FRONTEND|XDG_\w+|ImageOS|ImageVersion|_)$/;

/**
 * The runner's own variables and the action's inputs: kept to values that look like a credential, since
 * inputs (`open`, `reference`, `subset:smoke`, `results/run.json`) are quoted by the report.
 */
const RUNNER_VARIABLE = /^(INPUT_|ACTIONS_|RUNNER_)/i;

/** A value that looks like a credential: long, one word, letters and digits, many different characters. */
export function credentialLike(value: string): boolean {
  // A path input (`results/run-2026-11.json`) is not a credential; base64 with a `/` has `+` or `=` too.
  const path = value.includes('/') && !/[+=]/.test(value);
  return (
    !path &&
    value.length >= 16 &&
    !/\s/.test(value) &&
    /[A-Za-z]/.test(value) &&
    /\d/.test(value) &&
    new Set(value).size >= 10
  );
}

/**
 * A path segment that reads as random: one of its words (split at `-`, `_`, `.`) mixes upper case, lower
 * case and digits (8+ characters), or is a long run of letters and digits (16+): a token, not a name.
 */
function randomSegment(segment: string): boolean {
  return segment.split(/[-_.]/).some((w) => {
    const letters = /[A-Za-z]/.test(w);
    const digits = /\d/.test(w);
    const mixed = /[A-Z]/.test(w) && /[a-z]/.test(w) && digits;
    return (mixed && w.length >= 8) || (letters && digits && w.length >= 16);
  });
}

const NUMBER = /^[+-]?\d+([.,:]\d+)*$/;
const VERSION = /^v?\d+(\.\d+)+(-[0-9a-z]+(\.[0-9a-z]+)*)?$/;
/** One to three words of letters (each at most 12): `production`, `ubuntu-latest`, `GitHub Actions`. */
const WORDS = /^[A-Za-z]{1,12}([ ._-][A-Za-z]{1,12}){0,2}$/;
/** An absolute or relative path, or a `:`-separated list of absolute paths, of plain path characters. */
const PATH = /^(\/[\w.@~-]*)+(:(\/[\w.@~-]*)+)*$|^[\w.@~-]+(\/[\w.@~-]*)+$/;

/**
 * Whether a value with no secret-looking name can be a secret. It cannot when it is shorter than
 * MIN_SECRET, a number, a version, one to three plain words, or a path none of whose segments reads as
 * random; everything else can (a connection string, a URL, a random token, a passphrase of four words).
 */
export function mayBeSecret(value: string): boolean {
  const v = value.trim();
  if (v.length < MIN_SECRET || NUMBER.test(v) || VERSION.test(v) || WORDS.test(v)) return false;
  if (PATH.test(v)) return v.split(/[/:]/).some(randomSegment);
  return true;
}

/** Whether variable `name` with `value` is one of the job's secrets (see the file's header). */
export function secretVariable(name: string, value: string): boolean {
  if (value.trim().length < MIN_SECRET) return false;
  if (SECRET_NAME.test(name)) return true;
  if (NON_SECRET_VARIABLE.test(name)) return false;
  if (RUNNER_VARIABLE.test(name)) return credentialLike(value);
  return mayBeSecret(value);
}

/** Whether an entry `key = value` of a credential file (a .env line, a JSON field) is a secret: by its key's name or its value. */
export function secretEntry(key: string, value: string): boolean {
  return value.trim().length >= MIN_SECRET && (SECRET_NAME.test(key) || mayBeSecret(value));
}

/** The values of an environment that are the job's secrets. */
export function environmentSecrets(env: Record<string, string | undefined>): string[] {
  return Object.entries(env).flatMap(([name, value]) =>
    value !== undefined && secretVariable(name, value) ? [value] : [],
  );
}
