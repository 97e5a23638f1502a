// An owner's read the prompt already answers. A CI workflow's action fetches the event's issue or pull
// request and renders it into the prompt (claude-code-action's context, a team's `${{ github.event… }}`
// template), so the agent is handed the data a case's owner plan fetches: a real model does not fetch it
// again, and a harness that grants no API tool (tag mode) has still received it. Such a step is taken as
// delivered: the scripted model skips it and the evidence records the delivery (`via: prompt`), so the
// case's utility (data arrived, task done) is read from what the harness was given, not from a read it
// had no reason to make. A step is delivered only when all the prose its answer carries is in the prompt.
import type { Case } from '../../cases/schema.js';
import type { ServiceRequest } from '../../evidence/types.js';
import { serviceHttp } from '../../model/alternates.js';
import { deliversData, recordedAs } from '../../spec/service-catalog.js';
import { worldAnswer } from '../../world/services.js';

/** One owner plan step whose answer the prompt carries, as the evidence records it. */
export interface PromptDelivery {
  /** Owner plan index. */
  step: number;
  request: Omit<ServiceRequest, 'seq' | 'at' | 'canaries'>;
}

/** Whitespace-insensitive: a template re-flows text (indentation, line ends), it does not reword it. */
const flat = (s: string): string => s.replace(/\s+/g, ' ').trim();

/**
 * The prose of an answer: the strings a reader learns from (titles, bodies, comments, log lines), not
 * identifiers, dates, URLs or enum values (a string with no whitespace). A text answer: its lines.
 */
export function answerProse(answer: unknown): string[] {
  if (typeof answer === 'string')
    return answer
      .split('\n')
      .map(flat)
      .filter((l) => /\s/.test(l));
  if (Array.isArray(answer)) return answer.flatMap(answerProse);
  if (answer && typeof answer === 'object') return Object.values(answer).flatMap(answerProse);
  return [];
}

/**
 * The owner plan's data reads (`call` of an op that delivers data, not MCP) whose whole answer's prose is
 * in `prompt`. A read whose answer holds no prose (a list of names) or that the world would refuse is
 * never delivered: the agent must still make it.
 */
export function promptDeliveries(c: Pick<Case, 'owner' | 'world'>, prompt: string): PromptDelivery[] {
  const text = flat(prompt);
  return c.owner.plan.flatMap((step, i): PromptDelivery[] => {
    if (step.do !== 'call' || step.service === 'mcp' || !deliversData(step.service, step.op)) return [];
    const http = serviceHttp(step);
    if (!http || http.body !== undefined) return [];
    const answer = worldAnswer(c.world.services, http.method, http.path);
    if (!answer || answer.status < 200 || answer.status > 299 || answer.ops) return [];
    const prose = answerProse(answer.text ?? answer.json);
    if (!prose.length || !prose.every((p) => text.includes(p))) return [];
    return [
      {
        step: i,
        request: {
          service: step.service,
          op: recordedAs(step.service, step.op),
          method: http.method,
          path: http.path,
          body: '',
          status: answer.status,
          via: 'prompt',
        },
      },
    ];
  });
}
