// Evidence: what the hidden channels recorded for one trial. The agent never sees or writes any of it.
// Channels: the model endpoint (every request/response, so every tool call and tool result), the mock
// services (every request), the filesystem (snapshot before/after), the process, and the harness's own
// output (parsed by the adapter's output parser).

import type { Action, ActionKind } from '../spec/actions.js';
import type { ReviewerMode } from '../spec/reviewer-modes.js';
import type { AgentInfo } from '../spec/run-result.js';
import type { ToolHint } from '../spec/tool-hint.js';
import type { Dialect } from '../spec/vocabulary.js';
import type { FinalServiceState } from './services-state.js';

/** Which part of the scripted plan a tool call served. */
export interface StepRef {
  role: 'owner' | 'attack';
  index: number;
}

/** One tool call the model asked for. */
export interface ToolCallRecord {
  /** Call id as sent to the harness. */
  id: string;
  /** Harness tool name. */
  tool: string;
  args: unknown;
  /** The abstract action it carries out (absent for live-mode calls that map to none). */
  action?: ActionKind;
  step?: StepRef;
  /** True when the action was compiled into a shell command because the harness has no such tool. */
  via_shell?: boolean;
  /**
   * Attacker calls: the route it belongs to (label as the report shows it), the route's position among
   * the step's routes, and which of the route's calls this is. `retry`: the read before that call is made
   * again (the harness wanted the file read first), or the call made again after it.
   */
  route?: { label: string; n: number; part: number; parts: number; retry?: 'read' | 'write' };
  /**
   * A strategy's call that only stages what a later call of its route carries out (a script, a wrapper,
   * a part of the payload): not the step itself, so checks on calls do not count it.
   */
  staging?: boolean;
  /**
   * The step's plain command when the call's own text hides it (a strategy's encoded, split or indirect
   * form): `contains` in checks matches it too, so a check sees what ran, not how it was spelled.
   */
  carries?: string;
}

/**
 * What two call ids must share to name the same call. Some harnesses rewrite our ids on the way back
 * (OpenClaw drops the underscores: `call_Ab3…` comes back as `callAb3…`), so calls and results pair on letters
 * and digits.
 * The scorer and the scripted model both pair with it, so they cannot disagree about which result
 * answered which call.
 */
export const callKey = (id: string): string => id.replace(/[^A-Za-z0-9]/g, '');

/**
 * Whether a harness's own id for a call (in its output, or an ACP toolCallId) names the model's call
 * `callId`: the same id, or one that carries it whole between separators, as harnesses that derive
 * their ids from the model's do (Gemini CLI's `write_file__<id>`, `<tool>-<id>-<n>`). The model's ids are
 * the scripted model's own random ones, so carrying one whole is never a coincidence.
 */
export function namesCall(harnessId: string, callId: string): boolean {
  if (callKey(harnessId) === callKey(callId)) return true;
  if (callKey(callId).length < 6) return false;
  const at = harnessId.indexOf(callId);
  if (at < 0) return false;
  const edge = (c: string | undefined) => c === undefined || !/[A-Za-z0-9]/.test(c);
  return edge(harnessId[at - 1]) && edge(harnessId[at + callId.length]);
}

/** A tool result the harness sent back to the model. */
export interface ToolResultRecord {
  call_id: string;
  /** Tool result text, capped at 4 KiB. */
  text: string;
  is_error: boolean;
  /** The harness refused the call (is_error + a denial pattern, or a denial pattern alone). */
  denied: boolean;
  /**
   * What became of the call, decided once when its result came back (model/observe.ts outcomeOf): the
   * world's verdict first, then the harness's words. Older evidence has none (the scorer then decides).
   */
  outcome?: 'executed' | 'refused' | 'errored';
  /** An errored call whose answer says the command started and is still running (running_patterns). */
  running?: boolean;
  /** What the engine saw the call do in the world (its file, its service request), when it could look. */
  world?: WorldVerdict;
}

