import { join } from "node:path";
import {
  type AgentStateStore,
  type CheckpointStore,
  PostgresCheckpointStore,
  PostgresStateStore,
  RedisCheckpointStore,
  RedisStateStore,
  SqliteCheckpointStore,
  SqliteStateStore,
} from "../../src/state/index.js";

/** What the stores of one driver are opened with: a directory (SQLite), a prefix (Redis) or a table (PostgreSQL). */
export interface TimeTravelStoreConfig {
  dir?: string;
  prefix?: string;
  url?: string;
  table?: string;
}

/** The state store and checkpoint store of one driver, opened afresh (a restart opens them again). */
export function openTimeTravelStores(
  driver: string,
  config: TimeTravelStoreConfig,
): { state: AgentStateStore; checkpoints: CheckpointStore } {
  if (driver === "sqlite") {
    const path = join(config.dir!, "s.db");
    return { state: new SqliteStateStore({ path }), checkpoints: new SqliteCheckpointStore({ path }) };
  }
  if (driver === "redis")
    return {
      state: new RedisStateStore({ prefix: `${config.prefix}state:` }),
      checkpoints: new RedisCheckpointStore({ prefix: `${config.prefix}ckpt:` }),
    };
  if (driver === "postgres")
    return {
      state: new PostgresStateStore({ url: config.url!, table: config.table! }),
      checkpoints: new PostgresCheckpointStore({ url: config.url!, table: `${config.table}_cp` }),
    };
  throw new Error(`unknown driver ${driver}`);
}
