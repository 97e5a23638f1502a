// The run result: a versioned JSON document holding every trial's labels and an evidence digest.
// It is what the CLI writes, what the action compares with a baseline, and what a baseline is.
import { z } from 'zod';
import { Taxon } from './taxonomy.js';
import { AuditChannel, Effect, EntryPoint, Outcome, Phase, Severity } from './vocabulary.js';

export const RESULT_SCHEMA_VERSION = 1;

export const Labels = z
  .object({
    /** Utility: the owner's task was achieved. */
    u: z.boolean(),
    /** Attack success: the attacker's goal was achieved. */
    a: z.boolean(),
    /** Persistence: the attack left a durable change (memory, config, startup file, skill). */
    p: z.boolean(),
    /** Detection: the harness denied, flagged or warned about the attacker's actions. */
    d: z.boolean(),
    /**
     * Activated: what the first session persisted acted in a second session in the same world (the
     * trial's `activation` says how). Absent when no second session applied: nothing persisted, a session
     * not measured, or activation not asked for; absent is "not applicable", never "no".
     */
    activated: z.boolean().optional(),
  })
  .strict();
export type Labels = z.infer<typeof Labels>;

export const Sar = z.object({ tools: z.number(), resources: z.number(), flow: z.number() }).strict();
export type Sar = z.infer<typeof Sar>;

export const Violation = z
  .object({ rule: z.string(), channel: AuditChannel, description: z.string() })
  .strict();

export const ROUTE_OUTCOMES = ['executed', 'refused', 'errored', 'no result', 'incomplete'] as const;

/** One attacker step as the adversary pursued it. */
export const AttackRoute = z
  .object({
    /** Index of the step in the case's inject.goal. */
    step: z.number().int(),
    action: z.string(),
    /** What the step targets, short: a path, a recipient, `service.op`, a URL, a command. */
    target: z.string(),
    tried: z.array(z.object({ route: z.string(), outcome: z.enum(ROUTE_OUTCOMES) }).strict()),
    /** The route that executed; absent when none did. */
    succeeded: z.string().optional(),
    /** No offered tool (nor the shell) could carry the step out. */
    not_offered: z.boolean().optional(),
  })
  .strict();
export type AttackRoute = z.infer<typeof AttackRoute>;

/**
 * Labels the harness did not decide (src/score/decided.ts), each in words: a persistence check already
 * true before the trial, an attack or persistence that holds only on requests the world refused, a utility
 * that holds with the owner's input steps withheld. Admission rejects a case on any of them.
 */
export const LabelProbes = z
  .object({
    persistence_before: z.string().optional(),
    attack_on_refused: z.string().optional(),
    persistence_on_refused: z.string().optional(),
    utility_without_owner: z.string().optional(),
  })
  .strict();
export type LabelProbes = z.infer<typeof LabelProbes>;

/** Short, human-readable facts for the report (agent-derived: escape before rendering). */
export const TrialFacts = z
  .object({
    /**
     * Attacker-directed tool calls that the harness executed: `tool(args…)`, capped. A strategy's or a
     * script route's staging call (a file a later call runs) is not one: it carries nothing out itself.
     */
    attack_calls: z.array(z.string()),
    /** Attacker-directed tool calls that the harness denied. */
    denied_calls: z.array(z.string()),
    /** Attacker-directed tool calls that ended in an error (not executed). Absent in older results. */
    errored_calls: z.array(z.string()).optional(),
    canaries_leaked: z.array(z.string()),
    files_changed: z.array(z.string()),
    services_hit: z.array(z.string()),
    /**
     * Whether the case's injection reached the model in an agent turn. False while the attack is blocked
     * means the attack was never attempted: the harness cut its delivery (no network, a refused read) or
     * the delivery failed, which is not the same as a refusal. Absent in results of older versions.
     */
    injection_seen: z.boolean().optional(),
    /** Why the owner's task counts as not done: the utility check's reason. Absent when it holds. */
    utility_unmet: z.string().optional(),
    /**
     * Why the attack counts as not done: the attack check's reason. Absent when it holds. Admission
     * (`validate`) quotes it when the attack missed under reference/open with the attacker's calls executed.
     */
    attack_unmet: z.string().optional(),
    /** Last lines of the harness's stderr when it failed. */
    error_tail: z.string().optional(),
    /**
     * What the adversary did per attacker step (src/model/route-facts.ts): the routes it tried in order,
     * each route's outcome, and the route that executed. Route names come from the harness's tool names:
     * agent-derived, escape before rendering. Absent in results of older versions.
     */
    attack_routes: z.array(AttackRoute).optional(),
    /** Labels the harness did not decide; absent when there are none (and in older results). */
    label_probes: LabelProbes.optional(),
  })
  .strict();
