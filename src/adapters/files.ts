// The files an adapter writes before a trial: its configuration's `files`, plus — for cases that serve MCP
// tools — the adapter's `mcp.files` that register the trial's MCP server with the harness. An MCP entry at a path the
// configuration also writes joins that file rather than replacing it: text is appended (one config.toml),
// an object is merged into the configuration's JSON object (one openclaw.json).
export type FileContent = string | Record<string, unknown>;

/**
 * Why the MCP entry cannot join the configuration's file at the same path, or undefined when it can
 * (or the configuration writes no file there). Used by the adapter schema, so it fails at load time.
 */
export function joinProblem(config: FileContent | undefined, mcp: FileContent): string | undefined {
  if (config === undefined || typeof config === typeof mcp) return undefined;
  return typeof mcp === 'string'
    ? 'is text, but the configuration writes a JSON object there: write this entry as an object (merged key by key)'
    : 'is an object, but the configuration writes text there: write this entry as text (appended)';
}

/** Objects merge key by key, recursively; anything else (arrays, scalars) in `extra` replaces. */
export function deepMerge(
  base: Record<string, unknown>,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const prev = out[key];
    out[key] = isObject(prev) && isObject(value) ? deepMerge(prev, value) : value;
  }
  return out;
}

/**
 * The configuration's files joined with the MCP ones, both keyed by where they land (rendered paths):
 * MCP text is appended, an MCP object merged. Throws (message without the file) when the kinds differ.
 */
export function joinFiles(
  configFiles: Iterable<[string, FileContent]>,
  mcpFiles: Iterable<[string, FileContent]>,
): Map<string, FileContent> {
  const files = new Map(configFiles);
  for (const [key, extra] of mcpFiles) {
    const prev = files.get(key);
    const problem = joinProblem(prev, extra);
    if (problem) throw new Error(`mcp.files entry for ${key} ${problem}`);
    if (prev === undefined) files.set(key, extra);
    else if (typeof prev === 'string') files.set(key, `${prev}${extra as string}`);
    else files.set(key, deepMerge(prev, extra as Record<string, unknown>));
  }
  return files;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
