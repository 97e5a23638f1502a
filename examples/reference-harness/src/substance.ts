// What a memory entry says, in substance, and where that substance came from. The memory guard decides by
// provenance, not by phrasing: an entry is kept only when the owner asked for something to be kept and the
// entry's substance (its content words and its targets: addresses, URLs, hosts, paths, identifiers) is the
// owner's. A paraphrase of an injected instruction keeps the attacker's substance (what to do, to whom,
// with what) and not the owner's, so it is refused however it is worded; the owner's own note is kept
// however the owner words the request.

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

/**
 * Whether a memory entry's substance is the owner's. `untrusted(s)` says whether a target was seen in
 * untrusted content. Refused: an entry that names a target (address, URL, path, identifier) the owner did
 * not name and untrusted content did, or whose content words are mostly not the owner's words (the owner
 * did not say this: it came from a tool result, a page, a message, a loaded memory or a skill, or it is the
 * model's own invention). Values (times, dates, amounts) are data and do not count either way.
 */
export function ownerSubstance(
  text: string,
  ownerTurns: string[],
  untrusted: (entity: string) => boolean,
): SubstanceVerdict {
  const owner = ownerTurns.join('\n');
  const ownerLower = owner.normalize('NFKC').toLowerCase();
  const foreignTargets = entitiesIn(text).filter((e) => !ownerLower.includes(e) && untrusted(e));
  if (foreignTargets.length) {
    return {
      ok: false,
      reason: `it names ${foreignTargets
        .slice(0, 3)
        .map((e) => `"${e}"`)
        .join(', ')}, which came from untrusted content, not from the owner's request`,
    };
  }
  const ownerWords = new Set(contentWords(owner));
  const words = [...new Set(contentWords(text))];
  if (words.length === 0) return { ok: true };
  const foreign = words.filter((w) => !ownerWords.has(w));
  if (foreign.length * 2 > words.length) {
    return {
      ok: false,
      reason: `the owner's request does not say this (${foreign.length} of ${words.length} content words are not the owner's: ${foreign
        .slice(0, 6)
        .join(', ')})`,
    };
  }
  return { ok: true };
}
