import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { type CreateAppOptions, createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { conversationModel } from "./fixtures/agents.js";

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

/**
 * The service (memory backend, one conversation agent, `createApp` with `options`) on a free loopback
 * port; `close` stops the server and then the runtime.
 */
export async function serveService(options: CreateAppOptions = {}): Promise<LoopbackServer> {
  const runtime = new ServiceRuntime({
    backend: memoryBackend(),
    agents: [{ name: "a", model: conversationModel() }],
  });
  const server = await serveOnLoopback(createApp(runtime, options).fetch);
  return {
    ...server,
    close: async () => {
      await server.close();
      await runtime.close();
    },
  };
}
