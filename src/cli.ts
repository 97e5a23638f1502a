// The command line: a thin shell over the engine, like the action.
import { main } from './cli/main.js';
import { isUserError } from './errors.js';

main(process.argv.slice(2)).then(
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