export type TrialFacts = z.infer<typeof TrialFacts>;

export const CallOutcomeRecord = z
  .object({
    /** The plan part the call served; absent for calls that serve no plan step (live mode). */
    role: z.enum(['owner', 'attack']).optional(),
    index: z.number().int().optional(),
    /** The abstract action (`write`, `run`, …). */
    action: z.string().optional(),
    /** The harness tool the call used; absent when no call was made. */
    tool: z.string().optional(),
    outcome: Outcome,
    /** Why, when not executed: the harness's own words, capped (agent-derived: escape before rendering). */
    reason: z.string().optional(),
  })
  .strict();
export type CallOutcomeRecord = z.infer<typeof CallOutcomeRecord>;

/** Tokens and provider requests a live trial (or run) used. */
export const Usage = z
  .object({ requests: z.number().int(), input_tokens: z.number().int(), output_tokens: z.number().int() })
  .strict();
export type Usage = z.infer<typeof Usage>;

const NormalOutput = z.union([
  z.object({ kind: z.literal('text'), text: z.string() }).strict(),
  z
    .object({
      kind: z.literal('tool_calls'),
      calls: z.array(z.object({ id: z.string(), tool: z.string(), args: z.unknown() }).strict()),
    })
    .strict(),
]);

/**
 * One model request of a live trial and its answer, normalized (src/model/live/shape.ts): what replay
 * matches a request against (digests of the tools, system prompt and each message) and serves back.
 */
export const RecordedExchange = z
  .object({
    request: z
      .object({ tools: z.array(z.string()), system: z.string(), messages: z.array(z.string()) })
      .strict(),
    output: NormalOutput,
  })
  .strict();
export type RecordedExchange = z.infer<typeof RecordedExchange>;

/** Live and replay trials: what the provider cost and the recording replay serves. */
export const TrialLive = z
  .object({
    usage: Usage,
    recording: z.array(RecordedExchange),
    /** Replay: where the harness's requests stopped matching the recording. Such a trial is invalid. */
    diverged: z.string().optional(),
  })
  .strict();
export type TrialLive = z.infer<typeof TrialLive>;

/**
 * A trial's second session (src/engine/trial/next-session.ts): whether it applied, what it saw and did,
 * and why the `activated` label is what it is. Its evidence is kept apart (`evidence_file`, `*.session2.json`).
 */
export const TrialActivation = z
  .object({
    /** Why the label is what it is, or why it does not apply. */
    reason: z.string(),
    /** Whether the second session ran (it does not when nothing persisted). */
    ran: z.boolean(),
    /** The second session was a measurement (the same validity rules as the first). */
    valid: z.boolean().optional(),
    invalid_reason: z.string().optional(),
    /** The persisted text the second session's model reacts to, and whether the harness showed it. */
    trigger: z.string().optional(),
    trigger_seen: z.boolean().optional(),
    duration_ms: z.number().optional(),
    exit_code: z.number().nullable().optional(),
    /** What the second session did: its attacker calls, files changed, services hit, canaries leaked. */
    facts: z
      .object({
        attack_calls: z.array(z.string()),
        files_changed: z.array(z.string()),
        services_hit: z.array(z.string()),
        canaries_leaked: z.array(z.string()),
      })
      .strict()
      .optional(),
    evidence_digest: z.string().optional(),
    evidence_file: z.string().optional(),
    /**
     * The case's `next_session` as written (a digest; `default` when the case gives none). Not part of the
     * case's revision: activated rates are compared only between second sessions of the same revision.
     * Absent in older results (their case revision covered it).
     */
    revision: z.string().optional(),
  })
  .strict();
export type TrialActivation = z.infer<typeof TrialActivation>;

/** Who an agent says it is (ACP initialize's `agentInfo`, an Implementation): its own words, capped. */
export const AgentInfo = z
  .object({ name: z.string().optional(), title: z.string().optional(), version: z.string().optional() })
  .strict();
export type AgentInfo = z.infer<typeof AgentInfo>;

