import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { DEFAULT_SQLITE_PATH } from "../../state/index.js";
import { createApp } from "./app.js";
import { createBackend } from "./backend/create-backend.js";
import type { BackendOptions } from "./backend/types.js";
import { buildAgents } from "./config/build-agents.js";
import type { ServiceConfig } from "./config/service-config.js";
import { parseTokens, type ServiceVariables } from "./http/auth.js";
import { mountedRoutes } from "./mounted-routes.js";
import { ServiceRuntime } from "./runtime/service-runtime.js";

export interface StartServerOptions {
  config: ServiceConfig;
  /** Overrides config.server.port; default 8787 (0 = any free port). */
  port?: number;
  /** Overrides config.server.host; default 127.0.0.1. Without tokens only 127.0.0.1 is allowed. */
  host?: string;
  /** Overrides config.store. */
  store?: string;
  /** Token pairs, as AGENTSCOPE_TOKENS (default: process.env.AGENTSCOPE_TOKENS). */
  tokensEnv?: string;
  /** Table/key prefix, lock TTL and retention of the store backend (config.events.maxPerSession wins). */
  backend?: BackendOptions;
  /** Skip the AG-UI and console mounts. */
  withoutOptionalRoutes?: boolean;
}

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  /** What a CLI should tell the user (e.g. that the server is local-only without tokens). */
  notices: string[];
  runtime: ServiceRuntime;
  app: Hono<{ Variables: ServiceVariables }>;
  close(): Promise<void>;
}

const LOOPBACK = "127.0.0.1";

/** Builds the agents, opens the store backend and listens. Library code: prints nothing. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { config } = options;
  const tokens = parseTokens(options.tokensEnv ?? process.env.AGENTSCOPE_TOKENS);
  for (const [token, user] of Object.entries(config.tokens ?? {})) tokens.set(token, user);
  const notices: string[] = [];
  let host = options.host ?? config.server?.host ?? LOOPBACK;
  if (tokens.size === 0 && host !== LOOPBACK) {
    notices.push(
      `no tokens are configured, so the server listens on ${LOOPBACK} only (not ${host}); set AGENTSCOPE_TOKENS=token:user to open it`,
    );
    host = LOOPBACK;
  } else if (tokens.size === 0) {
    notices.push(
      `no tokens are configured: listening on ${LOOPBACK} only, every request acts as user "local"`,
    );
  }
  const storeUrl = options.store ?? config.store ?? `sqlite:${DEFAULT_SQLITE_PATH}`;
  const agents = await buildAgents(config.agents);
  const backendOptions = config.events?.maxPerSession
    ? { maxEventsPerSession: config.events.maxPerSession }
    : {};
  const backend = await createBackend(storeUrl, backendOptions);
  const runtimeOptions: ConstructorParameters<typeof ServiceRuntime>[0] = { backend, agents };
  if (config.server?.heartbeatMs) runtimeOptions.heartbeatMs = config.server.heartbeatMs;
  if (config.server?.maxConcurrentRuns) runtimeOptions.maxConcurrentRuns = config.server.maxConcurrentRuns;
  const runtime = new ServiceRuntime(runtimeOptions);
  const mounts = options.withoutOptionalRoutes ? [] : mountedRoutes(runtime);
  const appOptions: Parameters<typeof createApp>[1] = { tokens, mounts };
  if (config.server?.maxBodyBytes) appOptions.maxBodyBytes = config.server.maxBodyBytes;
  const app = createApp(runtime, appOptions);
  const port = options.port ?? config.server?.port ?? 8787;
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(s));
    s.once("error", reject);
  }).catch(async (error) => {
    await runtime.close();
    throw new Error(`cannot listen on ${host}:${port}: ${(error as Error).message}`, { cause: error });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    host,
    port: address.port,
    notices,
    runtime,
    app,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await runtime.close();
    },
  };
}
