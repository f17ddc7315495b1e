import type { IncomingMessage } from "node:http";
import type { Context } from "hono";

/** Node's request under `@hono/node-server` (the adapter's env carries it); undefined elsewhere. */
export function incomingOf(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming && typeof incoming.on === "function" ? incoming : undefined;
}
