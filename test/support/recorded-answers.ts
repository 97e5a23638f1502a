// Recorded harness answers (test/fixtures/harness-answers/<harness>.json, written by
// scripts/extract-harness-answers.ts) and how a row becomes the engine's inputs: the tool result, the
// adapter's words and the world verdict, built by the same functions the engine calls during a trial.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAdapter } from '../../src/adapters/load.js';
import { answeredOutcome } from '../../src/checks/call-outcomes.js';
import type { HarnessEvent, ServiceRequest, WorldVerdict } from '../../src/evidence/types.js';
import { type AnswerWords, type CallOutcome, outcomeOf } from '../../src/model/observe.js';
import { fileVerdict, serviceVerdict } from '../../src/model/world-check.js';
import type { Outcome } from '../../src/spec/vocabulary.js';

/** The world as a row records it: what fileVerdict / serviceVerdict were given during the trial. */
export type RecordedWorld =
  | { file: 'changed' | 'unchanged' | 'missing' }
  | {
      /** The service the call addresses (null: any service, a fetch). */
      service: string | null;
      /** The requests that came in between the call and its answer. */
      requests: { service: string; op: string; status: number; refused?: string }[];
    };

export interface AnswerRow {
  /** `<config> <case> #<call>`: the call's place in the trial it was recorded in. */
  id: string;
  /** Where it came from: the case and configuration. */
  from: string;
  role: 'owner' | 'attack';
  action: string;
  tool: string;
  /** The answer as the harness returned it to the model (trial paths, URL and canaries as placeholders). */
  text: string;
  is_error: boolean;
  /** What the world showed; absent for calls with no effect the engine attributes (run, read). */
  world?: RecordedWorld;
  /** The harness's own statement about this call in its output (an event naming the call's id). */
  stated?: HarnessEvent['kind'];
  /** The outcome the engine recorded while the trial ran. */
  recorded?: CallOutcome;
}

export interface RecordedAnswers {
  harness: string;
  rows: AnswerRow[];
}

export const ANSWERS_DIR = join(import.meta.dirname, '..', 'fixtures', 'harness-answers');

export const readAnswers = (harness: string, dir = ANSWERS_DIR): RecordedAnswers =>
  JSON.parse(readFileSync(join(dir, `${harness}.json`), 'utf8'));

/** The adapter's answer words, compiled as the engine compiles them for a trial (engine/trial.ts). */
export function wordsOf(adapter: string): AnswerWords {
  const a = loadAdapter(adapter).adapter;
  return {
    denial_patterns: a.denial_patterns.map((p) => new RegExp(p, 'i')),
    error_patterns: a.error_patterns.map((p) => new RegExp(p, 'i')),
    running_patterns: a.running_patterns.map((p) => new RegExp(p, 'i')),
  };
}

// Digests stand in for the file's content: what fileVerdict compares is whether they differ.
const DIGESTS = { changed: ['h0', 'h1'], unchanged: ['h0', 'h0'], missing: [null, null] } as const;

/** The engine's verdict on what the world showed (model/world-check.ts). */
export function worldVerdictOf(world: RecordedWorld): WorldVerdict {
  if ('file' in world) {
    const [before, now] = DIGESTS[world.file];
    return fileVerdict(before, now);
  }
  const requests: ServiceRequest[] = world.requests.map((r, i) => ({
    seq: i,
    at: 0,
    method: 'POST',
    path: '/',
    body: '',
    canaries: [],
    ...r,
  }));
  return serviceVerdict(world.service === null ? {} : { service: world.service }, requests);
}

/**
 * What today's engine makes of a recorded answer: the outcome decided when the answer came back (the world,
 * then the adapter's words: outcomeOf), then the harness's own statement about the call, as the scorer
 * weighs them (score/outcomes.ts answeredOutcome).
 */
export function outcomeOfRow(row: AnswerRow, words: AnswerWords): Outcome {
  const world = row.world ? worldVerdictOf(row.world) : undefined;
  const decided = outcomeOf({ callId: row.id, text: row.text, isError: row.is_error }, words, world);
  return answeredOutcome(decided, world?.achieved, row.stated);
}
