import type { Context } from "hono";
import type { z } from "zod";
import { formatPath } from "../../../message/index.js";
import { RequestError } from "../request-error.js";
import { bodyText } from "./node-body.js";
import { requestHeader } from "./request-header.js";

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/** Whether a Content-Type header names JSON (`application/json`, `application/*+json`, parameters allowed). */
export function isJsonContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_TYPE.test(contentType);
}

/**
 * 415 unless the request says its body is JSON. A browser page on another origin can send
 * `text/plain`, `application/x-www-form-urlencoded` or `multipart/form-data` without asking (no
 * preflight); it cannot send JSON. `hasBody: false` (an empty body) lets a request without any
 * Content-Type through: there is no body to misread.
 */
export function requireJsonContentType(c: Context, what: string, hasBody = true): void {
  const contentType = requestHeader(c, "content-type");
  if ((hasBody || contentType !== undefined) && !isJsonContentType(contentType))
    throw new RequestError(
      "unsupported_media_type",
      `send the ${what} as Content-Type: application/json (got ${contentType ? `"${contentType}"` : "none"})`,
    );
}

/**
 * Reads a JSON body and validates it: a body sent as anything but `Content-Type: application/json`
 * → 415 (a browser page on another origin can send `text/plain` without asking; it cannot send JSON);
 * not JSON → 400 invalid_json; wrong shape → 400 naming the field. An empty body counts as `{}`.
 */
export async function readBody<T>(c: Context, schema: z.ZodType<T>, what: string): Promise<T> {
  requireJsonContentType(c, what, false); // a wrong type is refused before the body is read
  const text = await bodyText(c);
  requireJsonContentType(c, what, text !== "");
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new RequestError("invalid_json", `the body is not JSON: ${(error as Error).message}`);
    }
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new RequestError(
    "invalid_request",
    `invalid ${what}: ${formatPath(issue.path) || "(body)"}: ${issue.message}`,
  );
}
