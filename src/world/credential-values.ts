// The secret values a credential file holds (the files credential-paths.ts lists), so the job's secret
// mask covers them: a harness that reads one (the checkout's token in .git/config, a service-account key
// in gha-creds-*.json, a .env) and prints it is masked like an environment secret. Each kind of file is
// read by its own small parser; what it returns is either certainly secret (a token, a password, a
// private key) or a `key = value` entry the mask's rule judges (report/secret-rule.ts), so `PORT=3000`
// or `type: service_account` stay visible.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { credentialPattern, scanCredentials } from './credential-paths.js';

/** A value read from a credential file: secret for certain, or a named entry to judge by name and value. */
export type CredentialValue = { value: string; certain: true } | { value: string; key: string };

export type CredentialKind = 'git-config' | 'git-credentials' | 'dotenv' | 'json' | 'netrc' | 'ini' | 'pem';

/** Larger files are not read (a credential file is small; a big `*.key` is something else). */
const MAX_FILE_BYTES = 1 << 20;

const certain = (value: string): CredentialValue => ({ value, certain: true });

/** The kind of a credential file, by its name. */
export function credentialKind(path: string): CredentialKind {
  const name = basename(path);
  if (name === 'config' && /(^|\/)\.git(\/modules\/.+)?\/config$/.test(path)) return 'git-config';
  if (/^git-credentials-.+\.config$/.test(name)) return 'git-config'; // checkout v6, in RUNNER_TEMP
  if (name === '.git-credentials' || /\.git\/credentials$/.test(path)) return 'git-credentials';
  if (name === '.env' || name.startsWith('.env.') || name.endsWith('.env')) return 'dotenv';
  if (name.endsWith('.json')) return 'json';
  if (name === '.netrc' || name === '_netrc') return 'netrc';
  if (/^(id_(rsa|dsa|ecdsa|ed25519)|.*\.(pem|key|p12|pfx))$/.test(name)) return 'pem';
  return 'ini'; // .npmrc, .pypirc, .yarnrc.yml, .aws/*, .kube/config, gh hosts.yml: `key = value` / `key: value`
}

