// Where harness-risk-action's own files live, whether it runs from src/ (tests), dist/ (the action, the
// CLI) or an npm install.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The folder holding action.yml, cases/, adapters/ and dist/. */
export function actionRoot(): string {
  if (cached) return cached;
  const override = process.env.HARNESS_RISK_ROOT;
  if (override) return (cached = resolve(override));
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'adapters')) && existsSync(join(dir, 'package.json'))) return (cached = dir);
    dir = dirname(dir);
  }
  throw new Error(`cannot find the harness-risk-action root above ${fileURLToPath(import.meta.url)}`);
}

export const builtinCasesDir = () => join(actionRoot(), 'cases');
export const builtinAdaptersDir = () => join(actionRoot(), 'adapters');
export const defaultCacheDir = () => join(actionRoot(), '.cache', 'harnesses');
