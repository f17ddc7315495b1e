import { AgentScopeError, type ErrorType } from "../message/index.js";
/** A reply could not start or resume because of what was asked; nothing was changed. */
export class ReplyStateError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_state";
  constructor(message: string) {
    super(message);
    this.name = "ReplyStateError";
  }
}

/** The session is running a reply: a rewind (or another reply) must wait for it to end. Nothing was changed. */
export class SessionBusyError extends AgentScopeError {
  static override readonly errorType: ErrorType = "run_in_progress";
  constructor(sessionId: string, what: string) {
    super(`session "${sessionId}" is running a reply; ${what} must wait until it ends or is interrupted`);
    this.name = "SessionBusyError";
  }
}
