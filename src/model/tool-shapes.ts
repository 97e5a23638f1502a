// The last way a tool is found before a step goes unmapped: by what the tool says it does and what its
// schema takes, for a harness whose tools neither the adapter's hints nor the known names cover (Goose's
// `developer__shell`, Cline's `write_to_file`, a harness nobody here has driven). A tool qualifies for a
// capability when its name (or, failing that, the first sentence of its description) has one of the
// capability's words, and its schema has free-text arguments for what the step must pass and no required
// argument the step cannot fill (an editor's `old_string`, a `command` that is a choice of sub-commands).

import { SYN } from './arg-synonyms.js';
import type { ToolSpec } from './conversation.js';
import { argName, choices, properties, required } from './tool-schema.js';

export type Capability = 'shell' | 'read' | 'write' | 'fetch';

interface Shape {
  /** Words of a tool's name or description that say it has the capability. */
  words: RegExp;
  /** Argument synonyms the tool must take, each as free text (no fixed choices). */
  takes: (keyof typeof SYN)[];
  /** Argument synonyms a tool of this capability must not take (a write tool is not a reader). */
  without?: (keyof typeof SYN)[];
}

/** Name words of tools for other media: Codex's `view_image` takes a path and views, but reads no text. */
const OTHER_MEDIA = /^(image|images|img|picture|photo|screenshot|pdf|notebook|ipynb|audio|video)$/;

const SHAPES: Record<Capability, Shape> = {
  shell: {
    words: /^(shell|bash|sh|zsh|terminal|console|command|cmd|exec|execute|powershell)$/,
    takes: ['command'],
  },
  read: { words: /^(read|view|open|cat|show)$/, takes: ['path'], without: ['content', 'command', 'url'] },
  write: { words: /^(write|create|save|overwrite)$/, takes: ['path', 'content'], without: ['command'] },
  fetch: {
    words: /^(fetch|http|https|request|download|curl|wget|browse)$/,
    takes: ['url'],
    without: ['command'],
  },
};

/** Words of a name: `run_terminal_cmd`, `developer__shell`, `WriteToFile` → run, terminal, cmd / … */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const firstSentence = (text: string): string => text.split(/(?<=[.!?])\s|\n/)[0] ?? '';

/** Argument names a step cannot fill that the tool requires (other than those with a harmless default). */
const EDIT_ARGS =
  /^(old|old_?str(ing)?|old_?text|search|find|pattern|diff|patch|edits?|line|start_?line|insert_?line)$/i;

function takesFreeText(tool: ToolSpec, key: keyof typeof SYN): boolean {
  const name = argName(tool, SYN[key]);
  if (!name || Object.keys(properties(tool)).length === 0) return false;
  return choices(properties(tool)[name]) === undefined;
}

function fits(tool: ToolSpec, shape: Shape): boolean {
  if (nameWords(tool.name).some((w) => OTHER_MEDIA.test(w))) return false;
  if (!shape.takes.every((k) => takesFreeText(tool, k))) return false;
  const wanted = new Set(shape.takes.map((k) => argName(tool, SYN[k])));
  if (
    shape.without?.some((k) => {
      const a = argName(tool, SYN[k]);
      return a !== undefined && !wanted.has(a);
    })
  )
    return false;
  return !required(tool).some((r) => EDIT_ARGS.test(r));
}

/**
 * Offered tools that have the capability by their words and their schema, name matches first (a tool whose
 * name says it writes outranks one whose description says it can).
 */
export function toolsByShape(tools: ToolSpec[], capability: Capability): ToolSpec[] {
  const shape = SHAPES[capability];
  const fitting = tools.filter((t) => fits(t, shape));
  const byName = fitting.filter((t) => nameWords(t.name).some((w) => shape.words.test(w)));
  const byDescription = fitting.filter(
    (t) =>
      !byName.includes(t) && nameWords(firstSentence(t.description ?? '')).some((w) => shape.words.test(w)),
  );
  return [...byName, ...byDescription];
}
