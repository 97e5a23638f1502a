// Where harness-risk-action's own files live, whether it runs from src/ (tests), dist/ (the action, the
// CLI) or an npm install.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Set by scripts/build.mjs for the bundles (dist/ is checked to be current in CI, with its indexes): a
// bundle may trust the build's indexes of the built-in cases and adapters; code run from src/ (tests, a
// checkout) may not, since the folders can have changed since the last build.
declare const __HR_BUNDLED__: boolean | undefined;
export const runsFromBundle = typeof __HR_BUNDLED__ !== 'undefined' && __HR_BUNDLED__;

let cached: string | undefined;

function findRoot(): string {
  const override = process.env.HARNESS_RISK_ROOT;
  if (override) return resolve(override);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'adapters')) && existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  throw new Error(`cannot find the harness-risk-action root above ${fileURLToPath(import.meta.url)}`);
}

/** The folder holding action.yml, cases/, adapters/ and dist/. */
export function actionRoot(): string {
  cached ??= findRoot();
  return cached;
}

export const builtinCasesDir = () => join(actionRoot(), 'cases');
export const builtinAdaptersDir = () => join(actionRoot(), 'adapters');
/** Where pinned harnesses are installed; HARNESS_RISK_CACHE moves it (e.g. to a folder actions/cache keeps). */
export const defaultCacheDir = () =>
  process.env.HARNESS_RISK_CACHE || join(actionRoot(), '.cache', 'harnesses');
