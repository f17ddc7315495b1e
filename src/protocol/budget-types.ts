/** Whose spend a limit counts: one reply, one session, one user, or one reply with its sub-agents' replies. */
export type SpendScope = "reply" | "session" | "user" | "tree";
/** A calendar period (UTC) a session or user limit counts over; absent: all time. */
export type SpendPeriod = "day" | "month";
/** Money in US dollars (from the calls' `cost`), or input plus output tokens. */
export type SpendUnit = "usd" | "tokens";

/**
 * One budget line. `soft`: once the spend reaches it, the next tool call asks the person whether to
 * go on (once per session and line). `hard`: once reached, the reply stops (REQUEST_STOP with
 * `metadata.budgetStop`). Either or both, in dollars or tokens.
 */
export interface SpendLimit {
  scope: SpendScope;
  unit: SpendUnit;
  period?: SpendPeriod;
  soft?: number;
  hard?: number;
}

/** One line's standing: what was spent and what is left, in dollars or tokens. */
export interface SpendStatus {
  scope: SpendScope;
  unit: SpendUnit;
  period?: SpendPeriod;
  spent: number;
  soft?: number;
  hard?: number;
  /** `hard - spent` (not below 0); absent without a hard limit. */
  remaining?: number;
}

/** GET /v1/budget: the caller's spend against the service's user limits (empty without a budget). */
export interface BudgetStanding {
  user: string;
  lines: SpendStatus[];
}
