// What a clause of a memory entry carries that can act later: an instruction (a standing rule addressed to
// the agent), a command line, a capability or permission change, an address (URL, mail address, host).
// A clause that carries none of these is data (a fact, a date, a name, a title). The memory guard
// (substance.ts) keeps data the owner asked for and keeps the acting kinds only when the owner gave them.

/** An acting element of a clause, with the words that show it (for the refusal's reason). */
export type Carried =
  | { kind: 'instruction'; shown: string }
  | { kind: 'command'; shown: string }
  | { kind: 'capability'; shown: string }
  | { kind: 'address'; shown: string };

/** Clauses of an entry: lines, list items, sentences and `;`-parts (a full stop inside a URL or host stays). */
export function clausesOf(text: string): string[] {
  return text
    .normalize('NFKC')
    .split(/\n+|;\s+|(?<=[.!?])\s+(?=\S)/)
    .map((c) => c.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim())
    .filter((c) => /[\p{L}\p{N}]/u.test(c));
}

const lower = (s: string) => s.normalize('NFKC').toLowerCase();

/** Standing-rule markers: a rule about the future, an obligation, or a rule addressed to the agent. */
const STANDING =
  /\b(always|never|from now on|going forward|henceforth|in (the )?future|by default|automatically|permanent(ly)?|every time|each time|whenever|at the (start|beginning|end) of|(before|after|on|for) (any|every|each|all)|(all|any) (future|new|subsequent|later)|every (session|mail|email|message|summary|run|task|request|reply|deploy|commit|time))\b/;
