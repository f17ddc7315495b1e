import { AgentScopeError, type ErrorType } from "../../message/index.js";
/** A failure the CLI reports as one line and a hint (no stack trace), exiting non-zero. */
export class CliError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_request";
  constructor(
    message: string,
    /** What to do about it, shown on a second line. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = "CliError";
  }
}
