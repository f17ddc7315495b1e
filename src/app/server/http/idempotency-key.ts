import type { Context } from "hono";
import { RequestError } from "../request-error.js";
import { requestHeader } from "./request-header.js";

/** 1 to 200 visible ASCII characters (a UUID, a ULID, a client's own request id). */
const KEY = /^[\x21-\x7e]{1,200}$/;

/**
 * The request's `Idempotency-Key`, or undefined when it sends none: a write repeated with the same
 * key (a retry after a lost answer) gets the first request's answer and starts nothing new.
 */
export function idempotencyKeyOf(c: Context): string | undefined {
  const value = requestHeader(c, "idempotency-key");
  if (value === undefined) return undefined;
  const key = value.trim();
  if (!KEY.test(key))
    throw new RequestError(
      "invalid_request",
      "Idempotency-Key: use 1 to 200 visible ASCII characters (e.g. a UUID), one per request",
    );
  return key;
}
