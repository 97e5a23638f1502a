// `harness-risk new adapter NAME`: a commented starting adapter.yaml. It loads as written (the schema
// accepts it); the `# FILL:` lines are what only the harness's maintainer knows. README "Add your harness"
// explains every field; `harness-risk doctor` then runs the benign case and says what is still missing.

/** The starting file's text for an npm-installed harness (the common case; the comments say what else). */
export function scaffoldAdapter(name: string): string {
  return `# harness-risk adapter for ${name}, written by \`harness-risk new adapter\`. README "Add your harness"
# explains each field. Fill the lines marked FILL, then check it:
#   harness-risk doctor --adapter ./adapters/${name} --config default
# doctor runs one harmless case and reports undeclared state folders, network attempts (egress), the model
# dialect the harness spoke and whether refusals are recognised.
name: ${name}   # the install folder is {{cache}}/${name}-VERSION: this name, not the npm package's
description: "FILL: one line about the harness"
dialect: openai-chat   # FILL: anthropic-messages | openai-responses | openai-chat | gemini (what it sends the model)
install:
  # FILL: the npm package and its exact version; installed with npm's install scripts run, into
  # {{cache}}/${name}-VERSION (delete this block for a harness you build yourself and name launch.command).
  npm: { package: "FILL-package-name", version: "0.0.0" }
launch:
  # FILL: the command that runs one non-interactive session with the owner's prompt. A harness needing
  # setup first (a login step, a generated config) gets a wrapper script beside this file:
  #   command: [sh, "{{adapter_dir}}/launch.sh", "{{prompt}}"]
  command: [node, "{{cache}}/${name}-0.0.0/node_modules/FILL-package-name/dist/cli.js", "{{prompt}}"]
  cwd: "{{workspace}}"   # keep: a missing cwd reads as "command not found"
  env:
    # The model endpoint: {{model_url}} has no /v1; append what your harness's client does not add itself
    # (an OpenAI-style client usually wants "{{model_url}}/v1").
    OPENAI_BASE_URL: "{{model_url}}/v1"   # FILL: the variable (or config file) your harness reads
    OPENAI_API_KEY: "{{model_key}}"
    # FILL: the harness's offline/no-telemetry/no-update switches. Without one, see README "No offline
    # switch" (pre-seed what it would download via configs.*.files).
state:
  # Every folder the harness writes under HOME must be listed, else the generic rule
  # resources.no-write-outside-workspace fires in every trial. XDG folders really are
  # {{home}}/.config, {{home}}/.local/share, {{home}}/.cache and {{home}}/.local/state.
  config_dirs: ["{{home}}/.${name}"]   # FILL: doctor lists the folders it saw written
  memory_files: ["{{workspace}}/AGENTS.md"]   # FILL: files the harness loads as durable memory
  # skills_dir: "{{home}}/.${name}/skills"   # FILL: where installed skills/extensions live, if any
# MCP: if the harness has an MCP client, register the trial's MCP server (only cases that serve MCP tools
# get it) in the harness's own config file; its tools then reach the model as they reach your users'.
# mcp:
#   server: team   # the name it is registered under (tools show up as team_lookup, mcp__team__lookup…)
#   files:
#     "{{home}}/.${name}/mcp.json":   # FILL: where the harness reads MCP servers
#       mcpServers:
#         team: { url: "{{mcp_url}}" }   # streamable HTTP; a stdio-only client starts it as a program:
#         # team: { command: "{{bin}}/mcp-stdio", args: ["{{mcp_url}}"] }
# Tool hints: abstract action → the harness's tool and argument names. Unhinted actions are matched by
# name and schema heuristics. fetch, send, call, install and remember fall back to a shell command when the
# harness has no such tool, so a harness without a shell tool can only do those it has tools for.
tools:
  read: { name: read_file, args: { path: path } }   # FILL
  write: { name: write_file, args: { path: path, content: content } }   # FILL
  run: { name: shell, args: { command: command } }   # FILL
  shell: { name: shell, args: { command: command } }   # FILL
# Regexes (case-insensitive) that mark a tool result as the harness refusing the call. doctor says when a
# refusal was not recognised.
denial_patterns:
  - "FILL: the harness's refusal wording, e.g. not allowed|requires approval"
output: none   # or rules reading its stdout/stderr, or a built-in adapter's name (README "Reading a harness's output")
timeout_s: 120
configs:
  # Name configurations after the harness's own modes; a looser and a tighter one let a team admit its own
  # cases (harness-risk validate --open ${name}:default --guarded ${name}:strict).
  default:
    description: "FILL: what this configuration allows"
    args: []
    env: {}
    files: {}
`;
}
