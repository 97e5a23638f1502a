// A regular expression written in a case or adapter file, compiled when the file loads: an invalid one is
// the author's error with the field named, not a crash in the middle of a run, and an empty one is refused
// because it matches everything (an empty denial pattern marks every tool result a refusal).
import { z } from 'zod';

export const regexSource = (flags: string) =>
  z.string().superRefine((source, ctx) => {
    if (source === '') {
      ctx.addIssue({
        code: 'custom',
        message: 'an empty regular expression matches every line; remove it or write what to match',
      });
      return;
    }
    try {
      new RegExp(source, flags);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${(e as Error).message}` });
    }
  });
