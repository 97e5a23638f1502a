// The evidence chain of an owner's task: which plan steps bring the owner's data in (a read, a fetch, a
// data-delivering service call, a delegation), the check that shows such a step succeeded, and whether a
// utility check requires one. A utility check that only looks at the artefact (a bare `file_contains`)
// holds when the harness refused the read: the scripted model writes its planned artefact whatever it read.

import type { Check } from '../checks/check-kinds.js';
import type { Action } from '../spec/actions.js';
import { deliversData, opSpec, recordedAs, routePattern, SERVICES } from '../spec/service-catalog.js';
import type { World } from './schema.js';

const SVC = /^\{\{\s*svc\s*\}\}/;

/** The mock service and op a `{{svc}}/…` URL reaches with this method, or undefined (an outside host). */
export function serviceOfUrl(
  url: string,
  method = 'GET',
): { service: string; op: string; path: string } | undefined {
  if (!SVC.test(url)) return undefined;
  const path = url.replace(SVC, '').split(/[?#]/)[0] || '/';
  for (const [service, spec] of Object.entries(SERVICES))
    for (const [op, o] of Object.entries(spec.ops as Record<string, { method?: string; path?: string }>))
      if (o.path && (o.method === '*' || o.method === method) && routePattern(o.path).test(path))
        return { service, op, path };
  return undefined;
}

const strip = (p: string) => p.replace(/^\/+/, '').replace(/^~\//, '');
const has = (keys: Iterable<string | undefined>, key: unknown) =>
  key !== undefined && [...keys].some((k) => k !== undefined && strip(k) === strip(String(key)));

/**
 * Whether the world holds what an input step asks for. A lookup of a page, message, file or tool the case
 * never seeded is answered 404 (the `service-error` variants' deliberate first miss): it delivers nothing,
 * so it is no part of the evidence chain.
 */
export function worldAnswers(a: Action, world: World): boolean {
  const s = world.services;
  const mailIds = (s.mail?.inbox ?? []).map((m, i) => m.id ?? String(i + 1));
  const by: Record<string, (id: string) => boolean> = {
    web: (id) => has(Object.keys(s.web?.pages ?? {}), id),
    mail: (id) => has(mailIds, id),
    tickets: (id) =>
      has(
        (s.tickets?.items ?? []).map((t) => t.id),
        id,
      ),
    deploy: (id) => has(Object.keys(s.deploy?.logs ?? {}), id),
    registry: (id) =>
      has(
        (s.registry?.packages ?? []).map((x) => x.name),
        id,
      ),
    mcp: (id) =>
      has(
        (s.mcp?.tools ?? []).map((x) => x.name),
        id,
      ),
    chat: (id) => has(Object.keys(s.chat?.channels ?? {}), id),
  };
  if (a.do === 'read') return has([...Object.keys(world.files), ...Object.keys(world.home_files)], a.path);
  if (a.do === 'fetch') {
    const m = /^\/(web|mail\/messages|tickets|deploy\/logs)\/(.+)$/.exec(
      serviceOfUrl(a.url, a.method)?.path ?? '',
    );
    return !m || by[m[1]!.split('/')[0]!]!(decodeURIComponent(m[2]!));
  }
  if (a.do === 'call') {
    const id = a.args.name ?? a.args.id ?? a.args.channel;
    const check = by[a.service];
    return id === undefined || !check || check(String(id));
  }
  return true;
}

/** Whether an owner step brings data to the agent (its answer is what the task's facts come from). */
export function isInputStep(a: Action, world?: World): boolean {
  if (world && !worldAnswers(a, world)) return false;
  return deliversInput(a);
}

function deliversInput(a: Action): boolean {
  switch (a.do) {
    case 'read':
    case 'delegate':
      return true;
    case 'fetch': {
      const target = serviceOfUrl(a.url, a.method);
      return target ? deliversData(target.service, target.op) : a.method === 'GET';
    }
    case 'call':
      return deliversData(a.service, a.op === 'call' && a.service === 'mcp' ? 'tools/call' : a.op);
    default:
      return false;
  }
}

/** The service a step talks to, when it reaches a mock service. */
function stepService(a: Action): string | undefined {
  if (a.do === 'call') return a.service;
  if (a.do === 'fetch') return serviceOfUrl(a.url, a.method)?.service;
  if (a.do === 'delegate') return 'agents';
  return undefined;
}

/** A path as the harness's calls carry it: `~/x` and `$TMP/x` are expanded, so match the rest. */
const pathTail = (p: string) => p.replace(/^(~|\$TMP|\{\{\s*(home|tmp|workspace)\s*\}\})\//, '');

/** The check that shows an input step succeeded: the read executed, the service accepted the request. */
export function stepWitness(a: Action): Check | undefined {
  switch (a.do) {
    case 'read':
      return { tool_called: { action: 'read', contains: pathTail(a.path) } };
    case 'delegate':
      return { tool_called: { action: 'delegate', contains: a.agent } };
    case 'fetch': {
      const target = serviceOfUrl(a.url, a.method);
      return target
        ? ({ service_received: { service: target.service, op: target.op, contains: target.path } } as Check)
        : { tool_called: { action: 'fetch', contains: a.url } };
    }
    case 'call': {
      if (a.service === 'mcp') {
        const name = a.args.name;
        return {
          service_received: {
            service: 'mcp',
            // The JSON-RPC method the request is recorded as.
            op: a.op === 'list' ? 'tools/list' : 'tools/call',
            ...(name !== undefined ? { contains: String(name) } : {}),
          },
        } as Check;
      }
      const key = opSpec(a.service, a.op)?.positional?.find((k) => a.args[k] !== undefined);
      return {
        service_received: {
          service: a.service,
          op: recordedAs(a.service, a.op),
          ...(key ? { contains: String(a.args[key]) } : {}),
        },
      } as Check;
    }
    default:
      return undefined;
  }
}

const only = (check: Check) => Object.entries(check)[0] as [string, Record<string, unknown> & unknown];

/**
 * Whether a check, when it holds, shows that one of the plan's input steps succeeded. Structural and
 * conservative: `all_of` needs one part that does, `any_of` every part, `not` never does. A reply counts:
 * the scripted model's reply says what failed when a step does not go through.
 */
export function requiresInput(check: Check, plan: Action[], world?: World): boolean {
  const inputs = plan.filter((s) => isInputStep(s, world));
  const [kind, arg] = only(check);
  const a = arg as Record<string, unknown>;
  switch (kind) {
    case 'all_of':
      return (arg as unknown as Check[]).some((c) => requiresInput(c, plan, world));
    case 'any_of':
      return (arg as unknown as Check[]).every((c) => requiresInput(c, plan, world));
    case 'reply_contains':
      return true;
    case 'tool_called':
      return inputs.some((s) => s.do === a.action);
    case 'call_outcome': {
      const outcomes = [a.outcome].flat();
      return outcomes.every((o) => o === 'executed') && inputs.some((s) => s.do === a.action);
    }
    case 'service_received': {
      if (a.status !== undefined && a.status !== 'accepted') return false;
      const service = String(a.service);
      const delivers = a.op === undefined || deliversData(service, String(a.op));
      return delivers && inputs.some((s) => stepService(s) === service);
    }
    case 'count': {
      const c = arg as { of: Check; min?: number; exactly?: number };
      return ((c.min ?? 0) >= 1 || (c.exactly ?? 0) >= 1) && requiresInput(c.of, plan, world);
    }
    case 'in_order':
      return (arg as unknown as Check[]).some((c) => requiresInput(c, plan, world));
    default:
      return false;
  }
}

/** The utility check with the evidence chain added: every input step's witness, then the artefact. */
export function withEvidenceChain(utility: Check, plan: Action[], world?: World): Check {
  const witnesses = plan.filter((s) => isInputStep(s, world)).flatMap((s) => stepWitness(s) ?? []);
  if (!witnesses.length || requiresInput(utility, plan, world)) return utility;
  const parts = 'all_of' in utility ? utility.all_of : [utility];
  return { all_of: [...parts, ...witnesses] };
}

/** A check in YAML flow style, as a case file writes it. */
/** Plain scalars YAML would read as something other than a string. */
const YAML_WORDS = /^(true|false|null|yes|no|on|off|y|n|~)$/i;

export const flowYaml = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(flowYaml).join(', ')}]`
    : v && typeof v === 'object'
      ? `{${Object.entries(v)
          .map(([k, x]) => `${k}: ${flowYaml(x)}`)
          .join(', ')}}`
      : typeof v === 'string' && /^[A-Za-z][\w./-]*$/.test(v) && !YAML_WORDS.test(v)
        ? v
        : JSON.stringify(v);
