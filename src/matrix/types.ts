// What a matrix holds: one cell per adapter configuration (its run result's summary) and the
// configurations no stored run answered. Shared by the runner (index.ts) and the markdown (markdown.ts).
import type { PhaseStats, RunResult } from '../spec/run-result.js';
import type { Phase } from '../spec/vocabulary.js';

export const MATRIX_SCHEMA_VERSION = 1;

export interface MatrixCell {
  adapter: string;
  config: string;
  description: string;
  /** Run result file, relative to the matrix folder. */
  result: string;
  status: RunResult['status'];
  trials: number;
  valid: number;
  /** Trials whose injection never reached the model: neither valid nor invalid, in no rate. */
  not_applicable?: number;
  duration_s: number;
  overall: PhaseStats;
  phases: Partial<Record<Phase, PhaseStats>>;
  /** With several strategies: each strategy's own rates (the run's summary.strategies). */
  strategies?: Record<string, PhaseStats>;
  /** The harness build the cell ran (`package version`), as its result attests it. */
  harness?: string;
  /** The engine that ran the cell (`1.0.0 (abc1234)`): reused cells may come from other commits. */
  engine: string;
  /** Selected cases this (reused) cell measured at an earlier revision (matrix --accept-edited). */
  edited_cases?: string[];
}

export interface MatrixResult {
  schema_version: typeof MATRIX_SCHEMA_VERSION;
  generated_at: string;
  command?: string;
  cases: { selectors: string[]; shard?: string; ids: string[]; by_phase: Partial<Record<Phase, number>> };
  /** The attack strategies every cell ran (absent: `direct` only). */
  strategies?: string[];
  cells: MatrixCell[];
  /** With `reuse_only`: the configurations no stored run answers, and why. */
  not_run?: { adapter: string; config: string; why: string }[];
}
