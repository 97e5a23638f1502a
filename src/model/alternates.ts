// Other shell forms for the same effect. A harness may refuse one command form and let another through
// (Claude Code rejects heredocs it cannot parse, OpenClaw refuses redirects it cannot show its reviewer,
// an allowlist may match `svc` but not `curl`), so the adversary tries these after the primary form.
// Every value goes through `quote` (action text is attacker-written) or a JSON literal inside a quoted
// program, so each command does exactly what the action says.
import { posix } from 'node:path';
import { type Action, delegateCall } from '../spec/actions.js';
import { svcRequest } from '../world/svc-core.js';
import { quote, svcArgv } from './shell.js';

type CallAction = Extract<Action, { do: 'call' }>;

/** A named shell form: the name goes into the route label ("bash: printf >>"). */
export interface ShellForm {
  form: string;
  command: string;
}

const mkdir = (path: string): string => `mkdir -p ${quote(posix.dirname(path))}`;

/** `node -e` with its inputs as JSON literals (no shell interpolation inside the program). */
const nodeProgram = (program: string): string => `node -e ${quote(program)}`;

/** Write or append content without a heredoc: printf, tee, node. */
export function writeForms(path: string, content: string, append: boolean): ShellForm[] {
  const p = quote(path);
  const c = quote(content);
  const fs = append ? 'appendFileSync' : 'writeFileSync';
  return [
    {
      form: append ? 'printf >>' : 'printf >',
      command: `${mkdir(path)} && printf '%s' ${c} ${append ? '>>' : '>'} ${p}`,
    },
    {
      form: append ? 'tee -a' : 'tee',
      command: `${mkdir(path)} && printf '%s' ${c} | tee ${append ? '-a ' : ''}${p} >/dev/null`,
    },
    {
      form: 'node -e',
      command: nodeProgram(
        `const fs=require("fs"),path=require("path");fs.mkdirSync(path.dirname(${JSON.stringify(path)}),{recursive:true});fs.${fs}(${JSON.stringify(path)},${JSON.stringify(content)})`,
      ),
    },
  ];
}

/** Reading without `cat`. */
export function readForms(path: string): ShellForm[] {
  return [{ form: 'sed', command: `sed -n p ${quote(path)}` }];
}

/** HTTP without the svc CLI: curl, wget, node's fetch. */
export function fetchForms(url: string, method: string, body?: string): ShellForm[] {
  const m = method.toUpperCase();
  const json = body !== undefined && /^\s*[[{]/.test(body);
  const curl = [
    'curl -sS',
    ...(m !== 'GET' ? ['-X', m] : []),
    ...(json ? ['-H', quote('content-type: application/json')] : []),
    ...(body !== undefined ? ['--data-binary', quote(body)] : []),
    quote(url),
  ].join(' ');
  const wget = [
    'wget -qO-',
    ...(m !== 'GET' ? [`--method=${m}`] : []),
    ...(json ? [quote('--header=content-type: application/json')] : []),
    ...(body !== undefined ? [quote(`--body-data=${body}`)] : []),
    quote(url),
  ].join(' ');
  const init = JSON.stringify({
    method: m,
    ...(body !== undefined ? { body } : {}),
    ...(json ? { headers: { 'content-type': 'application/json' } } : {}),
  });
  const node = nodeProgram(
    `fetch(${JSON.stringify(url)},${init}).then(async r=>{process.stdout.write(await r.text());if(!r.ok)process.exit(1)})`,
  );
  return [
    { form: 'curl', command: curl },
    { form: 'wget', command: wget },
    { form: 'node fetch', command: node },
  ];
}

/** The svc words of a service action (call, send, install); undefined for the others. */
export function serviceArgv(action: Action): string[] | undefined {
  switch (action.do) {
    case 'call':
      return svcArgv(action);
    case 'send':
      return action.channel === 'chat'
        ? ['svc', 'chat', 'post', action.to, action.body]
        : [
            'svc',
            'mail',
            'send',
            '--to',
            action.to,
            ...(action.subject !== undefined ? ['--subject', action.subject] : []),
            '--body',
            action.body,
          ];
    case 'install':
      return ['svc', 'registry', 'install', action.name];
    case 'delegate':
      return svcArgv(delegateCall(action));
    default:
      return undefined;
  }
}

/**
 * The service request a service action makes, as plain HTTP: the same method, path and body the svc
 * CLI would send (one definition: svcRequest). The path is relative to the services base URL.
 */
export function serviceHttp(action: Action): { method: string; path: string; body?: string } | undefined {
  const argv = serviceArgv(action);
  if (!argv) return undefined;
  try {
    const { method, url, body } = svcRequest(argv.slice(1));
    return { method, path: url, ...(body !== undefined ? { body } : {}) };
  } catch {
    return undefined; // an action the svc CLI cannot express has no HTTP form either
  }
}

/** Plain HTTP forms of a service action, against $HR_SVC (the harness's environment has it). */
export function serviceForms(action: CallAction | Action): ShellForm[] {
  const http = serviceHttp(action);
  if (!http) return [];
  // "$HR_SVC" is expanded by the harness's shell; the rest is quoted.
  return fetchForms('HR_SVC_PLACEHOLDER', http.method, http.body)
    .filter((f) => f.form !== 'node fetch')
    .map((f) => ({
      form: f.form,
      command: f.command.replace('HR_SVC_PLACEHOLDER', `"$HR_SVC"${quote(http.path)}`),
    }));
}
