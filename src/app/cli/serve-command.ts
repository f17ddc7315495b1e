import type { ServiceConfig } from "../server/config/service-config.js";
import { type RunningServer, startServer } from "../server/start-server.js";

export interface ServeOptions {
  config: ServiceConfig;
  port?: number;
  host?: string;
  store?: string;
  out: NodeJS.WritableStream;
}

/** Starts the server, prints where it listens, and closes it cleanly on SIGINT / SIGTERM. */
export async function serveCommand(
  options: ServeOptions,
  banner?: (server: RunningServer) => string,
): Promise<RunningServer> {
  const start: Parameters<typeof startServer>[0] = { config: options.config };
  if (options.port !== undefined) start.port = options.port;
  if (options.host !== undefined) start.host = options.host;
  if (options.store !== undefined) start.store = options.store;
  // What a 5xx answer leaves out (a store outage's driver error) goes to the server's own log.
  start.onServerError = (error, request) =>
    process.stderr.write(
      `error: ${request.method} ${request.path} answered ${request.status}: ${(error as Error)?.stack ?? String(error)}\n`,
    );
  // Fenced runs and the replies the recovery sweeper closed, as the runtime reports them.
  start.log = ({ level, message, sessionId }) =>
    process.stderr.write(`${level}: ${sessionId === undefined ? "" : `session ${sessionId}: `}${message}\n`);
  const server = await startServer(start);
  for (const notice of server.notices) options.out.write(`note: ${notice}\n`);
  for (const warning of server.warnings) options.out.write(`warning: ${warning}\n`);
  options.out.write(`${server.containment}\n`);
  options.out.write(
    `agentscope listening on ${server.url} (agents: ${server.runtime.agentNames.join(", ")}; store: ${server.runtime.backend.kind})\n`,
  );
  if (banner) options.out.write(banner(server));
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    void server.close().finally(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return server;
}
