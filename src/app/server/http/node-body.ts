import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { incomingOf } from "./node-request.js";

/**
 * Request bodies read from Node's request itself. Under `@hono/node-server` a request is a light
 * wrapper until something touches its WHATWG side (`body`, `signal`, `text()`): then the adapter
 * builds a whole `Request` with a copied `Headers`, an `AbortController` and a web stream over the
 * socket. Hono's own `bodyLimit` touches `body` on every request, and `c.req.text()` reads through
 * that stream, so each held SSE stream kept those objects alive, and 10,000 of them all died together
 * when the replies ended. A body with a declared `Content-Length` (what every JSON client sends) is
 * checked against the limit from the header and read from the `IncomingMessage` directly; anything
 * else (a chunked upload, a runtime other than Node) takes Hono's path.
 */

/** The body's declared length on Node, when the request has one and is not chunked; else undefined. */
function declaredLength(incoming: IncomingMessage | undefined): number | undefined {
  if (!incoming || incoming.headers["transfer-encoding"] !== undefined) return undefined;
  const header = incoming.headers["content-length"];
  return header === undefined ? 0 : Number(header); // Node's parser has checked it is a number
}

/**
 * The body limit: `onError` answers a body over `maxSize` bytes. On Node a declared length is
 * compared as it is (the parser never delivers more than it); otherwise Hono's `bodyLimit` counts.
 */
export function limitBodies(maxSize: number, onError: (c: Context) => Response): MiddlewareHandler {
  const counting = bodyLimit({ maxSize, onError });
  return async (c, next) => {
    const length = declaredLength(incomingOf(c));
    if (length === undefined) return counting(c, next);
    if (length > maxSize) return onError(c);
    await next();
  };
}

function readIncoming(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.once("end", () => {
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8");
      resolve(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text); // as TextDecoder: no BOM
    });
    incoming.once("error", reject);
    incoming.once("close", () => {
      if (!incoming.complete) reject(new Error("the client went away before sending the whole body"));
    });
  });
}

/** The request body as text, from Node's request when nothing has read it yet, else through Hono. */
export function bodyText(c: Context): Promise<string> {
  const incoming = incomingOf(c);
  if (incoming && !incoming.readableDidRead && declaredLength(incoming) !== undefined)
    return readIncoming(incoming);
  return c.req.text();
}