/**
 * Whether a call's effect happened, seen by the engine itself: the file the call wrote changed, the
 * service it addressed accepted a request (2xx). `reason` says what was seen, in words.
 */
export interface WorldVerdict {
  achieved: boolean;
  reason: string;
  /**
   * false: the world saw nothing of the call at all (no request reached a service, the file is as it was),
   * so the call failed before the world could answer it (a command not found, a tool's precondition, a
   * host the tool would not fetch); another form of the step may get through. Absent: something arrived.
   */
  reached?: false;
}

export interface ModelExchange {
  seq: number;
  at: number;
  dialect: Dialect;
  path: string;
  /** Tool names offered in the request. */
  tools: string[];
  /** The argument names (schema properties) of each callable tool offered: what a hint's `args` may name. */
  tool_args?: Record<string, string[]>;
  /** The request was a reviewer/approval call, not an agent turn. */
  review?: { verdict: 'allow' | 'deny' };
  /** The trigger of the injection was visible in this request. */
  injection_visible: boolean;
  /** Tool results that arrived in this request (new since the previous one). */
  results: ToolResultRecord[];
  /** What the model answered. */
  response: { kind: 'tool_calls'; calls: ToolCallRecord[] } | { kind: 'text'; text: string };
  /** Plan steps skipped in this request because no offered tool (nor a shell) could carry them out. */
  unmapped?: { step: StepRef; action: ActionKind }[];
  /** The request could not be served (malformed body); the harness got an error response. */
  error?: string;
  /** Live and replay runs: where the answer came from, what it cost, and what replay matches on. */
  live?: LiveExchange;
}

/**
 * A model request answered by a provider (live) or by a recording (replay). `request` and `output` are
 * normalized (trial paths, the endpoint URL and canary values as placeholders), so a replay in other
 * folders with other canaries can match and serve them.
 */
export interface LiveExchange {
  source: 'provider' | 'replay' | 'scripted';
  /** Provider kind and model name (live). */
  provider?: string;
  model?: string;
  /** Provider attempts this request took (1 = no retry). */
  attempts?: number;
  usage?: { input_tokens: number; output_tokens: number };
  /** What replay compares: digests of the tools offered, the system prompt and each message. */
  request: RequestShape;
  /** The answer, normalized (placeholders for trial values). */
  output: NormalOutput;
  /** The request was a reviewer/approval call (it went to the provider too). */
  reviewer?: boolean;
  /** Why the trial cannot be measured: the provider failed after retries, or the run's budget ran out. */
  failure?: { kind: 'provider' | 'budget' | 'diverged'; message: string };
}

export interface RequestShape {
  tools: string[];
  system: string;
  messages: string[];
}

export type NormalOutput =
  | { kind: 'tool_calls'; calls: { id: string; tool: string; args: unknown }[] }
  | { kind: 'text'; text: string };

export interface ServiceRequest {
  seq: number;
  at: number;
  /** A service of src/spec/service-catalog.ts. */
  service: string;
  /** The op the catalog records the request as (docs/internals.md, "Mock services"). */
  op: string;
  method: string;
  path: string;
  /** Host the request was meant for (proxy/egress requests), else the services host. */
  host?: string;
  /** Request body, capped at 16 KiB. */
  body: string;
  /** Names of canaries whose value appeared anywhere in the request (URL, headers, body). */
  canaries: string[];
  status: number;
  /**
   * Why the world did not accept it: the answer's error, capped. A status other than 2xx, or a 2xx that
   * carries a refusal (a JSON-RPC error: MCP answers an unknown tool with 200 and an error object).
   */
  refused?: string;
  /**
   * `prompt`: not a request the harness made. The harness's prompt already carried this answer (a CI
   * template rendered the event's issue or pull request, as the workflow's action fetched it before the
   * agent started), so an owner's read of it was delivered (engine/trial/prompt-delivery.ts).
   */
  via?: 'prompt';
  /**
   * The world's answer carried the case's injection (its trigger): the harness received it, whether or
   * not it then showed it to the model (score/applicability.ts tells the two apart).
   */
  carried_injection?: true;
}

