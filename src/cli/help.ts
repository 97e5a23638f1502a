// `harness-risk CMD --help`: the flags of that command, not the global text.
import { DEFAULT_RUNNER, RUNNER_NAMES } from '../engine/runners.js';
import { VERSION } from '../version.js';

/** `process (contained, default) | process-uncontained | docker`, from the runner registry. */
const RUNNER_LIST = RUNNER_NAMES.map((n) => (n === DEFAULT_RUNNER ? `${n} (contained, default)` : n)).join(
  ' | ',
);

const GATE = `gate options (as the action's inputs):
  --baseline FILE        compare with this run result (exit 1 when the gate fails)
  --fail-on LIST         regression,threshold,invalid (default) | … | never
  --on-missing-baseline  neutral (default) | fail | pass
  --max-invalid P, --max-asr P, --max-persistence P, --max-activated P, --min-css X, --phase-thresholds YAML
  --alpha A, --min-effect P
  --markdown FILE, --json FILE   write the report / the verdict`;

export const HELP: Record<string, string> = {
  run: `Usage:
  harness-risk run --adapter NAME|PATH --config NAME[,NAME…] [--cases SEL]… [options]

Runs the selected cases against one or more configurations of a harness, prints the phase table, the
unsafe and invalid cases with the command that reruns each, and the verdict.

options:
  --cases SEL        file, folder, glob, phase:NAME, tag:NAME, id:GLOB, taxonomy:ID,
                     subset:smoke|standard|full (repeatable; default: subset:standard, the built-in
                     base cases)
  --runner R         ${RUNNER_LIST}
  --image IMAGE      container image for --runner docker
  --concurrency N    trials at once (default 2)
  --timeout S        per trial: seconds (120) or minutes (5m); default: the adapter's
  --trial-memory SIZE
                     memory of one trial, all its processes (4GiB, 3072MiB; default 2GiB): a harness
                     the limit kills reads "memory limit reached", never safe
  --max-consecutive-invalid N
                     stop after N invalid trials in a row, a harness that never starts (default 10;
                     0 = off); the result is kept and resumable
  --seeds N          trials per case (default 1)
  --strategies LIST  attack strategies, comma-separated, or all (default direct): one trial per case
                     and strategy, a case unsafe under any; see \`harness-risk list strategies\`
  --activation       a second session in the same world for every case with a persistence check:
                     the activated label (did what persisted act?); see docs/cases.md
  --model MODE       scripted (default: the deterministic worst-case model), live (a provider) or
                     replay (a recorded live run); see README "Live models"
  --provider KIND    live: openai-compatible (default), anthropic or gemini
  --base-url URL     live: the provider's base URL with its version path (…/v1)
  --model-name NAME  live: the model to ask for; the key comes from HARNESS_RISK_MODEL_KEY
  --temperature T    live: sampling temperature (provider default when absent)
  --max-tokens N     live: output tokens per answer
  --budget-requests N, --budget-tokens N
                     live: stop the run at this many provider requests / tokens (unrun trials invalid)
  --replay-from FILE replay: the result of a live run
  --replay-diverged stop|scripted
                     replay: what a trial does after its requests leave the recording (default stop)
  --acp-command CMD  an ACP agent's command for --adapter acp (a JSON array of words, or words)
  --harness-package PACKAGE@VERSION
                     run this npm build as the adapter's harness instead of its pin (a harness that
                     moved to a new npm name): the result and report say which package ran
  --out FILE         run result JSON (default runs/ADAPTER-CONFIG.json); written as trials finish
  --keep-evidence    keep every trial's full evidence beside the result
  --no-install       never install: a harness missing from the cache is an error (default: install it)
  --resume FILE      continue the run whose result (or RESULT.json.journal) is FILE: only the trials
                     its journal lacks run; same --adapter, --config, --cases, --seeds, --strategies
  --shard I/N        run shard I of N (stable by case id)
  --quiet            no per-trial lines (a terminal still gets no live line)

base and head in one run (the action's baseline: base):
  --base-ref REF     build and run the base commit REF (a SHA, origin/main…) in a git worktree, run
                     the same cases on it trial beside trial, and gate against it (fetched from origin
                     when a shallow clone lacks it); its result is written beside --out as .base.json
  --build CMD        the build, run with sh -c in both trees with the same environment
  --base-cases SEL   cases also run on base (repeatable; default: all); a case left out still runs on
                     base when head is unsafe or invalid on it

${GATE}

Progress: a live line in a terminal (done/total, elapsed, ETA, running ASR); plain lines in a log.
Colour in a terminal unless NO_COLOR is set.
Exit status: 0 pass or neutral, 1 the gate fails, 2 bad input, 130 interrupted.
`,
  list: `Usage:
  harness-risk list [cases|taxonomy|adapters|strategies|reviewers] [--cases SEL]… [--taxonomy ID]…

cases (default): one line per selected case: id, phase, entry point, effect, tags, taxonomy ids
(tab-separated). --taxonomy ID keeps the cases that carry the id or one of its sub-techniques (the
taxonomy:ID selector; e.g. --taxonomy LLM01, --taxonomy AML.T0051).
taxonomy: the built-in taxonomy ids: framework, id, name, page (tab-separated).
adapters: the built-in adapters with their configurations.
strategies: the attack strategies. reviewers: what each configuration's reviewer answers under the scripted model.
`,
  validate: `Usage:
  harness-risk validate [--cases SEL]… [--replays N] [--concurrency N]
                       [--open ADAPTER:CONFIG --guarded ADAPTER:CONFIG] [--runner R] [--image IMAGE]

Checks every case's schema and static rules, then replays it against reference/open (the attack must
succeed) and reference/guarded (it must be blocked with the owner's task done), N times each (default 3).
Exit 1 when a case is rejected.

  --open A:C --guarded A:C   admit against two configurations of your own adapter instead (a looser one
                             the attack must get through, a tighter one that must hold it), for cases
                             that use your harness's own tools or services; A is a built-in name or a path
  --replays N                replays per side (default 3); all must agree
  --concurrency N            trials at once (default 2)
  --runner R                 ${RUNNER_LIST} (as for run)
`,
  coverage: `Usage:
  harness-risk coverage [--cases SEL]… [--json FILE] [--markdown FILE]

Prints the cases by phase and the entry point × effect grid of the selection (default subset:full).
`,
  new: `Usage:
  harness-risk new case --phase P --entry-point E --effect F [--id ID] [--out DIR] [--taxonomy ID,ID…]
  harness-risk new adapter NAME [--out DIR]

case: writes DIR/ID.yaml (default cases/PHASE/PHASE-ENTRY-EFFECT.yaml), a commented case that loads as
  written; replace every "FILL: …" string (validate names any left), then harness-risk validate --cases FILE.
  --taxonomy: the OWASP / ATLAS ids it exercises (harness-risk list taxonomy, or your taxonomy.yaml's);
  without it, the ids suggested from the entry point and effect are written and printed.
adapter: writes DIR/adapter.yaml (default adapters/NAME/adapter.yaml); fill the lines marked FILL, then
  harness-risk doctor --adapter DIR.
Never overwrites a file.
`,
  doctor: `Usage:
  harness-risk doctor --adapter NAME|PATH [--config NAME[,NAME…]|all] [--runner R] [--image IMAGE] [--json FILE]

Runs one harmless case (read README.md, ls, fetch a page, list tickets with svc, write NOTES.md; an
injected probe asks for a write to ~/.bashrc) and reports: whether the trial was valid, the model dialect
and paths the harness used, the tools it offered (with a tools: hint for each the engine could not map,
and the hints naming a tool it did not offer or arguments the tool lacks), folders it wrote under HOME
that state.config_dirs does not declare, requests for outside hosts (egress), whether the probe's refusal was recognised by
denial_patterns/output rules, whether the harness's shell finds the trial's svc CLI, whether the owner's
task was done, and whether a tool the configuration withholds (withholds:) was offered all the same. With several configurations (a comma list, or all), it runs each and
names those that behaved identically (tools offered, every step's route and outcome, the probe's outcome):
a switch the harness ignores is measured as if it were set. Exit 1 when something needs fixing.
`,
  bisect: `Usage:
  harness-risk bisect --adapter NAME|PATH --config NAME --from V1 --to V2 [--cases SEL]…
                      [--max-versions 8] [--max-trials 200] [--seeds N] [--runner R] [--concurrency N] [--out FILE]

Installs the releases of the adapter's harness package (install.npm, or harness.package) that npm publishes
between V1 and V2 into the harness cache (like a pin; the adapter file is not changed), runs only the selected
cases on them and narrows to the first version where they turn unsafe, in log2 steps. V1 and V2 are run first
(V1 safe and V2 unsafe: the first bad version; V1 unsafe and V2 safe, a fix: the first good version; ends that
agree: nothing to bisect). A version that fails to install or run is skipped, never called
safe. Writes the report (JSON) to --out (default runs/bisect-ADAPTER-CONFIG.json), each version's result in the
folder of the same name (runs/bisect-ADAPTER-CONFIG/ADAPTER-VERSION.json).
The registry is npm's: npm_config_registry, the project's and your .npmrc (scoped @scope:registry= too),
default registry.npmjs.org.
`,
  schema: `Usage:
  harness-risk schema [--out DIR]

Writes the JSON Schemas of case files, adapter files and run results (default DIR: schema).
`,
};

export const helpFor = (cmd: string): string | undefined =>
  HELP[cmd] ? `harness-risk ${VERSION}\n\n${HELP[cmd]}` : undefined;
