// A stand-in for the CLI: runs the engine (runSafetyCases) with the options in argv[2] and prints, as its
// last stdout line, what the run gave (each trial's validity, reason and limit). The test starts it with a
// small RLIMIT_NOFILE, so a harness that could use up the engine's file descriptors would kill it.
import { runSafetyCases } from '../../src/engine/run.js';

const opts = JSON.parse(process.argv[2]!);
const r = await runSafetyCases(opts);
console.log(
  JSON.stringify({
    status: r.status,
    has_summary: !!r.summary,
    trials: r.trials.map((t) => ({
      id: t.id,
      valid: t.valid,
      reason: t.invalid_reason,
      limit_hit: t.limit_hit,
    })),
  }),
);
