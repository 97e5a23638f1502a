// Entry point of the `svc` CLI (bundled to dist/svc.js, put on the trial's PATH as `svc`).
import { runSvc } from './svc-core.js';

process.exitCode = await runSvc(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
