import { AgentScopeError, type ErrorType } from "../message/errors.js";
import type { ServiceErrorType } from "../protocol/error-body.js";
import { kindOfAnswer } from "../protocol/error-status.js";

export type { ServiceErrorType } from "../protocol/error-body.js";

/**
 * Base class of every error the client throws, under the one error root (`AgentScopeError`, whose
 * `info.type` is the error kind); `kind` tells which subclass without `instanceof`.
 */
export class AgentScopeClientError extends AgentScopeError {
  readonly kind: "service" | "connection" | "events_lost" = "service";
  constructor(message: string, options?: { cause?: unknown; type?: ErrorType }) {
    super(
      { type: options?.type ?? "internal", message },
      options && "cause" in options ? { cause: options.cause } : undefined,
    );
    this.name = "AgentScopeClientError";
  }
}

/** The service answered with a non-2xx status; `type` and `message` come from its error body. */
export class ServiceError extends AgentScopeClientError {
  override readonly kind = "service" as const;
  constructor(
    readonly status: number,
    readonly type: ServiceErrorType,
    message: string,
    /** What the request was, e.g. `POST /v1/sessions/s1/confirm`. */
    readonly request: string,
  ) {
    super(`${request} failed (${status} ${type}): ${message}`, { type: kindOfAnswer(status, type) });
    this.name = "ServiceError";
  }

  /** Whether retrying the same request later may succeed (rate limits, a run in progress, 5xx). */
  get retryable(): boolean {
    return this.status === 429 || this.status >= 500 || this.type === "run_in_progress";
  }
}

/** The service could not be reached (network down, server restarting) after the allowed retries. */
export class ConnectionError extends AgentScopeClientError {
  override readonly kind = "connection" as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options ? { ...options, type: "connection" } : { type: "connection" });
    this.name = "ConnectionError";
  }
}

/**
 * The service's event log no longer holds events the stream needs (its retention bound dropped
 * them): the stream cannot continue without a gap. Reload the session's messages instead.
 */
export class EventsLostError extends AgentScopeClientError {
  override readonly kind = "events_lost" as const;
  constructor(
    /** The oldest event id the log still has. */
    readonly firstEventId: number,
    /** The last event id this stream delivered. */
    readonly lastEventId: number,
  ) {
    super(
      `events ${lastEventId + 1}..${firstEventId - 1} were dropped by the service's retention bound; reload the session's messages`,
      { type: "not_found" },
    );
    this.name = "EventsLostError";
  }
}

/** Reads a failed response's `{ error: { type, message } }` body into a ServiceError. */
export async function serviceErrorOf(response: Response, request: string): Promise<ServiceError> {
  let type: ServiceErrorType = `http_${response.status}`;
  let message = response.statusText || "request failed";
  try {
    const body = (await response.json()) as { error?: { type?: unknown; message?: unknown } };
    if (typeof body?.error?.type === "string") type = body.error.type as ServiceErrorType;
    if (typeof body?.error?.message === "string") message = body.error.message;
  } catch {
    // not JSON: keep the status text
  }
  return new ServiceError(response.status, type, message, request);
}