/** `user:password@` in URLs, wherever they appear: the password (decoded and as written) and the pair. */
function urlUserinfo(text: string): CredentialValue[] {
  return [...text.matchAll(/[a-z][a-z0-9+.-]*:\/\/([^\s/@:'"]+):([^\s/@'"]+)@/gi)].flatMap((m) => {
    const [user, pass] = [m[1]!, m[2]!];
    const decoded = safeDecode(pass);
    return [certain(pass), certain(decoded), certain(`${safeDecode(user)}:${decoded}`)];
  });
}

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** `Authorization: basic <base64>` (the checkout's extraheader) or `bearer <token>`: the credential and, for basic, the decoded pair and password. */
function authorizationHeaders(text: string): CredentialValue[] {
  return [
    ...text.matchAll(/authorization["']?\s*[:=]\s*["']?(basic|bearer|token)\s+([A-Za-z0-9+/=._~-]+)/gi),
  ].flatMap((m) => {
    const cred = m[2]!;
    if (m[1]!.toLowerCase() !== 'basic') return [certain(cred)];
    const pair = Buffer.from(cred, 'base64').toString('utf8');
    const pass = pair.includes(':') ? pair.slice(pair.indexOf(':') + 1) : '';
    return [certain(cred), certain(pair), ...(pass ? [certain(pass)] : [])];
  });
}

/** `KEY=VALUE` lines (optional `export `, quotes, `#` comments). */
function dotenvValues(text: string): CredentialValue[] {
  return [...text.matchAll(/^\s*(?:export\s+)?([A-Za-z_][\w.-]*)\s*=\s*(.*)$/gm)].map((m) => {
    let value = m[2]!.trim();
    const q = value[0];
    if ((q === '"' || q === "'") && value.lastIndexOf(q) > 0) value = value.slice(1, value.lastIndexOf(q));
    else value = value.replace(/\s+#.*$/, '');
    return { key: m[1]!, value: value.replace(/\\n/g, '\n') };
  });
}

/** Every string of a JSON document, named by its key; base64 `auth` pairs (docker config) decoded. */
function jsonValues(text: string): CredentialValue[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return iniValues(text);
  }
  const out: CredentialValue[] = [];
  const walk = (v: unknown, key: string) => {
    if (typeof v === 'string') {
      out.push({ key, value: v }, ...pemValues(v));
      if (key === 'auth') out.push(...authorizationHeaders(`authorization: basic ${v}`));
    } else if (Array.isArray(v)) for (const x of v) walk(x, key);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(doc, '');
  return out;
}

/** netrc: the token after each `password` (and `login`, which for a token credential is often the token). */
function netrcValues(text: string): CredentialValue[] {
  const words = text.split(/\s+/);
  return words.flatMap((w, i) => {
    const next = words[i + 1];
    if (!next) return [];
    if (w === 'password') return [certain(next)];
    if (w === 'login') return [{ key: 'login', value: next }];
    return [];
  });
}

/**
 * `key = value` lines (ini, npmrc: `//registry/:_authToken=…`, the key being its last `:` part) and
 * `key: value` lines (yaml), quotes removed.
 */
function iniValues(text: string): CredentialValue[] {
  const unquote = (v: string) => v.trim().replace(/^(["'])(.*)\1$/, '$2');
  return text.split(/\r?\n/).flatMap((line): CredentialValue[] => {
    const ini = /^\s*([^\s=#;][^=]*?)\s*=\s*(.+)$/.exec(line);
    if (ini) return [{ key: ini[1]!.split(':').at(-1)!, value: unquote(ini[2]!) }];
    const yaml = /^\s*(?:-\s+)?["']?([\w.-]+)["']?\s*:\s+(.+)$/.exec(line);
    return yaml ? [{ key: yaml[1]!, value: unquote(yaml[2]!) }] : [];
  });
}

/** PEM blocks: each block whole and its base64 body (the mask also masks each line). */
function pemValues(text: string): CredentialValue[] {
  return [...text.matchAll(/-----BEGIN [^-]+-----([\s\S]*?)-----END [^-]+-----/g)].flatMap((m) => [
    certain(m[0]),
    certain(m[1]!.trim()),
  ]);
}

/** The secret values in the text of a credential file of `kind`. */
export function credentialValues(kind: CredentialKind, text: string): CredentialValue[] {
  const byKind: Record<CredentialKind, (t: string) => CredentialValue[]> = {
    'git-config': () => [],
    'git-credentials': () => [],
    dotenv: dotenvValues,
    json: jsonValues,
    netrc: netrcValues,
    ini: iniValues,
    pem: () => [],
  };
  // Any file can hold a URL with a password, an Authorization header or a private key.
  return [...byKind[kind](text), ...urlUserinfo(text), ...authorizationHeaders(text), ...pemValues(text)];
}

/** Folders of HOME that hold caches and toolchains, never a job's credential file. */
const SKIP_IN_HOME =
  /^(\.cache|\.npm|\.cargo|\.rustup|\.local|node_modules|\.nvm|\.gradle|\.m2|go|work|\.vscode-server)$/;

/** Credential files near the top of `dir` (at most `depth` folders down): HOME and RUNNER_TEMP, where setup and login actions write them. */
export function shallowCredentialFiles(dir: string, depth = 3): string[] {
  const out: string[] = [];
  const visit = (d: string, left: number) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names.slice(0, 2000)) {
      const abs = join(d, name);
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(abs);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (left > 0 && !(d === dir && SKIP_IN_HOME.test(name))) visit(abs, left - 1);
      } else if (st.isFile() && credentialPattern(relative(dir, abs))) out.push(abs);
    }
  };
  visit(dir, depth);
  return out.sort();
}

/**
 * The secret values of every credential file under `workspace` (scanCredentials, exposed files too: the
 * adapter shows them to the harness on purpose, they are still the job's) and near the top of `extra`
 * folders (HOME, RUNNER_TEMP). Unreadable or oversized files are skipped: the mask then holds less, the
 * hide list (credential-paths.ts) still applies.
 */
export function credentialFileValues(
  workspace: string | undefined,
  extra: (string | undefined)[] = [],
): CredentialValue[] {
  const files = new Set<string>();
  if (workspace) {
    const scan = scanCredentials(workspace);
    for (const f of [...scan.found, ...scan.exposed]) files.add(f);
  }
  for (const dir of extra) if (dir) for (const f of shallowCredentialFiles(dir)) files.add(f);
  return [...files].flatMap((file) => {
    try {
      const st = lstatSync(file);
      if (!st.isFile() || st.size > MAX_FILE_BYTES) return [];
      return credentialValues(credentialKind(file), readFileSync(file, 'utf8'));
    } catch {
      return [];
    }
  });
}
