import type { Context } from "hono";
import { incomingOf } from "./node-request.js";

/**
 * A request header by its lower-case name, with repeated values joined by ", " (as `Headers.get`).
 * Under `@hono/node-server` it is read from Node's raw header list: Hono's request would first build
 * a whole WHATWG `Headers` from every header of the request, the costliest part of reading one.
 * Elsewhere (`app.request`, other runtimes) it goes through Hono.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const raw = incomingOf(c)?.rawHeaders;
  if (raw === undefined) return c.req.header(name);
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length !== name.length || key.toLowerCase() !== name) continue;
    value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}
