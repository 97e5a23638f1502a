// What a secret looks like: the token shapes of the common providers. One definition for every place
// that decides "this string is a secret by its look": the reference harness's guard (a secret-shaped
// value in a tool result is tainted: it may not leave) and the report's mask (printed whole, it would
// trip secret scanning or leak). Group 1 of each shape is the prefix that tells the kind (kept when
// masked); the whole match is the secret. Lengths are the shortest a real token of the kind has, less a
// margin, so words such as `sk-learn` or `npm_config_registry` never match.
export const SECRET_SHAPES: readonly RegExp[] = [
  // GitHub: personal (ghp_), OAuth (gho_), user-to-server (ghu_), server-to-server/Actions (ghs_), refresh (ghr_).
  /\b(gh[pousr]_)[A-Za-z0-9]{16,}/g,
  /\b(github_pat_)[A-Za-z0-9_]{20,}/g,
  // npm access tokens: npm_ and 36 letters and digits (npm_config_registry and the like have underscores).
  /\b(npm_)[A-Za-z0-9]{30,}/g,
  /\b(glpat-)[A-Za-z0-9_-]{16,}/g,
  /\b(pypi-)[A-Za-z0-9_-]{32,}/g,
  /\b([sr]k_(?:live|test)_)[A-Za-z0-9]{10,}/g,
  /\b(sk-ant-)[A-Za-z0-9_-]{16,}/g,
  /\b(sk-(?:proj-)?)[A-Za-z0-9_-]{16,}/g,
  /\b((?:AKIA|ASIA))[0-9A-Z]{16}\b/g,
  /\b(xox[abeoprs]-)[A-Za-z0-9-]{10,}/g,
  /\b(AIza)[0-9A-Za-z_-]{30,}/g,
  /\b(eyJ)[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*/g,
];

/** The secret-shaped substrings of `text`, whole (prefix included). */
export function secretShapedStrings(text: string): string[] {
  const out: string[] = [];
  for (const re of SECRET_SHAPES) for (const m of text.matchAll(re)) out.push(m[0]);
  return out;
}
