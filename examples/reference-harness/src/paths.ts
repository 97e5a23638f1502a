// Path handling for the reference harness: `~` expansion, symlink-aware resolution, workspace scope and
// a small glob matcher for protected paths (no dependencies beyond node built-ins).
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** Expands a leading `~` or `~/` to HOME. */
export function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return p;
}

/** Absolute, lexically normalised path: `~` expanded, relative paths resolved against `cwd`. */
export function absolutePath(p: string, cwd: string, home: string): string {
  return path.resolve(cwd, expandHome(p, home));
}

/**
 * The real location a path refers to, following every symlink that exists: the deepest existing ancestor
 * is realpath'd and the rest appended. A dangling symlink is followed to its target as well.
 */
export function realPath(abs: string, depth = 0): string {
  const rest: string[] = [];
  let current = abs;
  for (let guard = 0; guard < 4096; guard++) {
    try {
      const real = realpathSync(current);
      return rest.length ? path.join(real, ...rest.reverse()) : real;
    } catch {
      // A dangling symlink: follow it to where a write would land.
      let link: string | undefined;
      try {
        if (lstatSync(current).isSymbolicLink()) link = readlinkSync(current);
      } catch {
        link = undefined;
      }
      if (link !== undefined && depth < 40) {
        const target = path.resolve(path.dirname(current), link);
        const real = realPath(target, depth + 1);
        return rest.length ? path.join(real, ...rest.reverse()) : real;
      }
      const parent = path.dirname(current);
      if (parent === current) return abs;
      rest.push(path.basename(current));
      current = parent;
    }
  }
  return abs;
}

/** True when `p` is `dir` or inside it (both absolute and normalised). */
export function isInside(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Compiles a glob (`**`, `*`, `?`, `{a,b}`) to a regular expression over `/`-separated paths. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let i = 0;
  let braces = 0;
  while (i < glob.length) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` = zero or more whole segments; a trailing `**` = anything (including nothing).
        if (glob[i + 2] === '/') {
          re += '(?:.*/)?';
          i += 3;
        } else {
          re += '.*';
          i += 2;
        }
      } else {
        re += '[^/]*';
        i += 1;
      }
      continue;
    }
    if (c === '?') re += '[^/]';
    else if (c === '{') {
      braces++;
      re += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      re += ')';
    } else if (c === ',' && braces > 0) re += '|';
    else re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
    i += 1;
  }
  // `dir/**` also protects `dir` itself.
  if (re.endsWith('/.*')) re = `${re.slice(0, -3)}(?:/.*)?`;
  return new RegExp(`^${re}$`);
}

export interface ProtectedMatcher {
  /** The glob that protects `abs`, if any. */
  match(abs: string): string | undefined;
}

/**
 * Protected-path globs: `~/…` is relative to HOME, an absolute glob is absolute, anything else is
 * relative to the workspace. Both the lexical and the real (symlink-resolved) path are tested.
 */
export function protectedMatcher(globs: string[], workspace: string, home: string): ProtectedMatcher {
  const compiled = globs.map((glob) => {
    if (glob.startsWith('~/') || glob === '~') {
      return { glob, base: home, re: globToRegExp(glob === '~' ? '**' : glob.slice(2)) };
    }
    if (path.isAbsolute(glob)) return { glob, base: '/', re: globToRegExp(glob.slice(1)) };
    return { glob, base: workspace, re: globToRegExp(glob.replace(/^\.\//, '')) };
  });
  const realHome = realPath(home);
  const realWs = realPath(workspace);
  const test = (abs: string): string | undefined => {
    for (const { glob, base, re } of compiled) {
      const bases = base === home ? [home, realHome] : base === workspace ? [workspace, realWs] : [base];
      for (const b of bases) {
        if (!isInside(abs, b)) continue;
        const rel = path.relative(b, abs).split(path.sep).join('/');
        if (rel !== '' && re.test(rel)) return glob;
      }
    }
    return undefined;
  };
  return {
    match(abs) {
      return test(abs) ?? test(realPath(abs));
    },
  };
}

const SECRET_NAME =
  /(^\.env(\..*)?$|\.pem$|\.key$|key|token|credential|secret|password|passwd|^\.netrc$|^\.npmrc$|^\.pypirc$|^id_[a-z0-9]+$)/i;

/** True for files whose content should be treated as secret (provenance tracking). */
export function looksSecretPath(abs: string, home: string): boolean {
  const base = path.basename(abs);
  if (SECRET_NAME.test(base)) return true;
  for (const dir of ['.ssh', '.aws', '.gnupg', '.docker', '.kube']) {
    if (isInside(abs, path.join(home, dir))) return true;
  }
  return false;
}
