import { join } from "node:path";
import { JsonFileCheckpointStore } from "../file/json-file-checkpoint-store.js";
import { localPath } from "../local-path.js";
import { MySqlCheckpointStore } from "../mysql/mysql-checkpoint-store.js";
import { PostgresCheckpointStore } from "../postgres/postgres-checkpoint-store.js";
import { RedisCheckpointStore } from "../redis/redis-checkpoint-store.js";
import { SqliteCheckpointStore } from "../sqlite/sqlite-checkpoint-store.js";
import { DEFAULT_SQLITE_PATH, sqliteFileOf } from "../sqlite/sqlite-store.js";
import { splitStoreUrl } from "../store-family.js";
import type { CheckpointStore } from "./checkpoint-store.js";
import { InMemoryCheckpointStore } from "./memory-checkpoint-store.js";

/**
 * The checkpoint store beside a state store URL (the same SQLite file, Redis or PostgreSQL server,
 * MySQL/MariaDB server, with `prefix` as the table prefix or key prefix when given; beside a JSON-file
 * store, in its `checkpoints` folder).
 */
export function openCheckpointStore(url: string, prefix?: string): CheckpointStore {
  const { scheme, rest } = splitStoreUrl(url);
  const table = prefix ? `${prefix.replace(/[^A-Za-z0-9_]/g, "_")}checkpoints` : undefined;
  switch (scheme) {
    case "memory":
      return new InMemoryCheckpointStore();
    case "sqlite":
      return new SqliteCheckpointStore({
        path: sqliteFileOf(url) ?? DEFAULT_SQLITE_PATH,
        ...(table ? { table } : {}),
      });
    case "redis":
    case "rediss":
      return new RedisCheckpointStore({ url, ...(prefix ? { prefix: `${prefix}checkpoints:` } : {}) });
    case "postgres":
    case "postgresql":
      return new PostgresCheckpointStore({ url, ...(table ? { table } : {}) });
    case "mysql":
    case "mariadb":
      return new MySqlCheckpointStore({ url, ...(table ? { table } : {}) });
    case "file":
      if (!rest) throw new TypeError(`checkpoints: "${url}" names no directory (e.g. file:./sessions)`);
      // a folder whose name has no .json: the state store's listing passes it by
      return new JsonFileCheckpointStore({ directory: join(localPath(rest), "checkpoints") });
    default:
      throw new TypeError(
        `checkpoints: the store "${scheme || url}" keeps no checkpoints (use sqlite:, redis://, postgres://, mysql://, file: or memory:)`,
      );
  }
}