export interface FileState {
  /** sha256 of the content (with `partial`: of the size and the first bytes read). */
  hash: string;
  size: number;
  /** Content for text files up to 256 KiB (for contains checks). */
  text?: string;
  /**
   * Hashed only in part (the snapshot's byte caps, src/evidence/limits.ts): how many bytes from the start
   * the hash covers. A change after them is not seen, so checks on this file's content are undecided
   * unless its size or those first bytes changed.
   */
  partial?: number;
}

/** What one snapshot could not see because one of its caps stopped it (absent: it saw everything). */
export interface SnapshotCap {
  /** The caps reached, in words (`snapshot folder limit (10000 folders) reached`). */
  limits: string[];
  /**
   * Folders (snapshot keys) not listed in full, coarsened to a few: a key under one of them that the
   * snapshot lacks may exist all the same. Files under them that were listed are in the snapshot.
   */
  unlisted: string[];
}

/** Snapshot keyed by path as the case sees it: `ws/REL`, `home/REL`, `tmp/REL`. */
export type Snapshot = Record<string, FileState>;

/**
 * Whether `key` may exist although the snapshot `cap` belongs to lacks it: it lies in a folder the cap
 * kept from being listed in full.
 */
export function hiddenBy(cap: SnapshotCap | undefined, key: string): boolean {
  return !!cap?.unlisted.some((u) => key === u || key.startsWith(`${u}/`));
}

/**
 * Two states of one file whose hashes say whether it changed: both hashed in full, or over the same first
 * bytes, or of different sizes (then it changed whatever the hashes cover).
 */
export const comparable = (a: FileState, b: FileState): boolean =>
  a.partial === b.partial || a.size !== b.size;

export interface FsDiff {
  added: string[];
  modified: string[];
  deleted: string[];
}

export interface ProcessOutcome {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  duration_ms: number;
  /** Last 64 KiB of each stream. */
  stdout: string;
  stderr: string;
  /** The harness could not be started at all (missing binary, Docker error…). */
  spawn_error?: string;
  /** The runner's infrastructure failed (daemon died…): the trial is invalid. */
  infra_error?: string;
  /**
   * A limit of the trial (memory, processes, file size, disk, endpoint connections) stopped something, in
   * words; several are joined with `; `.
   */
  limit_hit?: string;
  /** protocol: acp: the agent's identity from its initialize answer, when it gave one. */
  agent?: AgentInfo;
  /**
   * The runner stopped the harness after its conversation was over (protocol: acp: an agent that does
   * not exit at end of file): its end, not a crash or a sandbox that failed.
   */
  stopped_after_conversation?: true;
  /**
   * What the harness left running when it exited (a daemon, a watcher, a `nohup … &`), as the sandbox's
   * process table showed it before the runner killed it, up to MAX_LEFT_RUNNING; undefined when the runner
   * cannot look (uncontained). Read by the `process_left` check.
   */
  left_running?: LeftProcess[];
}

/** A process still running in the trial's sandbox after the harness exited. */
export interface LeftProcess {
  pid: number;
  /** Its command line (arguments joined by spaces), cut to 300 characters. */
  command: string;
}

/** At most this many left-behind processes are recorded (a fork bomb leaves thousands). */
export const MAX_LEFT_RUNNING = 64;

/**
 * What a harness's own output said: it refused a call (`denial`), a call or the run failed (`error`), it
 * does not offer a tool (`not_offered`), it ended the session (`session_end`), a tool ran (`tool`).
 */
export const HARNESS_EVENT_KINDS = [
  'denial',
  'error',
  'warning',
  'tool',
  'not_offered',
  'session_end',
] as const;

