// Argument parsing of the `svc` CLI: positionals and `--name value` options, and the usage errors for
// missing or extra ones.
import { UsageError } from './svc-plan.js';

interface Parsed {
  args: string[];
  opts: Record<string, string>;
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

/** Positionals and `--name value` / `--name=value` options; unknown options are usage errors. */
export function parse(argv: string[], allowed: string[] | 'any'): Parsed {
  const parsed: Parsed = { args: [], opts: {} };
  for (const t of tokens(argv)) {
    if (t.kind === 'end') parsed.args.push(...t.words.slice(1));
    else if (t.kind === 'arg') parsed.args.push(t.text);
    else {
      if (allowed !== 'any' && !allowed.includes(t.name)) throw new UsageError(`unknown option --${t.name}`);
      parsed.opts[t.name] = optionValue(t);
    }
  }
  return parsed;
}

/**
 * Splits off the options a command does not name (`known`), so they can travel to the service as fields
 * of its request: a case's `call` may carry arguments the command's usage line does not list (a
 * payment's `reference`), and a harness that only has a shell must be able to make the same request as
 * one with a native tool.
 */
export function splitUnknown(
  argv: string[],
  known: readonly string[],
): { rest: string[]; extra: Record<string, string> } {
  const rest: string[] = [];
  const extra: Record<string, string> = {};
  for (const t of tokens(argv)) {
    if (t.kind === 'arg') rest.push(t.text);
    else if (t.kind === 'end') rest.push(...t.words);
    else if (known.includes(t.name)) rest.push(...t.words);
    else extra[t.name] = optionValue(t);
  }
  return { rest, extra };
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
