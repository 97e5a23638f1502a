// The engine a result names (its `tool`), in one line for the PR comment, a matrix and the comparison's
// notices.
/** The engine as a result names it: `1.0.0 (abc1234)`, `1.0.0 (abc1234, modified)`, `1.0.0 (owner/repo@v1)`. */
export function describeEngine(tool: {
  version: string;
  commit?: string;
  modified?: boolean;
  ref?: string;
}): string {
  const at = tool.commit ? `${tool.commit.slice(0, 7)}${tool.modified ? ', modified' : ''}` : tool.ref;
  return at ? `${tool.version} (${at})` : tool.version;
}
