// Template rendering for case and adapter strings: `{{canary:NAME}}`, `{{svc}}`, `{{workspace}}`, `{{home}}`,
// `{{tmp}}` and whatever else the caller puts in the variables map.
//
// Grammar, chosen so that workspace files can carry other template languages untouched:
// - `{{name}}` / `{{ name }}` where name is an identifier (`[A-Za-z_][A-Za-z0-9_]*`) or `canary:NAME`
//   is a variable; an unknown one throws TemplateError (a typo must not silently reach a trial).
// - `${{ … }}` (GitHub Actions expressions) and `{{ anything.else | with(punctuation) }}` pass through.
// - `\{{` escapes: `\{{name}}` renders as the literal `{{name}}`.

/** Variables by name; canaries under `canary:NAME`. */
export type TemplateVars = Readonly<Record<string, string>>;

export class TemplateError extends Error {
  constructor(readonly variable: string) {
    super(`unknown template variable {{${variable}}}`);
    this.name = 'TemplateError';
  }
}

// Groups: 1 = escape or `$` prefix, 2 = variable name.
const TOKEN = /(\\|\$)?\{\{\s*((?:canary:)?[A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Renders `{{…}}` variables in `text`; throws TemplateError naming the first unknown variable. */
export function renderTemplate(text: string, vars: TemplateVars): string {
  if (!text.includes('{{')) return text;
  return text.replace(TOKEN, (whole: string, prefix: string | undefined, name: string) => {
    if (prefix === '\\') return whole.slice(1);
    if (prefix === '$') return whole;
    const value = Object.hasOwn(vars, name) ? vars[name] : undefined;
    if (value === undefined) throw new TemplateError(name);
    return value;
  });
}

/** Renders every string inside a JSON-like value (objects, arrays); keys and non-strings stay as they are. */
export function renderDeep<T>(value: T, vars: TemplateVars): T {
  if (typeof value === 'string') return renderTemplate(value, vars) as T;
  if (Array.isArray(value)) return value.map((item) => renderDeep(item, vars)) as T;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = renderDeep(item, vars);
    return out as T;
  }
  return value;
}

/** The standard variables of a trial, as the harness sees its paths. */
export function trialVars(input: {
  canaries: Record<string, string>;
  svc: string;
  workspace: string;
  home: string;
  tmp: string;
  extra?: Record<string, string>;
}): Record<string, string> {
  const vars: Record<string, string> = {
    ...input.extra,
    svc: input.svc,
    workspace: input.workspace,
    home: input.home,
    tmp: input.tmp,
  };
  for (const [name, value] of Object.entries(input.canaries)) vars[`canary:${name}`] = value;
  return vars;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
