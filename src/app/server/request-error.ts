import { AgentScopeError, type ErrorType } from "../../message/index.js";

/**
 * A request the service refuses (a missing session, a run in progress, a limit reached): a domain
 * error whose kind (`info.type`) the HTTP edge maps to a status code (`ANSWER_OF_KIND`). The runtime,
 * the CLI and A2A see the kind, never an HTTP code. `retryAfterSeconds`: when to try again (limits).
 */
export class RequestError extends AgentScopeError {
  constructor(
    type: ErrorType,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super({ type, message });
    this.name = "RequestError";
  }
}

/** Another user's session is "not found" too, so ids cannot be probed. */
export const sessionNotFound = (sessionId: string) =>
  new RequestError("not_found", `session "${sessionId}" does not exist (or belongs to another user)`);
