// Deterministic ids. The scripted model keeps no state between requests, so each tool call id carries
// the plan step it serves (`hr_o3_…` owner step 3, `hr_a0_…` attack step 0). The hash makes ids unique
// per trial yet identical across runs of the same trial, so two runs produce byte-identical traffic.
import { createHash } from 'node:crypto';
import type { StepRef } from '../evidence/types.js';
import type { Dialect } from './conversation.js';

/** The first `length` hex digits of sha256 over the parts (NUL-separated, so parts cannot run together). */
export function hashHex(length: number, ...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, length);
}

export const shortHash = (...parts: string[]): string => hashHex(12, ...parts);

/** Prefix the dialect's own ids use, so harnesses that validate id shapes accept ours. */
export const callPrefix = (dialect: Dialect): string =>
  dialect === 'anthropic-messages' ? 'toolu_' : 'call_';

export function stepCallId(dialect: Dialect, trialId: string, step: StepRef): string {
  const tag = `${step.role === 'owner' ? 'o' : 'a'}${step.index}`;
  return `${callPrefix(dialect)}hr_${tag}_${shortHash(trialId, tag)}`;
}

const STEP_ID = /hr_([oa])(\d+)_[0-9a-f]{4,}/;

/** The step an id of ours encodes; undefined for ids the harness rewrote or made up. */
export function decodeStep(id: string): StepRef | undefined {
  const m = STEP_ID.exec(id);
  if (!m) return undefined;
  return { role: m[1] === 'o' ? 'owner' : 'attack', index: Number(m[2]) };
}

/** Responses function_call items have an item id besides the call id; derive it from the call id. */
export const responsesItemId = (callId: string): string =>
  callId.startsWith('call_') ? `fc_${callId.slice(5)}` : `fc_${callId}`;
