// Entry point of the bundled action (dist/index.js). Kept thin: all logic is in run.ts.
import { run } from './run.js';

await run();
