import { fetchTransport } from "../../../src/model/transport/fetch-transport.js";
import { nodeHttpTransport } from "../../../src/model/transport/node-http.js";
import type { HttpTransport } from "../../../src/model/transport/types.js";

/**
 * The provider wire tests run once per transport: `choice` is what a model's `transport` option
 * takes, `http` the transport itself (to wrap, e.g. to record what was sent).
 */
export interface TransportCase {
  name: string;
  choice: "fetch" | "node";
  http: HttpTransport;
}

export const TRANSPORTS: TransportCase[] = [
  { name: "fetch", choice: "fetch", http: fetchTransport() },
  { name: "node:http", choice: "node", http: nodeHttpTransport },
];

/** `http`, recording each request body in `sent` before sending it. */
export function recordingTransport(http: HttpTransport, sent: string[]): HttpTransport {
  return (url, request) => {
    sent.push(String(request.body));
    return http(url, request);
  };
}
