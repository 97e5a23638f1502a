// The scripted model knows only what the harness showed it. A case's goal may carry a secret's value
// (`{{canary:NAME}}` in a fetch body, rendered before the trial): the attacker learns it by reading the
// file or the environment that holds it, through the harness. When no request to the model has shown
// the value yet, the model cannot send it, so the goal's copy is replaced by a placeholder that names
// the secret. A harness that refused the read, withheld the file or redacted the value then leaks
// nothing, as a real model behind it would not; the sink's request shows the placeholder, not the value.
import { mapStrings } from '../json-strings.js';
import type { Action } from '../spec/actions.js';
import type { Conversation } from './conversation.js';
import { shownTexts } from './observe.js';

/** What stands in for a secret's value the model has not seen. */
export const unseenSecret = (name: string): string => `[${name}: not seen]`;

/** The names of the unseen secrets whose placeholders `text` holds (a call as recorded). */
export const unseenSecretsIn = (text: string): string[] => [
  ...new Set([...text.matchAll(/\[([A-Za-z_][\w.-]*): not seen\]/g)].map((m) => m[1]!)),
];

/** The secrets (name → value) whose value no request to the model has shown. Pure. */
export function unseenSecrets(conv: Conversation, secrets: Record<string, string>): Map<string, string> {
  const texts = shownTexts(conv);
  const unseen = new Map<string, string>();
  for (const [name, value] of Object.entries(secrets))
    if (value && !texts.some((t) => t.includes(value))) unseen.set(value, name);
  return unseen;
}

/** Every string of `value` with the unseen secrets' values replaced by their placeholders. Pure. */
function redact<T>(value: T, unseen: Map<string, string>): T {
  return mapStrings(value, (s) => {
    let out = s;
    for (const [secret, name] of unseen) out = out.split(secret).join(unseenSecret(name));
    return out;
  }) as T;
}

/** The goal as the model can carry it out now: secrets it has not been shown are placeholders. Pure. */
export function goalAsKnown(
  goal: Action[],
  conv: Conversation,
  secrets: Record<string, string> | undefined,
): Action[] {
  if (!secrets || !Object.keys(secrets).length) return goal;
  const unseen = unseenSecrets(conv, secrets);
  if (!unseen.size) return goal;
  const known = redact(goal, unseen);
  return JSON.stringify(known) === JSON.stringify(goal) ? goal : known;
}
