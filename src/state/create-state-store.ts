import { fileURLToPath } from "node:url";
import { JsonFileStateStore } from "./json-file-store.js";
import { InMemoryStateStore } from "./memory-store.js";
import { MySqlStateStore } from "./mysql-store.js";
import { PostgresStateStore } from "./postgres-store.js";
import { RedisStateStore } from "./redis-store.js";
import { SqliteStateStore } from "./sqlite-store.js";
import type { AgentStateStore } from "./store.js";

export interface CreateStateStoreOptions {
  /** Table for the SQL stores. */
  table?: string;
  /** Key prefix for Redis (the same name the service backends use). */
  prefix?: string;
  /** @deprecated the old name of `prefix`. */
  keyPrefix?: string;
}

const SUPPORTED = "memory:, file:./dir, sqlite:./state.db, redis://, postgres://, mysql://";

function localPath(rest: string): string {
  return rest.startsWith("//") ? fileURLToPath(`file:${rest}`) : rest;
}

/**
 * A store from a URL: `memory:`, `file:./dir`, `sqlite:./path.db` (`sqlite:` alone = the default
 * `.agentscope/state.db`, `sqlite::memory:`), `redis://`, `rediss://`, `postgres://`, `postgresql://`,
 * `mysql://`, `mariadb://`. Resolves once it is connected and ready, so a bad URL, a missing driver
 * or a server that is down fails here.
 */
export async function createStateStore(
  url: string,
  options: CreateStateStoreOptions = {},
): Promise<AgentStateStore> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  const rest = url.slice((scheme?.length ?? 0) + 1);
  const { table } = options;
  const prefix = options.prefix ?? options.keyPrefix;
  switch (scheme) {
    case "memory":
      return new InMemoryStateStore();
    case "file": {
      if (!rest) throw new TypeError(`createStateStore: "${url}" names no directory (e.g. file:./sessions)`);
      return new JsonFileStateStore(localPath(rest));
    }
    case "sqlite": {
      const store = new SqliteStateStore({ path: rest ? localPath(rest) : undefined, table });
      await store.init();
      return store;
    }
    case "redis":
    case "rediss": {
      const store = new RedisStateStore({ url, prefix });
      await store.init();
      return store;
    }
    case "postgres":
    case "postgresql": {
      const store = new PostgresStateStore({ url, table });
      await store.init();
      return store;
    }
    case "mysql":
    case "mariadb": {
      const store = new MySqlStateStore({ url, table });
      await store.init();
      return store;
    }
    default:
      throw new TypeError(`createStateStore: unsupported store URL "${url}"; use one of ${SUPPORTED}`);
  }
}
