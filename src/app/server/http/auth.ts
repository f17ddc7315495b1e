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

/**
 * Parses `token1:alice,token2:bob` (AGENTSCOPE_TOKENS) into token → user. An entry may give the
 * user's roles after a second colon, `+`-separated (`t1:alice:admin+sre`): see `parseTokenRoles`.
 * A token holds no `:`.
 */
export function parseTokens(text: string | undefined): Map<string, string> {
  const tokens = new Map<string, string>();
  for (const entry of tokenEntries(text)) tokens.set(entry.token, entry.user);
  return tokens;
}

/**
 * The roles AGENTSCOPE_TOKENS gives each user (`t1:alice:admin+sre` → alice: admin, sre), for the
 * approver policies; a user named by several tokens has the roles of all of them.
 */
export function parseTokenRoles(text: string | undefined): Map<string, string[]> {
  const roles = new Map<string, string[]>();
  for (const entry of tokenEntries(text)) {
    const had = roles.get(entry.user) ?? [];
    roles.set(entry.user, [...new Set([...had, ...entry.roles])]);
  }
  return roles;
}

function tokenEntries(text: string | undefined): Array<{ token: string; user: string; roles: string[] }> {
  const out: Array<{ token: string; user: string; roles: string[] }> = [];
  for (const pair of (text ?? "").split(",")) {
    const entry = pair.trim();
    if (entry === "") continue;
    const parts = entry.split(":").map((part) => part.trim());
    const [token = "", user = "", roleList] = parts;
    const roles = roleList === undefined ? [] : roleList.split("+").map((role) => role.trim());
    if (parts.length < 2 || parts.length > 3 || token === "" || user === "" || roles.some((r) => r === ""))
      throw new TypeError(
        `AGENTSCOPE_TOKENS: "${entry}" is not token:user or token:user:role+role (write token1:alice,token2:bob:admin)`,
      );
    out.push({ token, user, roles });
  }
  return out;
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
