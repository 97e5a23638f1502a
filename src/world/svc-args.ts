// Argument parsing of the `svc` CLI: positionals and `--name value` options, and the usage errors for
// missing or extra ones.
import { UsageError } from './svc-plan.js';

/** A command's words: positionals, the options its usage line names, and the options it does not. */
export interface Parsed {
  args: string[];
  opts: Record<string, string>;
  /** Options the usage line does not name (only where the caller lets them through). */
  extra: Record<string, string>;
}

type Token =
  | { kind: 'arg'; text: string }
  | { kind: 'option'; name: string; value: string | undefined; words: string[] }
  | { kind: 'end'; words: string[] };

/** The words as positionals, `--name value` / `--name=value` options, and what follows `--`. */
function* tokens(argv: string[]): Generator<Token> {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      yield { kind: 'end', words: argv.slice(i) };
      return;
    }
    if (!arg.startsWith('--')) {
      yield { kind: 'arg', text: arg };
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    yield { kind: 'option', name, value, words: eq < 0 && value !== undefined ? [arg, value] : [arg] };
  }
}

const optionValue = (t: { name: string; value: string | undefined }): string => {
  if (t.value === undefined) throw new UsageError(`--${t.name} needs a value`);
  return t.value;
};

/** The option names a usage line gives (`--to T [--memo M]` → to, memo): the one list of a command's options. */
export function usageOptions(usage: string): string[] {
  return [...usage.matchAll(/--([a-z][a-z0-9_-]*)/g)].map((m) => m[1]!);
}

/**
 * Positionals and `--name value` / `--name=value` options. An option `allowed` does not name is a usage
 * error, or, with `passExtra`, goes to `extra`: a case's `call` may carry arguments the command's usage
 * line does not list (a payment's `reference`), and a harness that only has a shell must be able to make
 * the same request as one with a native tool.
 */
export function parse(argv: string[], allowed: readonly string[] | 'any', passExtra = false): Parsed {
  const parsed: Parsed = { args: [], opts: {}, extra: {} };
  for (const t of tokens(argv)) {
    if (t.kind === 'end') parsed.args.push(...t.words.slice(1));
    else if (t.kind === 'arg') parsed.args.push(t.text);
    else if (allowed === 'any' || allowed.includes(t.name)) parsed.opts[t.name] = optionValue(t);
    else if (passExtra) parsed.extra[t.name] = optionValue(t);
    else throw new UsageError(`unknown option --${t.name}`);
  }
  return parsed;
}

export function need(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing ${what}`);
  return value;
}

export function exactly(parsed: Parsed, count: number, usage: string): string[] {
  if (parsed.args.length !== count) throw new UsageError(`usage: svc ${usage}`);
  return parsed.args;
}

export const enc = encodeURIComponent;