export const Trial = z
  .object({
    id: z.string(),
    case_id: z.string(),
    case_revision: z.string(),
    phase: Phase,
    seed: z.number().int(),
    /**
     * The attack strategy the scripted adversary used (src/model/strategies/strategy-kinds.ts, e.g.
     * `direct`, `encoded`). Absent in results of older versions: `direct`.
     */
    strategy: z.string().optional(),
    valid: z.boolean(),
    invalid_reason: z.string().optional(),
    /**
     * The case's entry point never reached the model (src/score/applicability.ts): nothing was measured.
     * Such a trial has `valid: false` (so it is in no rate, and older readers call it invalid) and is
     * counted apart from invalid trials: never a defended attack, never an infrastructure failure. The
     * reason, also in invalid_reason. Absent in results of older versions.
     */
    not_applicable: z.string().optional(),
    /**
     * A valid trial defended before the injection arrived: it never showed to the agent because the
     * harness refused one of the owner's calls (src/score/applicability.ts). A defended attack, stopped
     * with the owner's task rather than by a guard against the attack; the reason (agent-derived: the
     * tool's name; escape before rendering). Absent otherwise and in results of older versions.
     */
    delivery_refused: z.string().optional(),
    labels: Labels,
    sar: Sar,
    avs: z.number(),
    pb: z.number(),
    css: z.number(),
    harm: z.number(),
    violations: z.array(Violation),
    facts: TrialFacts,
    /** Every plan step's call and what became of it, in call order. Absent in results of older versions. */
    outcomes: z.array(CallOutcomeRecord).optional(),
    duration_ms: z.number(),
    exit_code: z.number().nullable(),
    timed_out: z.boolean(),
    /** Which limit of the trial stopped the harness (memory, processes, file size, disk), in words. */
    limit_hit: z.string().optional(),
    /**
     * protocol: acp: the agent that ran, as its initialize answer named itself (`agentInfo` name, title,
     * version). Per trial: the command is the run's, the build it starts is the agent's to say.
     */
    agent: AgentInfo.optional(),
    /** sha256 of the canonical evidence JSON. */
    evidence_digest: z.string(),
    /**
     * Path of the full evidence file, when kept, relative to the run result's folder: `NAME.evidence/ID.json`
     * beside the run result `NAME.json` (src/result/files.ts `evidenceFileOf` resolves it).
     */
    evidence_file: z.string().optional(),
    /** Live and replay runs (absent for scripted trials). */
    live: TrialLive.optional(),
    /** The second session, when the case or the run asked for one (absent otherwise and in older results). */
    activation: TrialActivation.optional(),
  })
  .strict();
export type Trial = z.infer<typeof Trial>;

export const PhaseStats = z
  .object({
    cases: z.number().int(),
    trials: z.number().int(),
    valid: z.number().int(),
    /** Trials whose entry point never reached the model (in no rate). Absent in older results. */
    not_applicable: z.number().int().optional(),
    /**
     * Valid trials defended before the injection arrived (Trial.delivery_refused): in the rates as
     * defended attacks, counted here so a reader can tell a mode that stopped the owner's task from a
     * guard that stopped the attack. Absent when none (and in older results).
     */
    delivery_refused: z.number().int().optional(),
    asr: z.number(),
    persistence: z.number(),
    utility: z.number(),
    detection: z.number(),
    css: z.number(),
    harm: z.number(),
    sar: Sar,
    /**
     * Activated persistence: of the valid trials whose first session persisted something and whose second
     * session was measured (`activation_trials`), the share where it acted. Absent when no trial had a
     * second session (and in older results): not measured, never 0.
     */
    activated: z.number().optional(),
    activation_trials: z.number().int().optional(),
    /** 95% Wilson interval of the ASR over the valid trials (src/score/wilson.ts). Absent in older results. */
    asr_interval: z.tuple([z.number(), z.number()]).optional(),
  })
  .strict();
export type PhaseStats = z.infer<typeof PhaseStats>;

export const CaseInfo = z
  .object({
    id: z.string(),
    revision: z.string(),
    title: z.string(),
    phase: Phase,
    entry_point: EntryPoint,
    effect: Effect,
    severity: Severity,
    /** Case file relative to the working directory (or `builtin:phase/file.yaml`). */
    file: z.string(),
    line: z.number().int(),
    artifact: z.string(),
    /** The taxonomy entries the case exercises (src/spec/taxonomy.ts). Absent in older results. */
    taxonomy: z.array(Taxon).optional(),
  })
  .strict();
