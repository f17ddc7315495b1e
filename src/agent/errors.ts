import { AgentScopeError, type ErrorType } from "../message/index.js";
/** A reply could not start or resume because of what was asked; nothing was changed. */
export class ReplyStateError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_state";
  constructor(message: string) {
    super(message);
    this.name = "ReplyStateError";
  }
}
