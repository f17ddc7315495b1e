import { ReplyStateError } from "../../agent/index.js";
import { RoleViolationError, ValidationError } from "../../message/index.js";
import { PermissionRuleError } from "../../permission/index.js";
import { StateConflictError } from "../../state/index.js";
import { isStoreOutage } from "./store-outage.js";

/** The `type` of an error body: what kind of mistake, so clients can branch without parsing text. */
export type HttpErrorType =
  | "invalid_json"
  | "invalid_request"
  | "authentication"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "run_in_progress"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limit"
  | "unavailable"
  | "internal";

/**
 * An error the service answers with `{ error: { type, message } }` and this status; `retryAfterSeconds`
 * becomes a `Retry-After` header (429, 503).
 */
export class HttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500 | 503,
    readonly type: HttpErrorType,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "HttpError";
  }

  get body(): { error: { type: HttpErrorType; message: string } } {
    return { error: { type: this.type, message: this.message } };
  }
}

export const notFound = (sessionId: string) =>
  new HttpError(404, "not_found", `session "${sessionId}" does not exist (or belongs to another user)`);

/** What a 503 for a store outage tells the client to wait, in seconds. */
export const STORE_RETRY_AFTER_SECONDS = 2;

/**
 * Maps what the runtime throws to an HTTP error. The store out of reach (see isStoreOutage) is a 503
 * `unavailable` with Retry-After and a generic message: the driver's text (hosts, ports, SQL) stays
 * in the server's log. Anything else unexpected is a 500 that says what failed.
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (
    error instanceof ValidationError ||
    error instanceof RoleViolationError ||
    error instanceof PermissionRuleError
  )
    return new HttpError(400, "invalid_request", error.message);
  if (error instanceof ReplyStateError) return new HttpError(409, "conflict", error.message);
  if (error instanceof StateConflictError) return new HttpError(409, "conflict", error.message);
  if (isStoreOutage(error))
    return new HttpError(
      503,
      "unavailable",
      "the service's store cannot be reached right now; retry shortly",
      STORE_RETRY_AFTER_SECONDS,
    );
  return new HttpError(500, "internal", `the server failed: ${(error as Error)?.message ?? String(error)}`);
}