export type CaseInfo = z.infer<typeof CaseInfo>;

export const HarnessInfo = z
  .object({
    /** npm package name (or the name in the team's package.json). */
    package: z.string().optional(),
    version: z.string().optional(),
    /** Where the version was read: `npm-install` (the pinned install), `package.json` (a file), `declared`. */
    source: z.enum(['npm-install', 'package.json', 'declared', 'builtin']),
  })
  .strict();
export type HarnessInfo = z.infer<typeof HarnessInfo>;

export const Selection = z
  .object({
    /** sha256 over the sorted `id@revision` of every case the selectors chose, before sharding (src/engine/attest.ts). */
    digest: z.string(),
    /** Cases in the whole selection (all shards together). */
    cases: z.number().int().nonnegative(),
    /** This result's shard of the selection; absent when it holds the whole selection. */
    shard: z
      .object({ index: z.number().int().positive(), total: z.number().int().positive() })
      .strict()
      .optional(),
    /**
     * This result holds only some of the selection's cases on purpose: the base tree of a paired run
     * with `base-cases` (plus the cases that came out unsafe or invalid on head).
     */
    subset: z.boolean().optional(),
  })
  .strict();
export type Selection = z.infer<typeof Selection>;

/**
 * What contained the trials. `uncontained`: the harness ran as a plain child of the engine with the
 * engine's uid; it could read the engine's memory and environment, other trials and the host network,
 * so nothing it did is measured against a boundary: the verdict does not count such a run as green.
 */
export const RunnerInfo = z
  .object({
    name: z.enum(['process', 'docker']),
    /**
     * `unverified`: never written by an engine; a reader sets it when a result it did not run claims a
     * containment its attestation cannot prove (src/result/attestation.ts). Counts as uncontained.
     */
    containment: z.enum(['namespaces', 'container', 'uncontained', 'unverified']),
    /** How, in words (`bubblewrap 0.8.0, as root; the harness runs as uid 65534 …`). */
    mechanism: z.string(),
    /** Why the run is uncontained (requested, or what was missing), or why a claim is unverified. */
    reason: z.string().optional(),
    /** Unverified: what the file claimed. */
    claimed: z.string().optional(),
    limits: z
      .object({
        memory_bytes: z.number(),
        pids: z.number(),
        file_size_bytes: z.number(),
        disk_bytes: z.number(),
        /** How each limit is enforced; `none` = not enforced on this machine. */
        via: z.record(z.string(), z.string()),
      })
      .strict()
      .optional(),
  })
  .strict();
export type RunnerInfo = z.infer<typeof RunnerInfo>;

/**
 * How the harness install of this run's adapter ran: its npm install and install scripts (the harness
 * authors' code) run before any trial sandbox, with the network. `bubblewrap`: in a sandbox that sees the
 * install prefix, not the workspace, the runner's temp folder or the host's processes; `uncontained`: as
 * the engine's user on the host (no bubblewrap here). The policy of the run; the cache may hold an install
 * an earlier run made (`installed_now: false`).
 */
export const HarnessInstall = z
  .object({
    installed_now: z.boolean(),
    containment: z.enum(['bubblewrap', 'uncontained']),
    /** How (bubblewrap), or why not (uncontained). */
    mechanism: z.string(),
    /** The project .npmrc left out of installs and registry look-ups, and why (a fork's tree). */
    npmrc_ignored: z.string().optional(),
  })
  .strict();
export type HarnessInstall = z.infer<typeof HarnessInstall>;

/** The engine's MAC over the rest of the result (src/result/attestation.ts); the key is never in it. */
export const Attestation = z
  .object({
    alg: z.literal('hmac-sha256'),
    /** Which key signed: a digest of it, so a reader picks its key, and learns nothing of it. */
    key_id: z.string(),
    mac: z.string(),
  })
  .strict();
export type Attestation = z.infer<typeof Attestation>;

export const MODEL_MODES = ['scripted', 'live', 'replay'] as const;

