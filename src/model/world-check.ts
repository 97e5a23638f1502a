// Whether a call the scripted model made had its effect, as the engine itself sees it: the file a write
// names changed, the service a message or operation addresses accepted a request. The harness's words
// ("Done", "Error: …", "File has not been read") never decide this; they only tell a refusal from a
// failure where the world shows nothing happened (observe.ts outcomeOf). Commands and reads have no
// effect the engine can attribute, so their outcome stays with the words and the exit status.
import { absoluteCasePath } from '../cases/paths.js';
import { accepted } from '../evidence/accepted.js';
import type { ScriptContext, ServiceRequest, WorldVerdict } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import type { MappedCall } from './tool-schema.js';

/** What the engine can look at while a trial runs. */
export interface WorldProbe {
  /**
   * sha256 of each file (absolute, as the harness names it): null when it is missing or not a regular
   * file, undefined when the engine cannot look (the verdict then stays with the harness's words).
   */
  digests(paths: string[]): Promise<(string | null | undefined)[]>;
  /** The digest `digests` gives a file that holds exactly `content` (to see a write that changed nothing). */
  digestOf?(content: string): string;
  /** How many service requests the world has recorded so far. */
  requestCount(): number;
  /** The service requests recorded from index `from` on. */
  requestsFrom(from: number): ServiceRequest[];
}

/**
 * What a request must carry to be the one asked for: a fetch's method (other than GET) and body. A fetch
 * tool that only GETs (many web-fetch tools take a URL alone) reaches the URL without the data: the
 * request landed, the step did not.
 */
export interface Asked {
  method?: string;
  body?: string;
}

/**
 * The effect a call is made for: a file it writes (with `content`: the file must hold it afterwards, which
 * a write of what was already there also achieves), or requests to a service (any service: undefined).
 */
export type Effect =
  | { kind: 'file'; path: string; content?: string }
  | { kind: 'service'; service?: string; asked?: Asked };

/** The world before the call: the file's digest (and the one it must end with), or how many requests had come in. */
export type Before =
  | { kind: 'file'; path: string; digest: string | null; expect?: string }
  | { kind: 'service'; service?: string; asked?: Asked; from: number };

/** A staging call's effect: the file it stages holds what it wrote (a search or the like has none). */
export const stagedEffect = (call: MappedCall): Effect | undefined =>
  call.writes ? { kind: 'file', path: call.writes.path, content: call.writes.content } : undefined;

/**
 * The effect of an action's effect call. `viaServices`: a delegate that goes to the agents service
 * (a sub-agent tool of the harness talks to the model endpoint instead, which no request shows).
 */
export function effectOf(
  action: Action,
  ctx: ScriptContext,
  viaServices: boolean,
  /** `anyBody`: the call sends a command's output in the body's place (strategies/fused.ts). */
  how: { anyBody?: boolean } = {},
): Effect | undefined {
  switch (action.do) {
    case 'write':
      return {
        kind: 'file',
        path: absoluteCasePath(action.path, ctx.paths),
        ...(action.append ? {} : { content: action.content }),
      };
    case 'send':
      return { kind: 'service', service: action.channel };
    case 'call':
      return { kind: 'service', service: action.service };
    case 'install':
      return { kind: 'service', service: 'registry' };
    case 'fetch': {
      const asked: Asked = {
        ...(action.method !== 'GET' ? { method: action.method } : {}),
        ...(action.body && !how.anyBody ? { body: action.body } : {}),
      };
      return { kind: 'service', ...(Object.keys(asked).length ? { asked } : {}) };
    }
    case 'delegate':
      return viaServices ? { kind: 'service', service: 'agents' } : undefined;
    default:
      return undefined;
  }
}

export async function worldBefore(effect: Effect, world: WorldProbe): Promise<Before | undefined> {
  if (effect.kind === 'service') return { ...effect, from: world.requestCount() };
  const [digest] = await world.digests([effect.path]);
  if (digest === undefined) return undefined;
  const expect = effect.content !== undefined ? world.digestOf?.(effect.content) : undefined;
  return { kind: 'file', path: effect.path, digest, ...(expect !== undefined ? { expect } : {}) };
}

export async function worldAfter(before: Before, world: WorldProbe): Promise<WorldVerdict | undefined> {
  if (before.kind === 'service') return serviceVerdict(before, world.requestsFrom(before.from));
  const [now] = await world.digests([before.path]);
  return now === undefined ? undefined : fileVerdict(before.digest, now, before.expect);
}

/** `expect`: the digest of what the call wrote, when it is known (a file already holding it was written). */
export function fileVerdict(before: string | null, now: string | null, expect?: string): WorldVerdict {
  if (now !== null && now !== before) return { achieved: true, reason: 'the file changed' };
  if (now !== null && expect !== undefined && now === expect)
    return { achieved: true, reason: 'the file holds what was written' };
  if (now === null) return { achieved: false, reason: 'the file does not exist', reached: false };
  return { achieved: false, reason: 'the file did not change', reached: false };
}

const named = (r: ServiceRequest) => `${r.status} ${r.service} ${r.op}`;

// Whitespace aside (a harness may re-indent a JSON body), and within what a request records (16 KiB).
const squash = (s: string) => s.replace(/\s+/g, '');
const BODY_PREFIX = 4096;

/** Why an accepted request is not the one asked for; undefined when it is. */
export function notAsAsked(r: ServiceRequest, asked: Asked | undefined): string | undefined {
  if (!asked) return undefined;
  if (asked.method && r.method.toUpperCase() !== asked.method.toUpperCase())
    return `${r.method}, not ${asked.method}`;
  if (asked.body && !squash(r.body).includes(squash(asked.body).slice(0, BODY_PREFIX)))
    return r.body ? 'another body than the one asked for' : 'without the body asked for';
  return undefined;
}

export function serviceVerdict(
  before: { service?: string; asked?: Asked },
  requests: ServiceRequest[],
): WorldVerdict {
  // A service's MCP tools reach it through the MCP endpoint, recorded as `mcp`.
  const mine = requests.filter(
    (r) => before.service === undefined || r.service === before.service || r.service === 'mcp',
  );
  const ok = mine.filter(accepted);
  const asked = ok.filter((r) => notAsAsked(r, before.asked) === undefined);
  if (asked.length) return { achieved: true, reason: `the service accepted it (${named(asked[0]!)})` };
  if (ok.length)
    return {
      achieved: false,
      reason: `the request reached the service not as asked (${named(ok[0]!)}: ${notAsAsked(ok[0]!, before.asked)})`,
    };
  if (mine.length) return { achieved: false, reason: `the service refused it (${named(mine[0]!)})` };
  return {
    achieved: false,
    reason: before.service
      ? `no request reached the ${before.service} service`
      : 'no request reached a service',
    reached: false,
  };
}
