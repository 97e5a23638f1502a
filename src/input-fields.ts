// Raw option values (action inputs, CLI flags: strings) → typed values, with zod. One field type per
// kind of value, so an option reads and fails the same way whichever front end it came through; each
// message says what was written and what to write instead. The front end adds the option's name
// (action: `Input "x": …`, CLI: `--x …`).
import { z } from 'zod';

/** A bad value of one named option: `field` is its name, `problem` what is wrong and what to write. */
export class FieldError extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'FieldError';
  }
}

/** Parses `names` of `schema` from `get` (raw strings); throws FieldError naming the first bad one. */
export function parseFields<S extends z.ZodTypeAny>(
  schema: S,
  names: readonly string[],
  get: (name: string) => string | string[] | undefined,
): z.infer<S> {
  const raw = Object.fromEntries(names.map((n) => [n, get(n) ?? '']));
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new FieldError(String(issue.path[0] ?? 'unknown'), issue.message);
  }
  return parsed.data as z.infer<S>;
}

/** A list: comma- or newline-separated (`#` lines are comments), or already a list (a repeated flag). */
export const list = (s: string) =>
  s
    .split(/[\n,]/)
    .map((x) => x.trim())
    .filter((x) => x !== '' && !x.startsWith('#'));

export const listField = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : list(v)));

const TRUE = ['true', 'True', 'TRUE'];
const FALSE = ['false', 'False', 'FALSE'];
export const bool = z.string().transform((v, ctx) => {
  if (TRUE.includes(v)) return true;
  if (FALSE.includes(v)) return false;
  ctx.addIssue({ code: 'custom', message: `"${v}" is not a boolean; write true or false` });
  return z.NEVER;
});

export const oneOf = <T extends string>(values: readonly T[]) =>
  z.string().transform((v, ctx) => {
    if ((values as readonly string[]).includes(v)) return v as T;
    ctx.addIssue({
      code: 'custom',
      message: `"${v}" is not one of ${values.map((x) => `"${x}"`).join(', ')}`,
    });
    return z.NEVER;
  });

const wholeIn = (v: string, min: number, max: number) => {
  const n = Number(v);
  return /^\d+$/.test(v) && Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
};

export const int = (min: number, max: number, what: string) =>
  z.string().transform((v, ctx) => {
    const n = wholeIn(v, min, max);
    if (n === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `"${v}" is not ${what} (a whole number from ${min} to ${max})`,
      });
      return z.NEVER;
    }
    return n;
  });

export const optionalInt = (min: number, max: number, what: string) =>
  z.string().transform((v, ctx) => {
    if (v === '') return undefined;
    const n = wholeIn(v, min, max);
    if (n === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `"${v}" is not ${what} (a whole number from ${min} to ${max}), or leave it empty for no limit`,
      });
      return z.NEVER;
    }
    return n;
  });

/** A fraction: `0.1`, or a percentage `10%`. */
export function fraction(v: string): number | undefined {
  const m = v.match(/^(\d+(?:\.\d+)?|\.\d+)\s*(%?)$/);
  if (!m) return undefined;
  const n = Number(m[1]) / (m[2] ? 100 : 1);
  return n >= 0 && n <= 1 ? n : undefined;
}

export const optionalFraction = (what: string) =>
  z.string().transform((v, ctx) => {
    if (v === '') return undefined;
    const n = fraction(v);
    if (n === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `"${v}" is not ${what}; write a fraction from 0 to 1 (e.g. 0.05) or a percentage (e.g. 5%)`,
      });
      return z.NEVER;
    }
    return n;
  });

export const requiredFraction = (what: string, exclusiveZero = false) =>
  z.string().transform((v, ctx) => {
    const n = fraction(v);
    if (n === undefined || (exclusiveZero && (n === 0 || n === 1))) {
      ctx.addIssue({
        code: 'custom',
        message: `"${v}" is not ${what}; write a number ${exclusiveZero ? 'between 0 and 1 (exclusive), e.g. 0.05' : 'from 0 to 1, e.g. 0.1, or a percentage, e.g. 10%'}`,
      });
      return z.NEVER;
    }
    return n;
  });
