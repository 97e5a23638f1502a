// The run's spending cap on a live provider: requests and tokens, shared by every trial of the run. A
// request is counted before it is sent (so concurrent trials cannot overshoot the request cap); tokens
// are counted when the answer says how many it used, so the token cap can be passed by one answer at
// most, and no request starts after it.

export class BudgetExhausted extends Error {}

export interface BudgetLimits {
  /** Provider requests (retries count: each one is paid). Unlimited when absent. */
  requests?: number;
  /** Input + output tokens. Unlimited when absent. */
  tokens?: number;
}

export class Budget {
  requests = 0;
  tokens = 0;
  private listeners: (() => void)[] = [];
  exhausted = false;

  constructor(readonly limits: BudgetLimits = {}) {}

  /** Counts one request, or throws BudgetExhausted (and tells the listeners once) when a cap is reached. */
  take(): void {
    const why = this.over();
    if (why) {
      this.exhaust();
      throw new BudgetExhausted(`budget exhausted: ${why}`);
    }
    this.requests++;
  }

  /** Records the tokens an answer used. */
  spend(tokens: number): void {
    this.tokens += tokens;
    if (this.over()) this.exhaust();
  }

  /** Why no further request may start, or undefined. */
  over(): string | undefined {
    const { requests, tokens } = this.limits;
    if (requests !== undefined && this.requests >= requests)
      return `${this.requests} of ${requests} provider requests used`;
    if (tokens !== undefined && this.tokens >= tokens) return `${this.tokens} of ${tokens} tokens used`;
    return undefined;
  }

  onExhausted(listener: () => void): void {
    this.listeners.push(listener);
  }

  private exhaust(): void {
    if (this.exhausted) return;
    this.exhausted = true;
    for (const l of this.listeners) l();
  }
}
