import { importDriver } from "./lazy-driver.js";
import { InMemorySpendCounter } from "./memory/memory-spend-counter.js";
import { openMySqlPool } from "./mysql/mysql-pool.js";
import { MySqlSpendCounter } from "./mysql/mysql-spend-counter.js";
import { PostgresSpendCounter } from "./postgres/postgres-spend-counter.js";
import { RedisSpendCounter } from "./redis/redis-spend-counter.js";
import { parseServerUrl } from "./server-url.js";
import type { SpendCounter } from "./spend-counter.js";
import { openSqlite } from "./sqlite/sqlite-driver.js";
import { SqliteSpendCounter } from "./sqlite/sqlite-spend-counter.js";
import { DEFAULT_SQLITE_PATH, sqliteFileOf } from "./sqlite/sqlite-store.js";
import { splitStoreUrl } from "./store-family.js";

/** A spend counter with the connection it opened, closed with it. */
export interface OpenedSpendCounter extends SpendCounter {
  close(): Promise<void>;
}

/**
 * The spend counter beside a state store URL, on its own connection to the same server (the same
 * SQLite file, Redis, PostgreSQL or MySQL/MariaDB database), so every replica on that store shares the
 * counts; `prefix` is the table or key prefix when given. A `memory:` store counts in this process. A
 * store with no atomic counter (JSON files) is refused with the ones that have one. The driver is
 * loaded on first use, as the store loads it.
 */
export async function openSpendCounter(url: string, prefix?: string): Promise<OpenedSpendCounter> {
  const { scheme } = splitStoreUrl(url);
  const table = prefix ? `${prefix.replace(/[^A-Za-z0-9_]/g, "_")}spend` : undefined;
  switch (scheme) {
    case "memory":
      return closing(new InMemorySpendCounter(), async () => {});
    case "sqlite": {
      const db = await openSqlite(sqliteFileOf(url) ?? DEFAULT_SQLITE_PATH, "the spend counter");
      return closing(new SqliteSpendCounter({ database: db, ...(table ? { table } : {}) }), async () =>
        db.close(),
      );
    }
    case "redis":
    case "rediss": {
      const { Redis } = await importDriver(() => import("ioredis"), "ioredis", "the spend counter");
      const client = new Redis(parseServerUrl(url, "the spend counter"), { maxRetriesPerRequest: 3 });
      const counter = new RedisSpendCounter({ client, ...(prefix ? { prefix: `${prefix}spend:` } : {}) });
      return closing(counter, async () => void (await client.quit()));
    }
    case "postgres":
    case "postgresql": {
      const { Pool } = await importDriver(() => import("pg"), "pg", "the spend counter");
      const pool = new Pool({ connectionString: parseServerUrl(url, "the spend counter"), max: 4 });
      return closing(new PostgresSpendCounter({ client: pool, ...(table ? { table } : {}) }), () =>
        pool.end(),
      );
    }
    case "mysql":
    case "mariadb": {
      const pool = await openMySqlPool(parseServerUrl(url, "the spend counter"), "the spend counter", 4);
      return closing(new MySqlSpendCounter({ client: pool, ...(table ? { table } : {}) }), () => pool.end());
    }
    default:
      throw new TypeError(
        `budget: the store "${scheme || url}" keeps no spend counters (use sqlite:, redis://, postgres://, mysql:// or memory:, or pass a counter to startServer)`,
      );
  }
}

function closing(counter: SpendCounter, close: () => Promise<void>): OpenedSpendCounter {
  return {
    add: (key, amount, options) => counter.add(key, amount, options),
    read: (keys) => counter.read(keys),
    close: async () => {
      await counter.close?.();
      await close();
    },
  };
}