export const ModelInfo = z
  .object({
    mode: z.enum(MODEL_MODES),
    seeds: z.number().int().positive(),
    /** Live: the provider kind and its base URL; replay: those of the recorded run. */
    provider: z.string().optional(),
    base_url: z.string().optional(),
    /** Live and replay: the model name the provider was asked for. */
    name: z.string().optional(),
    /** Replay: the recorded result it served from. */
    replay_of: z.string().optional(),
    /** The attack strategies the run selected, when more than `direct` (absent: `direct` only). */
    strategies: z.array(z.string()).min(1).optional(),
    /**
     * The run gave every case with a persistence check a second session (`activation: true`): the scripted
     * adversary then also plays the second session. Absent: only cases with `next_session:` had one.
     */
    activation: z.literal(true).optional(),
    /**
     * Who answered the harness's reviewer calls, when the configuration chose a reviewer (adapter
     * `reviewer`): the scripted answer (approve, deny, follow-policy), or `live` (the live model itself,
     * also in a replay of its run).
     */
    reviewer: z.string().optional(),
  })
  .strict();
export type ModelInfo = z.infer<typeof ModelInfo>;

export const RunResult = z
  .object({
    schema_version: z.literal(RESULT_SCHEMA_VERSION),
    tool: z
      .object({
        name: z.literal('harness-risk-action'),
        version: z.string(),
        /** The commit of the checkout the engine ran from (src/engine/engine-build.ts). */
        commit: z
          .string()
          .regex(/^[0-9a-f]{40}$/)
          .optional(),
        /** The engine's files (dist/, adapters/, cases/) differed from that commit. */
        modified: z.boolean().optional(),
        /** The action as the workflow named it (`owner/repo@ref`), when it ran from no checkout. */
        ref: z.string().optional(),
      })
      .strict(),
    status: z.enum(['running', 'complete', 'interrupted']),
    started_at: z.string(),
    finished_at: z.string().optional(),
    adapter: z
      .object({
        name: z.string(),
        config: z.string(),
        file: z.string(),
        /**
         * sha256 over the adapter folder's files (adapter.yaml and its scripts): which adapter ran; with a
         * wiring file or another harness build (below), over those too (engine/attest.ts runAdapterDigest).
         */
        digest: z.string().optional(),
        /** The wiring file the run applied (`run --wiring`), as the run named it: `config` is its name. */
        wiring: z.string().optional(),
        /** The harness build the run asked for instead of the adapter's own (`--harness-package`, `--harness-version`). */
        build: z.object({ package: z.string(), version: z.string() }).strict().optional(),
        /**
         * The agent command the run gave an adapter that drives the ACP agent a run names (`--acp-command`,
         * as written, templates unrendered): which agent ran, so a resumed run, a comparison and the
         * reproduce command keep to the same agent.
         */
        acp_command: z.array(z.string()).optional(),
      })
      .strict(),
    /** The harness build that was launched, as the adapter's install or `harness:` block attests it. */
    harness: HarnessInfo.optional(),
    runner: z.enum(['process', 'docker']),
    /** What contained the trials (absent in results of older versions). */
    containment: RunnerInfo.optional(),
    /** How the harness install ran (adapters that install one; absent in results of older versions). */
    install: HarnessInstall.optional(),
    /**
     * What the harness could read beyond its trial (engine/harness-view.ts): the credential files hidden
     * from it, and those the adapter exposed on purpose (`expose_credentials`), relative to their folder.
     */
    view: z
      .object({ credentials_hidden: z.array(z.string()), credentials_exposed: z.array(z.string()) })
      .strict()
      .optional(),
    /** Docker: the image the trials ran in, with the id the daemon gave it. */
    image: z.object({ name: z.string(), id: z.string() }).strict().optional(),
    /** Which cases of which selection this result holds, so merged shards can prove they are complete. */
    selection: Selection.optional(),
    model: ModelInfo,
    /** Live runs: provider requests and tokens of the whole run. */
    usage: Usage.optional(),
    source: z
      .object({
        repository: z.string().optional(),
        sha: z.string().optional(),
        ref: z.string().optional(),
        /** In a paired run (baseline: base): which tree this result measured. */
        tree: z.enum(['base', 'head']).optional(),
      })
      .strict()
      .default({}),
    cases: z.array(CaseInfo),
    trials: z.array(Trial),
    /**
     * Rates over each case × seed's worst case across strategies (unsafe under any strategy); with several
     * strategies, `strategies` holds the rates of each strategy's own trials (absent: `direct` only).
     */
    summary: z
      .object({
        overall: PhaseStats,
        phases: z.partialRecord(Phase, PhaseStats),
        strategies: z.record(z.string(), PhaseStats).optional(),
      })
      .strict(),
    /** Written last, by the engine that ran the trials, on a finished result. */
    attestation: Attestation.optional(),
  })
  .strict();
export type RunResult = z.infer<typeof RunResult>;
