import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";

export interface LoopbackServer {
  port: number;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Stops listening and drops open connections (held SSE streams included). */
  close(): Promise<void>;
}

/** Serves `fetch` through @hono/node-server (the Node path, env with incoming/outgoing) on a free port. */
export async function serveOnLoopback(
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>,
): Promise<LoopbackServer> {
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    close: async () => {
      (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
