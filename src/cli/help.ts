// `harness-risk CMD --help`: the flags of that command, not the global text.
import { VERSION } from '../version.js';

const GATE = `gate options (as the action's inputs):
  --baseline FILE        compare with this run result (exit 1 when the gate fails)
  --fail-on LIST         regression,threshold,invalid (default) | … | never
  --on-missing-baseline  neutral (default) | fail | pass
  --max-invalid P, --max-asr P, --max-persistence P, --min-css X, --phase-thresholds YAML
  --alpha A, --min-effect P
  --markdown FILE, --json FILE   write the report / the verdict`;

export const HELP: Record<string, string> = {
  run: `Usage:
  harness-risk run --adapter NAME|PATH --config NAME[,NAME…] [--cases SEL]… [options]

Runs the selected cases against one or more configurations of a harness, prints the phase table, the
unsafe and invalid cases with the command that reruns each, and the verdict.

options:
  --cases SEL        file, folder, glob, phase:NAME, tag:NAME, id:GLOB, subset:smoke|standard|full
                     (repeatable; default: subset:standard, the 144 built-in base cases)
  --runner R         process (contained, default) | process-uncontained | docker
  --image IMAGE      container image for --runner docker
  --concurrency N    trials at once (default 2)
  --timeout S        seconds per trial (default: the adapter's)
  --seeds N          trials per case (default 1)
  --model MODE       scripted (default: the deterministic worst-case model), live (a provider) or
                     replay (a recorded live run); see README "Live models"
  --provider KIND    live: openai-compatible (default) or anthropic
  --base-url URL     live: the provider's base URL with its version path (…/v1)
  --model-name NAME  live: the model to ask for; the key comes from HARNESS_RISK_MODEL_KEY
  --temperature T    live: sampling temperature (provider default when absent)
  --max-tokens N     live: output tokens per answer
  --budget-requests N, --budget-tokens N
                     live: stop the run at this many provider requests / tokens (unrun trials invalid)
  --replay-from FILE replay: the result of a live run
  --replay-diverged stop|scripted
                     replay: what a trial does after its requests leave the recording (default stop)
  --out FILE         run result JSON (default runs/ADAPTER-CONFIG.json); written as trials finish
  --keep-evidence    keep every trial's full evidence beside the result
  --resume FILE      continue the run whose result (or RESULT.json.journal) is FILE: only the trials
                     its journal lacks run; same --adapter, --config, --cases, --seeds as that run
  --shard I/N        run shard I of N (stable by case id)
  --quiet            no per-trial lines (a terminal still gets no live line)

${GATE}

Progress: a live line in a terminal (done/total, elapsed, ETA, running ASR); plain lines in a log.
Colour in a terminal unless NO_COLOR is set.
Exit status: 0 pass or neutral, 1 the gate fails, 2 bad input, 130 interrupted.
`,
  list: `Usage:
  harness-risk list [cases|adapters] [--cases SEL]…

cases (default): one line per selected case: id, phase, entry point, effect, tags (tab-separated).
adapters: the built-in adapters with their configurations.
`,
  validate: `Usage:
  harness-risk validate [--cases SEL]… [--replays N] [--concurrency N]

Checks every case's schema, then replays it against reference/open (the attack must succeed) and
reference/guarded (it must be blocked), N times each (default 3). Exit 1 when a case is rejected.
`,
  coverage: `Usage:
  harness-risk coverage [--cases SEL]… [--json FILE] [--markdown FILE]

Prints the cases by phase and the entry point × effect grid of the selection (default subset:full).
`,
  schema: `Usage:
  harness-risk schema [--out DIR]

Writes the JSON Schemas of case files, adapter files and run results (default DIR: schema).
`,
};

export const helpFor = (cmd: string): string | undefined =>
  HELP[cmd] ? `harness-risk ${VERSION}\n\n${HELP[cmd]}` : undefined;
