import type { BodyReader, FetchFunction, HttpTransport } from "./types.js";

/** A body with nothing in it (a fetch Response whose `body` is null: 204, HEAD). */
const EMPTY_BODY: BodyReader = {
  read: () => Promise.resolve({ done: true }),
  cancel: () => Promise.resolve(),
};

/**
 * The portable transport: `fetch` (the given one, else `globalThis.fetch`, looked up per request so
 * a test or polyfill that replaces it later is honoured). Runs wherever fetch does: Node, browsers,
 * Deno, Bun, edge runtimes. The body is read through the WHATWG stream's own reader.
 */
export function fetchTransport(fetchFn?: FetchFunction): HttpTransport {
  return async (url, request) => {
    const response = await (fetchFn ?? globalThis.fetch)(url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
    });
    return {
      status: response.status,
      headers: response.headers,
      body: response.body === null ? EMPTY_BODY : response.body.getReader(),
    };
  };
}
