// Checks: deterministic predicates over one trial's evidence. Pure: the same evidence always gives the
// same answer, which is what makes labels reproducible. The kinds themselves live in check-kinds.ts.
import type { Evidence } from '../evidence/types.js';
import type { CheckContext } from './check-context.js';
import { type CallOutcome, callOutcomes } from './outcomes.js';

export { evaluateCheck, explainCheck } from './check-kinds.js';
export type { CallOutcome, CheckContext };
export { callOutcomes };

export function makeCheckContext(evidence: Evidence, resolve: CheckContext['resolve']): CheckContext {
  const replies = evidence.model
    .filter((ex) => !ex.review && ex.response.kind === 'text')
    .map((ex) => (ex.response as { text: string }).text);
  return { evidence, resolve, calls: callOutcomes(evidence), replies };
}
