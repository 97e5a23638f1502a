// Argument parsing of the `svc` CLI: positionals and `--name value` options, and the usage errors for
// missing or extra ones.
import { UsageError } from './svc-plan.js';

interface Parsed {
  args: string[];
  opts: Record<string, string>;
}

/** Positionals and `--name value` / `--name=value` options; unknown options are usage errors. */
export function parse(argv: string[], allowed: string[] | 'any'): Parsed {
  const parsed: Parsed = { args: [], opts: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      parsed.args.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      parsed.args.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (allowed !== 'any' && !allowed.includes(name)) throw new UsageError(`unknown option --${name}`);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    parsed.opts[name] = value;
  }
  return parsed;
}

/**
 * Splits off the `--name value` / `--name=value` options a command does not name (`known`), so they can
 * travel to the service as fields of its request: a case's `call` may carry arguments the command's usage
 * line does not list (a payment's `reference`), and a harness that only has a shell must be able to make
 * the same request as one with a native tool. Stops at `--`, as parse does.
 */
export function splitUnknown(
  argv: string[],
  known: readonly string[],
): { rest: string[]; extra: Record<string, string> } {
  const rest: string[] = [];
  const extra: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? arg.slice(2, eq < 0 ? undefined : eq) : '';
    if (!name || known.includes(name)) {
      rest.push(arg);
      // A known option's value is its own word, even one that starts with --.
      if (name && eq < 0 && i + 1 < argv.length) rest.push(argv[++i]);
      continue;
    }
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    extra[name] = value;
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
