// The command line: a thin shell over the engine, like the action.

import { main } from './cli/main.js';
import { isUserError } from './errors.js';
import { jobSecretMask } from './front/job-secrets.js';
import { withSecretMask } from './report/mask.js';

// Reports the CLI renders (compare, matrix markdown) mask this shell's secrets too: they get committed.
// In a workflow they cover the checkout's credential files and those near HOME and RUNNER_TEMP, read
// before any harness runs; locally the working directory's, read when first needed.
const env = process.env;
const inActions = env.GITHUB_ACTIONS === 'true';
const mask = jobSecretMask(env, {
  workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
  near: inActions ? [env.HOME, env.RUNNER_TEMP] : [],
});
if (inActions) void mask.size;
withSecretMask(mask, () => main(process.argv.slice(2))).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    if (isUserError(e)) {
      process.stderr.write(`harness-risk: ${e.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`harness-risk: internal error (please report it): ${(e as Error)?.stack ?? e}\n`);
      process.exitCode = 70;
    }
  },
);
