import type { Context } from "hono";
import type { z } from "zod";
import { formatPath } from "../../../message/index.js";
import { HttpError } from "../http-error.js";
import { bodyText } from "./node-body.js";
import { requestHeader } from "./request-header.js";

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/**
 * Reads a JSON body and validates it: a body sent as anything but `Content-Type: application/json`
 * → 415 (a browser page on another origin can send `text/plain` without asking; it cannot send JSON);
 * not JSON → 400 invalid_json; wrong shape → 400 naming the field. An empty body counts as `{}`.
 */
export async function readBody<T>(c: Context, schema: z.ZodType<T>, what: string): Promise<T> {
  const contentType = requestHeader(c, "content-type");
  const text = await bodyText(c);
  if ((text !== "" || contentType !== undefined) && !JSON_TYPE.test(contentType ?? ""))
    throw new HttpError(
      415,
      "unsupported_media_type",
      `send the ${what} as Content-Type: application/json (got ${contentType ? `"${contentType}"` : "none"})`,
    );
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new HttpError(400, "invalid_json", `the body is not JSON: ${(error as Error).message}`);
    }
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new HttpError(
    400,
    "invalid_request",
    `invalid ${what}: ${formatPath(issue.path) || "(body)"}: ${issue.message}`,
  );
}
