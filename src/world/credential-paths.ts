// Credential files a harness must never read although a folder it may read holds them: the job token
// actions/checkout keeps in .git/config (and each submodule's config), the files cloud-auth actions
// leave in the workspace (gha-creds-*.json), dotenv files, netrc, registry and cloud credentials.
// One list, used by the engine to build the hide list every runner applies (the same view under
// process and docker) and by the secret mask to learn the values those files hold.
import { lstatSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import picomatch from 'picomatch';

export interface CredentialPattern {
  /** A glob over the path relative to the scanned folder (picomatch, `dot: true`). */
  glob: string;
  /** Who leaves such a file there, for the docs and the report. */
  why: string;
}

/** Every pattern; `**\/` so a nested checkout or package is covered as well as the root. */
export const CREDENTIAL_PATTERNS: readonly CredentialPattern[] = [
  { glob: '**/.git/config', why: 'actions/checkout keeps the job token there (persist-credentials)' },
  {
    glob: '**/git-credentials-*.config',
    why: 'actions/checkout v6 keeps the job token there, in RUNNER_TEMP (persist-credentials)',
  },
  { glob: '**/.git/modules/**/config', why: 'the config of each submodule checkout (same token)' },
  { glob: '**/.git/credentials', why: 'git credential store inside a repository' },
  { glob: '**/.git-credentials', why: 'git credential store' },
  { glob: '**/gha-creds-*.json', why: 'google-github-actions/auth credential file' },
  { glob: '**/.env', why: 'dotenv file' },
  { glob: '**/.env.!(example|sample|template|dist)', why: 'dotenv file' },
  { glob: '**/*.env', why: 'dotenv file' },
  { glob: '**/{.netrc,_netrc}', why: 'netrc credentials' },
  { glob: '**/{.npmrc,.yarnrc.yml,.pypirc}', why: 'package registry token' },
  { glob: '**/.docker/config.json', why: 'registry login' },
  { glob: '**/.aws/{credentials,config}', why: 'AWS credentials' },
  { glob: '**/.kube/config', why: 'Kubernetes credentials' },
  { glob: '**/.config/gh/hosts.yml', why: 'GitHub CLI token' },
  { glob: '**/{id_rsa,id_dsa,id_ecdsa,id_ed25519}', why: 'SSH private key' },
  { glob: '**/*.{pem,key,p12,pfx}', why: 'private key or certificate bundle' },
];

/** Folders never descended into: installed dependencies and git's object store hold no job credential. */
const SKIP_DIR = /(^|\/)(node_modules|\.git\/(objects|lfs|logs|refs))$/;
/** Entries visited at most per scanned folder; beyond it the scan says so (never a silent partial view). */
export const MAX_SCAN_ENTRIES = 200_000;

const matchers = CREDENTIAL_PATTERNS.map((p) => ({ p, m: picomatch(p.glob, { dot: true }) }));

/** The pattern a relative path matches, if any (`/`-separated). */
export function credentialPattern(rel: string): CredentialPattern | undefined {
  const posix = rel.split(sep).join('/');
  return matchers.find(({ m }) => m(posix))?.p;
}

export interface CredentialScan {
  /** Absolute paths of the credential files found (files or symbolic links). */
  found: string[];
  /** Found, but the adapter exposes them on purpose (`expose:`): not hidden, and the report says so. */
  exposed: string[];
  /** The scan stopped at MAX_SCAN_ENTRIES: the caller must not present the view as complete. */
  truncated: boolean;
}

/**
 * The credential files under `root`, walked without following links (a link named `.env` is hidden
 * itself). `expose` globs (relative to `root`) keep matching files visible.
 */
export function scanCredentials(
  root: string,
  expose: readonly string[] = [],
  maxEntries = MAX_SCAN_ENTRIES,
): CredentialScan {
  const exposed = expose.length ? picomatch([...expose], { dot: true }) : () => false;
  const out: CredentialScan = { found: [], exposed: [], truncated: false };
  let seen = 0;
  const stack = [root];
  while (stack.length) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (++seen > maxEntries) {
        out.truncated = true;
        return out;
      }
      const abs = join(dir, name);
      const st = (() => {
        try {
          return lstatSync(abs);
        } catch {
          return undefined;
        }
      })();
      if (!st) continue;
      const rel = relative(root, abs).split(sep).join('/');
      if (st.isDirectory()) {
        if (!SKIP_DIR.test(rel)) stack.push(abs);
        continue;
      }
      if (!credentialPattern(rel)) continue;
      (exposed(rel) ? out.exposed : out.found).push(abs);
    }
  }
  out.found.sort();
  out.exposed.sort();
  return out;
}
