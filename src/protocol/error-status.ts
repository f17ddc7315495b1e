import type { ErrorType } from "../message/index.js";
import type { ServiceErrorKind } from "./error-body.js";

/** How the service answers an error of one kind: the HTTP status and the body's `type`. */
export interface ErrorAnswer {
  status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500 | 503;
  type: ServiceErrorKind;
}

/**
 * The one table from error kinds to HTTP answers. Kinds that name a failure of something the
 * service depends on (a provider, a connection) are the server's failure: 500 `internal`.
 */
export const ANSWER_OF_KIND: Readonly<Record<ErrorType, ErrorAnswer>> = {
  invalid_json: { status: 400, type: "invalid_json" },
  invalid_request: { status: 400, type: "invalid_request" },
  authentication: { status: 401, type: "authentication" },
  forbidden: { status: 403, type: "forbidden" },
  permission: { status: 403, type: "forbidden" },
  not_found: { status: 404, type: "not_found" },
  conflict: { status: 409, type: "conflict" },
  invalid_state: { status: 409, type: "conflict" },
  run_in_progress: { status: 409, type: "run_in_progress" },
  payload_too_large: { status: 413, type: "payload_too_large" },
  unsupported_media_type: { status: 415, type: "unsupported_media_type" },
  rate_limit: { status: 429, type: "rate_limit" },
  unavailable: { status: 503, type: "unavailable" },
  internal: { status: 500, type: "internal" },
  upstream: { status: 500, type: "internal" },
  connection: { status: 500, type: "internal" },
  timeout: { status: 500, type: "internal" },
  aborted: { status: 500, type: "internal" },
};

/**
 * The error kind a client gives a failed answer: the body's `type` when it is one of the root's
 * kinds, else the status's (`unavailable` for 502-504, `internal` for other 5xx).
 */
export function kindOfAnswer(status: number, type: string | undefined): ErrorType {
  if (type !== undefined && Object.hasOwn(ANSWER_OF_KIND, type)) return type as ErrorType;
  const kind = (Object.keys(ANSWER_OF_KIND) as ErrorType[]).find(
    (candidate) => ANSWER_OF_KIND[candidate].status === status,
  );
  if (kind) return kind;
  if (status >= 502 && status <= 504) return "unavailable";
  return status >= 500 ? "internal" : "invalid_request";
}
