// A CI prompt template: the text a workflow hands the harness, with the triggering event's fields in it
// (a CI profile's framing, a team's wiring). Placeholders:
// - `{{request}}`  the case owner's turns: the workflow's own instruction (a trigger comment's request,
//   the action's `prompt:` task). A template without it gets them appended after a blank line, so the
//   trial still asks for the owner's task.
// - `{{event.a.b}}`  a field of the event payload (src/cases/github-event.ts), and `{{event_name}}`.
// - `${{ github.event.a.b }}`, `${{ github.event_name }}`, `${{ github.repository }}`: the same fields
//   written as a workflow writes them, so a team can paste its template as it is.
// - `{{thread.comments}}`, `{{thread.review_comments}}`, `{{thread.changed_files}}`, `{{thread.commits}}`:
//   what the workflow's action fetches about the event's issue or pull request (github-event.ts).
// A field the event lacks renders empty, as a GitHub expression does.
import { z } from 'zod';
import { EVENT_KEYS, type GithubEvent, THREAD_FIELDS, type ThreadContext } from './github-event.js';

/** The plain-name placeholders of a prompt template (besides `{{event.FIELD…}}`). */
export const PROMPT_NAMES = ['request', 'event_name'] as const;

// Groups: 1 = `{{…}}` name, 2 = `${{ github.… }}` path.
const PLACEHOLDER =
  /\{\{\s*(request|event_name|event(?:\.[A-Za-z0-9_]+)+|thread\.[a-z_]+)\s*\}\}|\$\{\{\s*github\.((?:event(?:\.[A-Za-z0-9_]+)+)|event_name|repository)\s*\}\}/g;
// Anything else that looks like one of ours: a typo to report.
const ANY_PLACEHOLDER = /(?<!\$)\{\{\s*([^}]*?)\s*\}\}/g;

/** What is wrong with a template's placeholders (empty: nothing): each names the placeholder. */
export function promptTemplateProblems(template: string): string[] {
  const problems: string[] = [];
  for (const m of template.matchAll(ANY_PLACEHOLDER)) {
    const name = m[1]!;
    if ((PROMPT_NAMES as readonly string[]).includes(name)) continue;
    const field = /^thread\.(.*)$/.exec(name)?.[1];
    if (field !== undefined) {
      if (!(THREAD_FIELDS as readonly string[]).includes(field))
        problems.push(`{{${name}}}: a thread has no "${field}" (one of ${THREAD_FIELDS.join(', ')})`);
      continue;
    }
    const key = /^event\.([A-Za-z0-9_]+)/.exec(name)?.[1];
    if (!key)
      problems.push(
        `{{${name}}} is not a placeholder (use {{request}}, {{event_name}}, {{event.FIELD…}} or {{thread.FIELD}})`,
      );
    else if (!(EVENT_KEYS as readonly string[]).includes(key))
      problems.push(`{{${name}}}: an event payload has no "${key}" (one of ${EVENT_KEYS.join(', ')})`);
  }
  return problems;
}

/** The value at a dotted path of the payload, as text ('' when absent; objects as JSON). */
function fieldText(payload: Record<string, unknown>, path: string[]): string {
  let v: unknown = payload;
  for (const k of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function placeholderText(name: string, request: string, event: GithubEvent, thread?: ThreadContext): string {
  if (name === 'request') return request;
  const field = /^thread\.(.+)$/.exec(name)?.[1];
  if (field) return thread?.[field as keyof ThreadContext] ?? '';
  if (name === 'event_name') return event.name;
  if (name === 'repository') return fieldText(event.payload, ['repository', 'full_name']);
  return fieldText(event.payload, name.split('.').slice(1));
}

/** A prompt template as a schema field (an adapter configuration's, a wiring's): checked when it loads. */
export const PromptTemplate = z
  .string()
  .min(1)
  .superRefine((t, ctx) => {
    for (const message of promptTemplateProblems(t)) ctx.addIssue({ code: 'custom', message });
  });

/** The prompt a workflow with this template gives the harness for this event and owner request. */
export function renderPromptTemplate(
  template: string,
  request: string,
  event: GithubEvent,
  thread?: ThreadContext,
): string {
  let asked = false;
  const text = template.replace(PLACEHOLDER, (_w, ours: string | undefined, gh: string | undefined) => {
    const name = ours ?? gh!;
    if (name === 'request') asked = true;
    return placeholderText(name, request, event, thread);
  });
  return asked ? text : `${text.trimEnd()}\n\n${request}`;
}
