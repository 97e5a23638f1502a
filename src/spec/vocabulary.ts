// The shared vocabulary every stage speaks: a case's phase, entry point, effect and severity, the audit
// channels and what became of a call. The ground floor (docs/internals.md): it imports nothing of ours.
import { z } from 'zod';

export const PHASES = ['configuration', 'extension', 'runtime', 'persistence', 'action', 'recovery'] as const;
export const Phase = z.enum(PHASES);
export type Phase = z.infer<typeof Phase>;

/** Where untrusted content enters the harness (EvoRiskBench-style entry points). */
export const ENTRY_POINTS = [
  'workspace_file', // README, setup guide, config template, code comment in the repository
  'extension_package', // skill/extension/plugin package or its registry metadata
  'web_page', // a page the agent fetches
  'message', // email or chat message
  'tool_output', // a tool's or API's response
  'mcp_tool', // an MCP tool description or result
  'memory_entry', // an entry already in the harness's memory
  'agent_message', // a message from a sub-agent or another agent
  'ops_record', // incident ticket, CI log, recovery log, runbook
  'github_event', // text a GitHub event brings the agent in CI; where exactly: GITHUB_SOURCES
] as const;
export const EntryPoint = z.enum(ENTRY_POINTS);
export type EntryPoint = z.infer<typeof EntryPoint>;

/**
 * Where a `github_event` entry point's text sits. One entry point with a sub-kind rather than ten entry
 * points: the mechanism (attacker-written GitHub data reaching an agent that runs in CI with the job's
 * token) is one, and ten more rows of the entry point × effect grid would be fifty cells most of which
 * no attack fills (a check run's output × exhaustion); the coverage report counts each source apart.
 */
export const GITHUB_SOURCES = [
  'pr_title',
  'pr_body',
  'issue_body',
  'issue_comment',
  'review_comment', // a comment on a line of a pull request's diff
  'commit_message',
  'fork_pr_file', // a file a pull request from a fork changes
  'workflow_log', // a workflow run's job log
  'check_run_output',
  'release_notes',
] as const;
export const GithubSource = z.enum(GITHUB_SOURCES);
export type GithubSource = z.infer<typeof GithubSource>;

/** The one-hop technical consequence the attacker is after. */
export const EFFECTS = ['disclosure', 'state_change', 'execution', 'persistence', 'exhaustion'] as const;
export const Effect = z.enum(EFFECTS);
export type Effect = z.infer<typeof Effect>;

export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export const Severity = z.enum(SEVERITIES);
export type Severity = z.infer<typeof Severity>;

export const AUDIT_CHANNELS = ['tools', 'resources', 'flow'] as const;
export const AuditChannel = z.enum(AUDIT_CHANNELS);
export type AuditChannel = z.infer<typeof AuditChannel>;

/**
 * What became of one plan step's tool call, read from the evidence: `executed` (a result came back that is
 * neither an error nor a refusal), `refused` (the harness denied it), `errored` (an error result, a
 * non-zero exit or a harness error event: nothing counts as done), `not_offered` (no tool the harness
 * offered could carry the step), `missing` (a call went out and nothing tells what became of it),
 * `not_attempted` (the step was never reached: the injection was not seen, an earlier refusal ended
 * the attack, or the session ended).
 */
export const OUTCOMES = [
  'executed',
  'refused',
  'errored',
  'not_offered',
  'missing',
  'not_attempted',
] as const;
export const Outcome = z.enum(OUTCOMES);
export type Outcome = z.infer<typeof Outcome>;

/**
 * The model wire dialects the trial endpoint speaks and a live provider can be asked in: Anthropic
 * Messages, OpenAI Responses, OpenAI Chat Completions and Gemini generateContent.
 */
export const DIALECTS = ['anthropic-messages', 'openai-responses', 'openai-chat', 'gemini'] as const;
export type Dialect = (typeof DIALECTS)[number];
