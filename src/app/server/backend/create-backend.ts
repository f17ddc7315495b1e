import { fileURLToPath } from "node:url";
import { ConfigError } from "../config/service-config.js";
import type { BackendOptions, ServiceBackend } from "./types.js";

const SUPPORTED = "memory:, sqlite:./path.db (default .agentscope/state.db), redis://, postgres://";

const SQL_PREFIX = /^[A-Za-z_]\w{0,39}$/;

/**
 * The service backend for a store URL; the driver module is imported only for the scheme used.
 * Resolves once connected and ready, so a bad URL or a server that is down fails here.
 */
export async function createBackend(url: string, options: BackendOptions = {}): Promise<ServiceBackend> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  const rest = url.slice((scheme?.length ?? 0) + 1);
  if (
    options.prefix !== undefined &&
    scheme !== "redis" &&
    scheme !== "rediss" &&
    !SQL_PREFIX.test(options.prefix)
  )
    throw new ConfigError(
      `store prefix "${options.prefix}": SQL table names take letters, digits and _ (start with a letter or _)`,
    );
  switch (scheme) {
    case "memory":
      return (await import("./memory-backend.js")).memoryBackend(options);
    case "sqlite": {
      const path = rest === "" ? undefined : rest.startsWith("//") ? fileURLToPath(`file:${rest}`) : rest;
      return (await import("./sqlite-backend.js")).sqliteBackend(path, options);
    }
    case "redis":
    case "rediss":
      return (await import("./redis-backend.js")).redisBackend(url, options);
    case "postgres":
    case "postgresql":
      return (await import("./postgres-backend.js")).postgresBackend(url, options);
    case "mysql":
    case "mariadb":
      throw new ConfigError(
        `store "${url}": MySQL keeps agent state (createStateStore) but cannot back the service yet; use one of ${SUPPORTED}`,
      );
    default:
      throw new ConfigError(`unsupported store URL "${url}" for the service; use one of ${SUPPORTED}`);
  }
}
