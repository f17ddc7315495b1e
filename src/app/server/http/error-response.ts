import type { Context } from "hono";
import { type HttpError, toHttpError } from "../http-error.js";

/** Answers `error` as `{ error: { type, message } }` with its kind's status (and Retry-After). */
export function errorResponse(c: Context, error: unknown): { response: Response; http: HttpError } {
  const http = toHttpError(error);
  if (http.retryAfterSeconds !== undefined) c.header("retry-after", String(http.retryAfterSeconds));
  return { response: c.json(http.body, http.status), http };
}
