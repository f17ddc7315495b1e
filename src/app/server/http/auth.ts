import type { MiddlewareHandler } from "hono";
import { RequestError } from "../request-error.js";
import { requestHeader } from "./request-header.js";

/** The user every request acts as when the server has no tokens (it then listens on 127.0.0.1 only). */
export const LOCAL_USER = "local";

/** Hono variables set by the service's middleware. */
export interface ServiceVariables {
  user: string;
}

/** The one route that accepts `?access_token=`: a session's event stream (EventSource). */
const QUERY_TOKEN_ROUTE = /^\/v1\/sessions\/[^/]+\/events$/;

/** Parses `token1:alice,token2:bob` (AGENTSCOPE_TOKENS) into token → user. */
export function parseTokens(text: string | undefined): Map<string, string> {
  const tokens = new Map<string, string>();
  for (const pair of (text ?? "").split(",")) {
    const entry = pair.trim();
    if (entry === "") continue;
    const colon = entry.lastIndexOf(":");
    const token = entry.slice(0, colon).trim();
    const user = entry.slice(colon + 1).trim();
    if (colon <= 0 || token === "" || user === "")
      throw new TypeError(`AGENTSCOPE_TOKENS: "${entry}" is not token:user (write token1:alice,token2:bob)`);
    tokens.set(token, user);
  }
  return tokens;
}

/**
 * Bearer-token auth: sets `user` from the token, or 401. With no tokens every request is LOCAL_USER.
 * EventSource cannot send headers, so the event stream (GET /v1/sessions/:id/events, and only it)
 * may pass the token as `?access_token=`; anywhere else a token in a URL would leak into logs.
 */
export function bearerAuth(
  tokens: ReadonlyMap<string, string>,
): MiddlewareHandler<{ Variables: ServiceVariables }> {
  return async (c, next) => {
    if (tokens.size === 0) {
      c.set("user", LOCAL_USER);
      return next();
    }
    const header = requestHeader(c, "authorization");
    const token =
      /^Bearer\s+(.+)$/i.exec(header ?? "")?.[1]?.trim() ??
      (c.req.method === "GET" && QUERY_TOKEN_ROUTE.test(c.req.path)
        ? c.req.query("access_token")
        : undefined);
    const user = token === undefined ? undefined : tokens.get(token);
    if (user === undefined) {
      throw new RequestError(
        "authentication",
        token === undefined ? "send Authorization: Bearer <token>" : "the bearer token is not valid",
      );
    }
    c.set("user", user);
    return next();
  };
}