const OBLIGATION =
  /\b(must|shall|should|have to|has to|need to|needs to|make sure|be sure|remember to|don't|do not)\b/;
const RULE_NOUN = /\b(rule|policy|directive|instruction|standing (order|preference|approval))s?\b/;
const ADDRESSEE = /\b(agents?|assistants?|ai|llms?|bots?|you|your)\b/;
const CONDITION = /^(when|while|if|whenever|once|during|after|before|until|unless)\b[^,]*,\s*(\S+)/;

/** Verbs that start an imperative clause (an order, when followed by an object). */
const ACTION_VERBS = new Set(
  (
    'send forward cc bcc copy mail email post upload share run execute exec install load source pipe download ' +
    'fetch delete remove wipe erase skip bypass disable enable approve grant allow trust add set change use pay ' +
    'transfer deploy push merge close accept reply call invoke store save remember write append create report ' +
    'notify include attach export sync restore rotate revoke kill restart act ignore treat keep give'
  ).split(' '),
);
/** Words after an imperative verb that make it an order ("send a copy", "run it", "pay to"), not a noun phrase. */
const OBJECT_START =
  /^(a|an|the|all|every|any|each|it|them|this|that|these|those|my|your|our|their|to|into|out|up|off|everything|anything|without|immediately|now|first|copies|\S*[./@:]\S*)$/;

function imperativeVerb(clause: string): string | undefined {
  // "Rule: act without approval" and "Note — send it": the order follows the label.
  const body = lower(clause).replace(/^[^:]{1,40}:\s+(?=\S)/, '');
  for (const text of body === lower(clause) ? [body] : [lower(clause), body]) {
    const words = text.split(/\s+/).map((w) => w.replace(/^[("'`]+|[)"'`,.:;!?]+$/g, ''));
    if (ACTION_VERBS.has(words[0] ?? '') && (words.length === 1 || OBJECT_START.test(words[1] ?? ''))) {
      return words.slice(0, 3).join(' ');
    }
  }
  const cond = CONDITION.exec(body);
  if (cond && ACTION_VERBS.has((cond[2] ?? '').replace(/[^\p{L}]/gu, ''))) return cond[0];
  return undefined;
}

/** The instruction a clause gives, if any. */
export function instructionIn(clause: string): string | undefined {
  const c = lower(clause);
  for (const re of [STANDING, OBLIGATION, RULE_NOUN]) {
    const m = re.exec(c);
    if (m) return m[0];
  }
  const verb = imperativeVerb(clause);
  if (verb) return verb;
  // Addressed to the agent and telling it something: "the agent acts at once", "assistants may skip …".
  const to = ADDRESSEE.exec(c);
  if (to && /\b(may|can|will|is allowed|are allowed|acts?|sends?|runs?|skips?)\b/.test(c)) return to[0];
  return undefined;
}

/** Programs that take arguments; named with an argument-like token after them they are a command line. */
const COMMAND_NAMES =
  /\b(curl|wget|bash|sh|zsh|sudo|chmod|chown|rm|npx|eval|nc|ncat|ssh|scp|python3?|node|perl|ruby|powershell|iex|crontab|systemctl|launchctl|base64|dd|mkfs|tar|git|npm|pnpm|yarn|pip3?|pipx|gem|cargo|brew|apt(?:-get)?)\s+(\S+)/g;
const ARGUMENT =
  /^(-|\/|~|\.|\$)|[/=.:]|^(install|i|add|exec|run|publish|push|config|clone|remote|reset|clean|hook)$/;
const SCRIPT = /(?:^|[\s'"`(])((?:[\w~.-]+\/)*[\w.-]+\.(?:sh|bash|zsh|ps1|py|rb|pl|command|bat|cmd))\b/;

/** The command line a clause carries, if any: a program with arguments, a pipe into a shell, a script. */
export function commandIn(clause: string): string | undefined {
  const c = lower(clause);
  const code = /`([^`]+)`/.exec(c);
  if (code) return code[1];
  const pipe = /\|\s*(sudo\s+)?(ba|z|da)?sh\b|\$\(|&&\s*\S/.exec(c);
  if (pipe) return pipe[0];
  for (const m of c.matchAll(COMMAND_NAMES)) {
    if (ARGUMENT.test(m[2] ?? '')) return m[0];
  }
  const script = SCRIPT.exec(c);
  return script?.[1];
}

/** A change of what the agent may do: a change word and a capability it acts on, in one clause. */
const CHANGE =
  /\b(skip\w*|bypass\w*|disabl\w*|enabl\w*|turn(ed|s|ing)? (off|on)|grant\w*|give|allow\w*|permit\w*|revok\w*|waiv\w*|ignor\w*|overrid\w*|elevat\w*|auto-?\w+|automatic\w*|without|no (\S+ )?(needed|required|necessary)|not (needed|required|necessary)|unlimited)\b/;
const CAPABILITY =
  /\b(approv\w*|sign-?offs?|confirm\w*|permissions?|privileg\w*|admin\w*|sudo|root|trust\w*|allow-?lists?|whitelist\w*|access|auth\w*|mfa|2fa|tokens?|credentials?|passwords?|secrets?|keys?|checks?|reviews?|prompts?|sandbox\w*|guard\w*|protection|verif\w*|signatures?|hooks?|autostart|startup|scopes?|rate limits?)\b/;

/** The capability change a clause makes, if any ("skip approval", "no sign-off needed"). */
export function capabilityIn(clause: string): string | undefined {
  const c = lower(clause);
  const change = CHANGE.exec(c);
  const cap = CAPABILITY.exec(c);
  if (!change || !cap) return undefined;
  return change.index < cap.index ? `${change[0]} … ${cap[0]}` : `${cap[0]} … ${change[0]}`;
}

const FILE_EXT =
  /\.(md|txt|json|ya?ml|toml|ini|cfg|conf|sh|bash|py|js|ts|rb|pl|ps1|csv|log|lock|env|html?|xml)$/;

/** Addresses a clause names: URLs, mail addresses and host names (a file name is not a host). */
export function addressesIn(clause: string): string[] {
  const out = new Set<string>();
  const t = lower(clause);
  const urls = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>)]+/g;
  for (const m of t.matchAll(urls)) out.add(trimAddress(m[0]));
  const rest = t.replace(urls, ' ');
  for (const m of rest.matchAll(/[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.[\p{L}]{2,}/gu))
    out.add(trimAddress(m[0]));
  const noMail = rest.replace(/[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+/gu, ' ');
  for (const m of noMail.matchAll(/(?<![\w./-])(?:[\p{L}\p{N}-]+\.)+[\p{L}]{2,}(?::\d+)?(?![\w/-])/gu)) {
    const host = trimAddress(m[0]);
    if (!FILE_EXT.test(host) && !/^(e\.g|i\.e|etc)$/.test(host)) out.add(host);
  }
  return [...out];
}

function trimAddress(a: string): string {
  return a.replace(/[.,;:!?]+$/, '');
}

/** Everything a clause carries that can act later. */
export function carriedBy(clause: string): Carried[] {
  const out: Carried[] = [];
  const instruction = instructionIn(clause);
  if (instruction) out.push({ kind: 'instruction', shown: instruction });
  const command = commandIn(clause);
  if (command) out.push({ kind: 'command', shown: command });
  const capability = capabilityIn(clause);
  if (capability) out.push({ kind: 'capability', shown: capability });
  for (const a of addressesIn(clause)) out.push({ kind: 'address', shown: a });
  return out;
}
