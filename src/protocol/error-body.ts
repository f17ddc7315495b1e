import { z } from "zod";
import type { ErrorType } from "../message/index.js";

/**
 * The `type` of a service error body (`{ error: { type, message } }`): the kinds of the error root
 * (`ErrorType`) that the service answers with, so clients branch on a kind instead of parsing text.
 */
export const SERVICE_ERROR_TYPES = [
  "invalid_json",
  "invalid_request",
  "authentication",
  "forbidden",
  "not_found",
  "conflict",
  "run_in_progress",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limit",
  "unavailable",
  "internal",
] as const satisfies readonly ErrorType[];

/** One of SERVICE_ERROR_TYPES. */
export type ServiceErrorKind = (typeof SERVICE_ERROR_TYPES)[number];

/** What the service answers every failure with. */
export interface ErrorBody {
  error: { type: ServiceErrorKind; message: string };
}

export const ErrorBodySchema = z.strictObject({
  error: z.strictObject({ type: z.enum(SERVICE_ERROR_TYPES), message: z.string() }),
});

/** The `type` a client reads from a failed answer: `http_<status>` when the body was not an ErrorBody. */
export type ServiceErrorType = ServiceErrorKind | `http_${number}`;
