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
