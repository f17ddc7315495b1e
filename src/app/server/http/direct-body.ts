import type { ServerResponse } from "node:http";

/**
 * Writing a streamed body straight to Node's response. Under `@hono/node-server` a `ReadableStream`
 * body costs a reader, a pull and several promise hops per chunk between the producer and the
 * socket; for an SSE stream that is every event of every open stream. A response can carry a
 * direct writer instead (`withDirectBody`): when the app runs on Node (the server's `fetch` gets
 * `{ outgoing }` as its env), `sendBodiesDirectly` writes the head, hands the writer the
 * `ServerResponse` and tells the adapter the response is sent. Elsewhere (`app.request` in tests,
 * Deno, Bun, edge runtimes, an app mounted into another with `route`) the marker is ignored and the
 * response's own `ReadableStream` body is read as usual, so both paths must produce the same bytes.
 *
 * The head is written after the whole middleware chain has run (the CORS headers the origin guard
 * sets after `next()` are on the response by then).
 */

type DirectWriter = (out: ServerResponse) => void;

const DIRECT_BODY = Symbol("agentscope.directBody");
/** The adapter's marker for "the handler wrote the response itself" (@hono/node-server). */
const ALREADY_SENT = "x-hono-already-sent";

interface WithDirectBody {
  [DIRECT_BODY]?: DirectWriter;
}

/** Marks `response` as one whose body `write` can send straight to a Node `ServerResponse`. */
export function withDirectBody(response: Response, write: DirectWriter): Response {
  (response as WithDirectBody)[DIRECT_BODY] = write;
  return response;
}

type Fetch = (request: Request, env?: unknown, executionContext?: never) => Response | Promise<Response>;

function outgoingOf(env: unknown): ServerResponse | undefined {
  const outgoing = (env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  return outgoing && typeof outgoing.writeHead === "function" ? outgoing : undefined;
}

function headerRecord(headers: Headers): Record<string, string | string[]> {
  const record: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    const seen = record[name];
    if (seen === undefined) record[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else record[name] = [seen, value]; // only set-cookie repeats: Headers joins the others
  }
  return record;
}

function send(response: Response, outgoing: ServerResponse): Response {
  const write = (response as WithDirectBody)[DIRECT_BODY];
  if (write === undefined || outgoing.headersSent) return response;
  outgoing.writeHead(response.status, headerRecord(response.headers));
  write(outgoing);
  return new Response(null, { headers: { [ALREADY_SENT]: "1" } });
}

/**
 * Wraps an app's `fetch` so responses marked with `withDirectBody` are written straight to Node's
 * response when there is one. Every other response, and every response off Node, passes unchanged.
 */
export function sendBodiesDirectly<F extends Fetch>(fetch: F): F {
  const wrapped = (request: Request, env?: unknown, executionContext?: never) => {
    const result = fetch(request, env, executionContext);
    const outgoing = outgoingOf(env);
    if (outgoing === undefined) return result;
    return result instanceof Promise
      ? result.then((response) => send(response, outgoing))
      : send(result, outgoing);
  };
  return wrapped as F;
}
