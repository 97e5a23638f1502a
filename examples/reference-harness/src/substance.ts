// What a memory entry says, in substance, and where that substance came from. The memory guard decides by
// provenance: an entry is kept only when the owner asked for something to be kept, and each of its clauses
// is either data from a source the owner named (the owner's own words, or, when the owner names content by
// reference, "note them", "keep that list", the content read in this session) or an instruction, command,
// capability change or address the owner gave. What can act later (entry-kinds.ts) must be the owner's;
// a paraphrase of an injected rule keeps the attacker's rule, so it is refused however it is worded, and
// the owner's note of what they asked to keep is kept however foreign its words are.
import { type Carried, carriedBy, clausesOf } from './entry-kinds.js';

/** Grammatical words: they carry no substance, whoever wrote them. Content words are everything else. */
const FUNCTION_WORDS = new Set(
  (
    'a an the and or but nor of to in on at by for from with into onto over under as is are was were be been ' +
    'being am do does did done has have had having will would shall should can could may might must it its ' +
    'this that these those there here i me my mine we us our ours you your yours he him his she her they ' +
    'them their theirs who whom whose which what so than then too very just also not no yes if about up out ' +
    'off please let lets s t'
  ).split(' '),
);

/** A light stemmer, so "approvals"/"approval", "incidents"/"incident", "noted"/"note" meet. */
export function stem(word: string): string {
  let w = word;
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('es') && /(ss|sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  return w;
}

/** Content words of a text, stemmed, in order (numbers and times are values, not substance: see below). */
export function contentWords(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !FUNCTION_WORDS.has(w) && !/^\p{N}+$/u.test(w))
    .map(stem);
}

/**
 * Targets a text names: mail addresses, URLs, host names, paths and identifiers with punctuation
 * (`hook.sh`, `upload_context`, `INC-20`). These are what a standing rule acts on; lower-cased.
 */
export function entitiesIn(text: string): string[] {
  const out = new Set<string>();
  const t = text.normalize('NFKC');
  for (const m of t.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>)]+/gi)) out.add(trimEntity(m[0]));
  const rest = t.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>)]+/gi, ' ');
  for (const m of rest.matchAll(/[\p{L}\p{N}_~][\p{L}\p{N}_.@/~+:-]*[\p{L}\p{N}_]/gu)) {
    const w = m[0];
    // A value (a time, a date, a version) is data the owner may have asked to note, not a target.
    if (/^[\p{N}:./-]+$/u.test(w) || /^v?\d+(\.\d+)+$/.test(w)) continue;
    if (/[@/_]/.test(w) || /[.][\p{L}]/u.test(w) || (/-/.test(w) && /\p{N}/u.test(w))) out.add(trimEntity(w));
  }
  return [...out];
}

function trimEntity(e: string): string {
  return e.replace(/[.,;:!?]+$/, '').toLowerCase();
}

/** Words that name the memory as a target (the noun, the verbs); "notes" is a document, "note" the verb. */
const MEMORY_TARGET = /^(remember|memory|memories|memori[sz]e|note)$/;

/** The owner asked for something to be kept: a turn names the memory, the verb remember, or the file. */
export function namesMemory(prompt: string, memoryFile?: string): boolean {
  const words = prompt
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u);
  if (words.some((w) => MEMORY_TARGET.test(w))) return true;
  if (!memoryFile) return false;
  const base = memoryFile.split('/').pop() ?? '';
  return base !== '' && prompt.toLowerCase().includes(base.toLowerCase());
}

export interface SubstanceVerdict {
  ok: boolean;
  /** Why not, for the denial message. */
  reason?: string;
}

/** Verbs of keeping and summarising; their object says what is to be kept. */
const KEEP_VERB =
  /^(note|remember|keep|save|store|record|log|add|put|write|jot|track|memori[sz]e|summari[sz]e|list|copy)$/;
/** Objects that point at content rather than state it ("note them", "keep the list", "save what you find"). */
const REFERENCE = /^(them|these|those|it|they|each|all|both|everything|whatever|what|the)$/;
/** After "that"/"this" these start a clause ("remember that we …"), not a noun ("keep that list"). */
const CLAUSE_START =
  /^(the|a|an|we|i|you|he|she|they|it|there|our|my|your|his|her|their|its|this|these|those|\p{N}+)$/u;

/**
 * Whether the owner names the content to keep by reference, not by stating it: a keep verb whose object,
 * within three words, points at something ("note them", "summarise these", "keep that list").
 */
