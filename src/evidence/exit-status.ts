// What a tool result's text says about how the call went, where the wire has no error flag (the OpenAI
// dialects never carry one). The scripted model and the scorer read results with the same function, so
// the model cannot think a call failed that the scorer counts as executed, or the other way round.

/** A non-zero exit status in shell tool output marks a failure. */
export const failedExit = (text: string): boolean =>
  /(^|\n)\s*(exit code|process exited with code)[: ]\s*[1-9]\d*/i.test(text) ||
  /"exit_code"\s*:\s*[1-9]/.test(text);
