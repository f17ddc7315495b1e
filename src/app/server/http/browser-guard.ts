import type { MiddlewareHandler } from "hono";
import { RequestError } from "../request-error.js";
import { requestHeader } from "./request-header.js";

/** Host names every server answers to: the loopback ones. */
export const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"] as const;

/** Methods a page can use to change something (the ones the Origin check covers). */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const PREFLIGHT_HEADERS = {
  "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE",
  "access-control-allow-headers":
    "authorization, content-type, accept, last-event-id, idempotency-key, agentscope-channel",
  "access-control-expose-headers": "retry-after",
  "access-control-max-age": "600",
};

function normalizeHost(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.includes(":") && !lower.startsWith("[") ? `[${lower}]` : lower;
}

/**
 * Refuses requests whose `Host` is not one this server answers to (403), which defeats DNS
 * rebinding: a page on `evil.example` whose name now resolves to 127.0.0.1 still sends
 * `Host: evil.example`. `"*"` turns the check off (a server behind a proxy that checks hosts itself).
 */
export function hostGuard(allowed: readonly string[] | "*"): MiddlewareHandler {
  if (allowed === "*") return (_c, next) => next();
  const names = new Set(allowed.map(normalizeHost));
  return async (c, next) => {
    const host = new URL(c.req.url).hostname.toLowerCase();
    if (!names.has(host))
      throw new RequestError(
        "forbidden",
        `this server does not answer to the host "${host}"; add it to server.allowedHosts if it is yours`,
      );
    return next();
  };
}

/**
 * The Origin check and CORS. A request that can change something (POST, PUT, PATCH, DELETE) and
 * carries an `Origin` must come from this server's own origin or one of `corsOrigins`, else 403:
 * a page elsewhere cannot start a reply even with a request the browser sends without asking.
 * Requests without `Origin` (curl, SDKs) pass. Only `corsOrigins` get CORS headers and preflight
 * answers, so no other page can read a response.
 */
export function originGuard(
  corsOrigins: readonly string[],
  onRefused?: (origin: string, request: string) => void,
): MiddlewareHandler {
  const allowed = new Set(corsOrigins.map((origin) => origin.replace(/\/+$/, "").toLowerCase()));
  const refuse = refusalReporter(onRefused);
  return async (c, next) => {
    const origin = requestHeader(c, "origin");
    if (origin === undefined) return next();
    const url = new URL(c.req.url);
    const listed = allowed.has(origin.toLowerCase());
    const sameOrigin = origin.toLowerCase() === url.origin.toLowerCase();
    if (c.req.method === "OPTIONS") {
      if (!listed) {
        refuse(origin, `${c.req.method} ${c.req.path}`);
        throw new RequestError("forbidden", `the origin ${origin} is not in cors.origins`);
      }
      return c.body(null, 204, {
        ...PREFLIGHT_HEADERS,
        "access-control-allow-origin": origin,
        vary: "Origin",
      });
    }
    if (!SAFE_METHODS.has(c.req.method) && !sameOrigin && !listed) {
      refuse(origin, `${c.req.method} ${c.req.path}`);
      throw new RequestError(
        "forbidden",
        `requests from the origin ${origin} are refused; list it in cors.origins to allow it`,
      );
    }
    await next();
    if (listed) {
      c.res.headers.set("access-control-allow-origin", origin);
      c.res.headers.set("access-control-expose-headers", "retry-after");
      c.res.headers.append("vary", "Origin");
    }
  };
}

/** Origins reported at most: a page that sends from ever new origins cannot grow the set for ever. */
const MAX_REPORTED_ORIGINS = 100;

/** Tells `listener` of each refused origin once (the first request from it), never throwing. */
function refusalReporter(
  listener: ((origin: string, request: string) => void) | undefined,
): (origin: string, request: string) => void {
  const reported = new Set<string>();
  return (origin, request) => {
    const key = origin.toLowerCase();
    if (!listener || reported.has(key) || reported.size >= MAX_REPORTED_ORIGINS) return;
    reported.add(key);
    try {
      listener(origin, request);
    } catch {
      // the refusal goes out all the same
    }
  };
}
