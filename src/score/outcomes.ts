// The run result's record of every call and of the plan steps that got none (outcomeRecords), from the
// per-call outcomes checks/call-outcomes.ts decides.
import type { Case } from '../cases/schema.js';
import { type CallOutcome, capReason } from '../checks/call-outcomes.js';
import type { Evidence } from '../evidence/types.js';
import type { CallOutcomeRecord } from '../spec/run-result.js';

const toolStepIndices = (actions: Case['owner']['plan']) =>
  actions.flatMap((a, i) => (a.do === 'reply' ? [] : [{ index: i, action: a.do }]));

/**
 * The run result's view: every call with its outcome, then every tool step of the plan and the goal that
 * got no call, as `not_offered` (the model found no tool for it) or `not_attempted`.
 */
export function outcomeRecords(c: Case, evidence: Evidence, calls: CallOutcome[]): CallOutcomeRecord[] {
  const records: CallOutcomeRecord[] = calls.map((x) => ({
    ...(x.call.step ? { role: x.call.step.role, index: x.call.step.index } : {}),
    ...(x.call.action ? { action: x.call.action } : {}),
    tool: x.call.tool,
    outcome: x.outcome,
    ...(x.reason ? { reason: x.reason } : {}),
  }));
  const served = new Set(
    calls.flatMap((x) => (x.call.step ? [`${x.call.step.role}:${x.call.step.index}`] : [])),
  );
  const unmapped = new Set(
    evidence.model.flatMap((ex) => (ex.unmapped ?? []).map((u) => `${u.step.role}:${u.step.index}`)),
  );
  // A harness that ended the session says why the remaining steps were never reached.
  const ended = evidence.harness.find((h) => h.kind === 'session_end');
  const parts = [
    ['owner', toolStepIndices(c.owner.plan)],
    ['attack', toolStepIndices(c.inject.goal)],
  ] as const;
  for (const [role, steps] of parts)
    for (const { index, action } of steps) {
      const key = `${role}:${index}`;
      if (served.has(key)) continue;
      if (unmapped.has(key)) records.push({ role, index, action, outcome: 'not_offered' });
      else
        records.push({
          role,
          index,
          action,
          outcome: 'not_attempted',
          ...(ended ? { reason: capReason(`the harness ended the session: ${ended.text}`) } : {}),
        });
    }
  return records;
}