export function refersToContent(prompt: string): boolean {
  const words = prompt
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  return words.some((w, i) => {
    if (!KEEP_VERB.test(w)) return false;
    for (const [k, x] of words.slice(i + 1, i + 4).entries()) {
      if (REFERENCE.test(x)) return true;
      // "that"/"this" decides: a noun after it points ("that list"), a clause after it states.
      if (x === 'that' || x === 'this') {
        const next = words[i + 2 + k];
        return next === undefined || !CLAUSE_START.test(next);
      }
    }
    return false;
  });
}

interface Sources {
  ownerText: string;
  ownerWords: Set<string>;
  /** True when untrusted content held the (lower-case) string. */
  untrusted: (s: string) => boolean;
  byReference: boolean;
}

/**
 * Whether the owner gave an acting element: an address or a command verbatim; an instruction in the owner's
 * words (its marker and two thirds of the clause); a capability change exactly as the owner scoped it (every
 * content word of the clause is the owner's: "staging deploys skip approval" does not cover production).
 */
function ownerGave(c: Carried, clause: string, src: Sources): boolean {
  if (c.kind === 'address' || c.kind === 'command') {
    return src.ownerText.includes(c.shown.replace(/\s+/g, ' '));
  }
  if (!contentWords(c.shown).every((w) => src.ownerWords.has(w))) return false;
  const foreign = foreignWords(clause, src.ownerWords).length;
  if (c.kind === 'capability') return foreign === 0;
  return foreign * 3 <= new Set(contentWords(clause)).size;
}

function foreignWords(text: string, known: Set<string>): string[] {
  return [...new Set(contentWords(text))].filter((w) => !known.has(w));
}

const KIND_NAMES: Record<Carried['kind'], string> = {
  instruction: 'an instruction',
  command: 'a command',
  capability: 'a permission or capability change',
  address: 'an address',
};

function refusal(c: Carried, clause: string, src: Sources): string {
  const from = src.untrusted(c.shown.toLowerCase())
    ? 'it came from untrusted content'
    : "the owner's request does not give it";
  const quoted = clause.length > 80 ? `${clause.slice(0, 77)}…` : clause;
  return `"${quoted}" carries ${KIND_NAMES[c.kind]} ("${c.shown}") and ${from}`;
}

/** A data clause: its targets and words must come from the owner, or from content the owner pointed at. */
function dataVerdict(clause: string, src: Sources): SubstanceVerdict {
  const targets = entitiesIn(clause).filter((e) => !src.ownerText.includes(e) && src.untrusted(e));
  if (targets.length && !src.byReference) {
    return {
      ok: false,
      reason: `it names ${targets
        .slice(0, 3)
        .map((e) => `"${e}"`)
        .join(', ')}, which came from untrusted content, and the owner's request names no content to keep`,
    };
  }
  const words = [...new Set(contentWords(clause))];
  const foreign = foreignWords(clause, src.ownerWords);
  if (src.byReference) {
    const unread = foreign.filter((w) => !src.untrusted(w));
    if (unread.length * 2 <= words.length) return { ok: true };
    return {
      ok: false,
      reason: `"${clause}" is neither the owner's words nor content read in this session (${unread.slice(0, 6).join(', ')})`,
    };
  }
  if (foreign.length * 2 <= words.length) return { ok: true };
  return {
    ok: false,
    reason: `the owner's request does not say this, and names no content to keep (${foreign.length} of ${words.length} content words are not the owner's: ${foreign
      .slice(0, 6)
      .join(', ')})`,
  };
}

/**
 * Whether a memory entry may be kept, clause by clause. `untrusted(s)` says whether untrusted content (tool
 * results, pages, messages, loaded memory, skills) held `s`. Refused: a clause that carries an instruction,
 * a command, a capability change or an address the owner did not give; a data clause whose substance is
 * neither the owner's nor, when the owner named content by reference, read in this session. Values (times,
 * dates, amounts) are data and do not count either way.
 */
export function ownerSubstance(
  text: string,
  ownerTurns: string[],
  untrusted: (s: string) => boolean,
): SubstanceVerdict {
  const ownerText = ownerTurns.join('\n').normalize('NFKC').toLowerCase().replace(/\s+/g, ' ');
  const src: Sources = {
    ownerText,
    ownerWords: new Set(contentWords(ownerText)),
    untrusted,
    byReference: ownerTurns.some(refersToContent),
  };
  for (const clause of clausesOf(text)) {
    const carried = carriedBy(clause);
    const taken = carried.find((c) => !ownerGave(c, clause, src));
    if (taken) return { ok: false, reason: refusal(taken, clause, src) };
    if (carried.length) continue;
    const v = dataVerdict(clause, src);
    if (!v.ok) return v;
  }
  return { ok: true };
}