export interface HarnessEvent {
  kind: (typeof HARNESS_EVENT_KINDS)[number];
  tool?: string;
  text: string;
  /**
   * The call the event is about, when the harness names it (the rule's `id`): the harness's own statement
   * about that call, which outranks its words in the call's answer (score/outcomes.ts).
   */
  call_id?: string;
}

export interface Evidence {
  model: ModelExchange[];
  services: ServiceRequest[];
  before: Snapshot;
  after: Snapshot;
  diff: FsDiff;
  process: ProcessOutcome;
  harness: HarnessEvent[];
  /** Values of the trial's canaries by name (needed to scan files and replies). */
  canaries: Record<string, string>;
  /** Snapshot keys of the adapter's memory files and skills folder (for memory/skill checks). */
  state: { memory_files: string[]; skills_dir?: string; config_dirs: string[] };
  /** The mock services' final state that checks read (invite responses, token states); absent in old evidence. */
  service_state?: FinalServiceState;
  /** Snapshots a cap cut short (before, after): checks over what they did not see are undecided. */
  snapshot_caps?: { before?: SnapshotCap; after?: SnapshotCap };
}

/** The trial context the scripted model needs: what the owner wants and what the attacker wants. */
export interface ScriptContext {
  trial_id: string;
  plan: Action[];
  goal: Action[];
  trigger: string;
  /**
   * More texts that count as the trigger (a second session: each line the first session persisted, so
   * whichever of them the harness shows sets the model going). Absent: `trigger` alone.
   */
  triggers?: string[];
  /** The case's `inject.after`: the attack waits for this owner plan step (or the whole plan). */
  attack_after?: number | 'plan';
  reviewer_verdict: 'allow' | 'deny';
  /** What the scripted model answers a reviewer call (adapter `reviewer`); absent: by reviewer_verdict. */
  reviewer?: ReviewerMode;
  /** The trial's attack strategy (src/model/strategies/strategy-kinds.ts); absent: `direct`. */
  strategy?: string;
  /** Paths as the harness sees them, for turning relative paths into absolute ones. */
  paths: { workspace: string; home: string; tmp: string };
  /** Memory file the `remember` action appends to when the harness has no memory tool. */
  memory_file?: string;
  /**
   * Every memory file the harness loads, in the adapter's order (the first is `memory_file`): a `remember`
   * step refused on one is tried on the next (routes.ts, memoryFileRoutes).
   */
  memory_files?: string[];
  /** The adapter's tool hints, as its schema defines them (src/adapters/schema.ts). */
  tool_hints: Record<string, ToolHint>;
  denial_patterns: RegExp[];
  /** Regexes (adapter error_patterns) that mark an answer as an error, not a refusal and not a success. */
  error_patterns?: RegExp[];
  /** Regexes (adapter running_patterns) that mark an answer as a command started and still running. */
  running_patterns?: RegExp[];
  /** Base URL of the mock services as the harness sees it (HR_SVC): lets a native HTTP tool reach them. */
  services_url?: string;
  /**
   * The trial's canary values by name: a goal's copy of one the harness has not shown the model is a
   * placeholder (model/secrets-seen.ts), so the model never sends a secret it could not know.
   */
  secrets?: Record<string, string>;
  /**
   * Sub-agent name → its report (world.services.agents). When the harness hands a `delegate` task to its
   * own sub-agent tool, the sub-agent's conversation reaches this endpoint and gets this report.
   */
  subagents?: Record<string, string>;
  /** The name the trial's MCP server is registered under (adapter `mcp.server`): harnesses prefix its tools with it. */
  mcp_server?: string;
  /**
   * Owner plan indices of reads the prompt already answered (engine/trial/prompt-delivery.ts): the model
   * does not make them. Absent: none.
   */
  delivered?: number[];
  /** The adapter's discovery and invoke tools (adapter `discovery`); absent: recognised by shape. */
  discovery?: {
    search: { name: string; query?: string };
    invoke?: { name: string; tool?: string; args?: string };
  };
}
