import { AgentScopeError } from "../../message/index.js";
import {
  ANSWER_OF_KIND,
  type ErrorAnswer,
  type ErrorBody,
  type ServiceErrorKind,
} from "../../protocol/index.js";
import { RequestError, sessionNotFound } from "./request-error.js";
import { isStoreOutage } from "./store-outage.js";

/** @deprecated the error body's `type`: use `ServiceErrorKind` from `agentscope/protocol`. */
export type HttpErrorType = ServiceErrorKind;

/**
 * An error as the service answers it: `{ error: { type, message } }` with this status;
 * `retryAfterSeconds` becomes a `Retry-After` header (429, 503). Built at the HTTP edge by
 * `toHttpError`; code behind the edge throws a RequestError (a kind, no status).
 */
export class HttpError extends RequestError {
  constructor(
    readonly status: ErrorAnswer["status"],
    readonly type: ServiceErrorKind,
    message: string,
    retryAfterSeconds?: number,
  ) {
    super(type, message, retryAfterSeconds);
    this.name = "HttpError";
  }

  get body(): ErrorBody {
    return { error: { type: this.type, message: this.message } };
  }
}

/** @deprecated throw `sessionNotFound` (a RequestError of kind `not_found`). */
export const notFound = sessionNotFound;

/** What a 503 for a store outage tells the client to wait, in seconds. */
export const STORE_RETRY_AFTER_SECONDS = 2;

/**
 * The HTTP edge: what the runtime throws, as an answer. An agentscope error answers by its kind
 * (ANSWER_OF_KIND), unless it carries a peer's HTTP status (a provider's failure is the server's,
 * not the client's). The store out of reach (see isStoreOutage) is a 503 `unavailable` with
 * Retry-After and a generic message: the driver's text (hosts, ports, SQL) stays in the server's
 * log. Anything else is a 500 that says what failed.
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (AgentScopeError.isInstance(error) && error.info.status === undefined) {
    const answer = ANSWER_OF_KIND[error.info.type];
    if (answer.status !== 500) {
      const retryAfter = error instanceof RequestError ? error.retryAfterSeconds : undefined;
      return new HttpError(answer.status, answer.type, error.message, retryAfter);
    }
  }
  if (isStoreOutage(error))
    return new HttpError(
      503,
      "unavailable",
      "the service's store cannot be reached right now; retry shortly",
      STORE_RETRY_AFTER_SECONDS,
    );
  return new HttpError(500, "internal", `the server failed: ${(error as Error)?.message ?? String(error)}`);
}
