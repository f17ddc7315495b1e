import { AgentScopeError, type ErrorType } from "../../message/index.js";
/**
 * A write made under a run lease that no longer holds its session: the lease expired, or another
 * replica has taken the session since (a newer generation). The store wrote nothing of it. The run
 * that gets it has been fenced off: it must stop at once, with no further writes or tool calls.
 */
export class FencedError extends AgentScopeError {
  static override readonly errorType: ErrorType = "conflict";
  override readonly name = "FencedError";

  constructor(
    readonly sessionId: string,
    readonly generation: number,
  ) {
    super(
      `session "${sessionId}": the run's lease (generation ${generation}) no longer holds the session (it expired or another replica took it over); the store refused its write`,
    );
  }
}

export const isFenced = (error: unknown): error is FencedError => error instanceof FencedError;
