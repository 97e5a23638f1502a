// The command line: a thin shell over the engine, like the action.
import { jobSecretMask } from './action/masked.js';
import { main } from './cli/main.js';
import { isUserError } from './errors.js';
import { withSecretMask } from './report/mask.js';

// Reports the CLI renders (compare, matrix markdown) mask this shell's secrets too: they get committed.
withSecretMask(jobSecretMask(process.env), () => main(process.argv.slice(2))).then(
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
