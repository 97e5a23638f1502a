// Deterministic ids. The scripted model keeps no state between requests, so each tool call id carries
// the plan step it serves (`hr_o3_…` owner step 3, `hr_a0_…` attack step 0; `hr_o3r_…`/`hr_o3w_…` the
// read and the repeated write of a write step the harness refused until the file was read). The hash
// makes ids unique per trial yet identical across runs of it, so two runs give byte-identical traffic.
import { createHash } from 'node:crypto';
import { callKey, type StepRef } from '../evidence/types.js';
import type { Dialect } from './conversation.js';

/** The first `length` hex digits of sha256 over the parts (NUL-separated, so parts cannot run together). */
export function hashHex(length: number, ...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, length);
}

export const shortHash = (...parts: string[]): string => hashHex(12, ...parts);

/** Prefix the dialect's own ids use, so harnesses that validate id shapes accept ours. */
export const callPrefix = (dialect: Dialect): string =>
  dialect === 'anthropic-messages' ? 'toolu_' : 'call_';

/**
 * A second try at a step: `read` reads the file a write step targets, `write` repeats the write. Claude
 * Code's Write refuses to overwrite a file the session has not read, and a real model would read it first.
 */
export type Redo = 'read' | 'write';

/** One tool call of the policy: the plan step it serves, and whether it is a second try at it. */
export interface Move {
  step: StepRef;
  redo?: Redo;
}

const tagOf = (move: Move): string =>
  `${move.step.role === 'owner' ? 'o' : 'a'}${move.step.index}${move.redo ? move.redo[0] : ''}`;

export function stepCallId(dialect: Dialect, trialId: string, move: Move): string {
  const tag = tagOf(move);
  return `${callPrefix(dialect)}hr_${tag}_${shortHash(trialId, tag)}`;
}

// Read on the id's key, so an id whose separators a harness dropped still decodes. The hash is exactly
// shortHash's 12 hex digits and ends the id, which is what tells `hra01…` (step 0) from step 01.
const STEP_KEY = /hr([oa])(\d+)([rw]?)[0-9a-f]{12}(?![0-9a-f])/;

/** The move an id of ours encodes, also after a harness stripped its separators; undefined for ids it made up. */
export function decodeMove(id: string): Move | undefined {
  const m = STEP_KEY.exec(callKey(id));
  if (!m) return undefined;
  const step: StepRef = { role: m[1] === 'o' ? 'owner' : 'attack', index: Number(m[2]) };
  return m[3] ? { step, redo: m[3] === 'r' ? 'read' : 'write' } : { step };
}

/** Responses function_call items have an item id besides the call id; derive it from the call id. */
export const responsesItemId = (callId: string): string =>
  callId.startsWith('call_') ? `fc_${callId.slice(5)}` : `fc_${callId}`;
