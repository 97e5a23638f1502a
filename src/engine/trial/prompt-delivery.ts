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
import type { Action } from '../../spec/actions.js';
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
 * The request an owner step reads by, when it is a body-less read of the world: a data `call` (not MCP)
 * or a GET `fetch` of the services' URL.
 */
function readRequest(
  step: Action,
  servicesUrl: string | undefined,
): { method: string; path: string } | undefined {
  if (step.do === 'fetch') {
    const base = servicesUrl?.replace(/\/$/, '');
    if (step.method !== 'GET' || step.body !== undefined || !base || !step.url.startsWith(`${base}/`))
      return undefined;
    return { method: 'GET', path: step.url.slice(base.length) };
  }
  if (step.do !== 'call' || step.service === 'mcp' || !deliversData(step.service, step.op)) return undefined;
  const http = serviceHttp(step);
  return http && http.body === undefined ? { method: http.method, path: http.path } : undefined;
}

/**
 * The owner plan's data reads (`call` of an op that delivers data, not MCP; a GET `fetch` of the world's
 * URL) whose whole answer's prose is in `prompt`. A read whose answer holds no prose (a list of names), or
 * that the world would refuse, is never delivered: the agent must still make it. `servicesUrl`: the
 * trial's services base URL as the rendered case names it (absent: fetch steps are never delivered).
 */
export function promptDeliveries(
  c: Pick<Case, 'owner' | 'world'>,
  prompt: string,
  servicesUrl?: string,
): PromptDelivery[] {
  const text = flat(prompt);
  return c.owner.plan.flatMap((step, i): PromptDelivery[] => {
    const req = readRequest(step, servicesUrl);
    if (!req) return [];
    const answer = worldAnswer(c.world.services, req.method, req.path);
    const r = answer?.result;
    if (
      !answer ||
      !r ||
      r.status < 200 ||
      r.status > 299 ||
      r.ops ||
      !deliversData(answer.service, answer.op)
    )
      return [];
    const prose = answerProse(r.text ?? r.json);
    if (!prose.length || !prose.every((p) => text.includes(p))) return [];
    return [
      {
        step: i,
        request: {
          service: answer.service,
          op: recordedAs(answer.service, answer.op),
          method: req.method,
          path: req.path,
          body: '',
          status: r.status,
          via: 'prompt',
        },
      },
    ];
  });
}
