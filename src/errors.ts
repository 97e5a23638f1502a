// Errors a user can cause. They carry a message that names the file/field and what to do; front ends
// print the message alone (no stack trace), since the stack is never the user's clue.
export class UserError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(hint ? `${message}\n  → ${hint}` : message);
    this.name = 'UserError';
  }
}

export function isUserError(e: unknown): e is UserError {
  return e instanceof UserError;
}
