// What a tool result's text says about how the call went, where the wire has no error flag (the OpenAI
// dialects never carry one). The scripted model and the scorer read results with the same function, so
// the model cannot think a call failed that the scorer counts as executed, or the other way round.

/**
 * The exit status a shell tool's output reports, in the forms harnesses print it ("exit code: 1",
 * "Exit code 2", "Command exited with code 128", "exit status 1", `"exit_code": 1`): near a line's start,
 * so a file that mentions an exit code somewhere in its text is not read as one.
 */
const EXIT_FORMS: RegExp[] = [
  /(?:^|\n)[^\n]{0,40}?\b(?:exit(?:ed)?(?: with)? (?:code|status)|process exited with code|return(?:ed)? code)\b[:= ]\s*(-?\d+)/i,
  /"exit_?code"\s*:\s*(-?\d+)/i,
];

export function exitStatus(text: string): number | undefined {
  for (const re of EXIT_FORMS) {
    const m = re.exec(text);
    if (m) return Number(m[1]);
  }
  return undefined;
}

/** A non-zero exit status in shell tool output marks a failure (the command ran, and failed). */
export const failedExit = (text: string): boolean => {
  const status = exitStatus(text);
  return status !== undefined && status !== 0;
};

/**
 * The shell's own report that it could not parse the command's first line, in the forms shells print it
 * ("sh: 1: Syntax error: "(" unexpected", "bash: -c: line 1: syntax error near unexpected token",
 * "script.sh: line 1: syntax error", "zsh:1: parse error near", busybox "sh: syntax error: unexpected"). A
 * shell parses a whole line before it runs any of it, so nothing of such a command ran: the call failed
 * without starting, however the harness words its answer. An error past the first line leaves the command
 * started: the lines before it ran.
 */
const PARSE_FAILED: RegExp[] = [
  /(?:^|\n)[^\n]*?(?:\bline 1|:\s?1): ?(?:Syntax error: |syntax error near |syntax error: unexpected |unexpected EOF while looking for matching |parse error near )/,
  /(?:^|\n)[^\n]*?\b(?:ba|da|z|k|a)?sh: (?:syntax error: unexpected |parse error near )/,
];

export const parseFailed = (text: string): boolean => PARSE_FAILED.some((re) => re.test(text));
