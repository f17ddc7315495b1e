import Database from "better-sqlite3";
import { Redis } from "ioredis";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  InMemorySpendCounter,
  MySqlSpendCounter,
  PostgresSpendCounter,
  RedisSpendCounter,
  type SpendCounter,
  SqliteSpendCounter,
  type SqliteSpendDatabase,
} from "../../src/state/index.js";
import { importNodeSqlite } from "../../src/state/sqlite/quiet-node-sqlite.js";
import { missingService, reportMissingService, runName } from "../support/services.js";

/** The contract every spend counter keeps; `second` opens another client on the same counters (a replica). */
function describeSpendCounter(
  name: string,
  open: () => Promise<{ first: SpendCounter; second: SpendCounter }>,
) {
  describe(name, () => {
    it("adds, reads, and refuses an add that would pass the limit", async () => {
      const { first, second } = await open();
      expect(await first.read(["a", "b"])).toEqual([0, 0]);
      expect(await first.add("a", 5)).toEqual({ added: true, total: 5 });
      expect(await second.add("a", 4, { limit: 10 })).toEqual({ added: true, total: 9 });
      expect(await first.add("a", 2, { limit: 10 })).toEqual({ added: false, total: 9 });
      expect(await first.add("a", -3)).toEqual({ added: true, total: 6 });
      expect(await second.read(["b", "a"])).toEqual([0, 6]);
      expect(await first.add("fresh", 11, { limit: 10 })).toEqual({ added: false, total: 0 });
      await expect(first.add("a", 0.5)).rejects.toThrow(/safe integer/);
    });

    it("concurrent adds from two clients never pass the limit together", async () => {
      const { first, second } = await open();
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? first : second).add("race", 3, { limit: 50 })),
      );
      expect(results.filter((r) => r.added)).toHaveLength(16);
      expect(await first.read(["race"])).toEqual([48]);
    });
  });
}

describeSpendCounter("InMemorySpendCounter", async () => {
  const counter = new InMemorySpendCounter();
  return { first: counter, second: counter };
});

it("InMemorySpendCounter: a key with a ttl starts again once it expired", async () => {
  let now = 0;
  const counter = new InMemorySpendCounter(() => now);
  await counter.add("day", 7, { ttlSeconds: 10 });
  now = 9_999;
  expect(await counter.read(["day"])).toEqual([7]);
  now = 10_000;
  expect(await counter.read(["day"])).toEqual([0]);
  expect(await counter.add("day", 2, { ttlSeconds: 10 })).toEqual({ added: true, total: 2 });
});

/**
 * A connection as the store opens one: better-sqlite3 where its native build loads (the Node it was
 * built for), else `node:sqlite` (Node 22 and later run the suite without rebuilding it).
 */
async function openSqliteFile(file: string): Promise<SqliteSpendDatabase> {
  try {
    return new Database(file);
  } catch {
    const { DatabaseSync } = await importNodeSqlite<{
      DatabaseSync: new (path: string) => SqliteSpendDatabase;
    }>();
    return new DatabaseSync(file);
  }
}

describeSpendCounter("SqliteSpendCounter", async () => {
  const file = `/tmp/${runName("spend")}.db`;
  const a = await openSqliteFile(file);
  const b = await openSqliteFile(file);
  b.exec("PRAGMA busy_timeout = 5000");
  return { first: new SqliteSpendCounter({ database: a }), second: new SqliteSpendCounter({ database: b }) };
});

const redisMissing = await missingService("Redis", 6379);
const redisClients: Redis[] = [];
if (redisMissing) describe("RedisSpendCounter", () => reportMissingService(redisMissing));
else
  describeSpendCounter("RedisSpendCounter", async () => {
    const prefix = `${runName("spend")}:`;
    const [a, b] = [new Redis("redis://127.0.0.1:6379"), new Redis("redis://127.0.0.1:6379")];
    redisClients.push(a, b);
    return {
      first: new RedisSpendCounter({ client: a, prefix }),
      second: new RedisSpendCounter({ client: b, prefix }),
    };
  });

const pgMissing = await missingService("PostgreSQL", 5432);
const pools: pg.Pool[] = [];
const tables: string[] = [];
if (pgMissing) describe("PostgresSpendCounter", () => reportMissingService(pgMissing));
else
  describeSpendCounter("PostgresSpendCounter", async () => {
    const table = runName("spend");
    tables.push(table);
    const url = "postgres://postgres@127.0.0.1:5432/test";
    const [a, b] = [new pg.Pool({ connectionString: url }), new pg.Pool({ connectionString: url })];
    pools.push(a, b);
    return {
      first: new PostgresSpendCounter({ client: a, table }),
      second: new PostgresSpendCounter({ client: b, table }),
    };
  });

const mysqlMissing = await missingService("MariaDB/MySQL", 3306);
const mysqlUrl = "mysql://root@127.0.0.1:3306/test";
const mysqlPools: mysql.Pool[] = [];
const mysqlTables: string[] = [];
/** A table of this run's, dropped at the end. */
const mysqlTable = () => {
  const table = runName("spend");
  mysqlTables.push(table);
  return table;
};
/**
 * A pool as a user may configure one: mysql2's defaults, or without FOUND_ROWS (`affectedRows` then
 * counts changed rows, not matched ones) and, on MariaDB, with every UPDATE assignment seeing the row
 * as it was (SIMULTANEOUS_ASSIGNMENT): the counter must not depend on either.
 */
async function mysqlPool(variant: "default" | "other" = "default"): Promise<mysql.Pool> {
  if (variant === "default") return keep(mysql.createPool({ uri: mysqlUrl, connectionLimit: 4 }));
  const pool = keep(mysql.createPool({ uri: mysqlUrl, connectionLimit: 4, flags: ["-FOUND_ROWS"] }));
  if (await onMariaDb) {
    pool.on("connection", (connection) => {
      connection.query("SET SESSION sql_mode = CONCAT(@@sql_mode, ',SIMULTANEOUS_ASSIGNMENT')");
    });
    const [[row]] = (await pool.query("SELECT @@sql_mode AS mode")) as unknown as [[{ mode: string }]];
    expect(row.mode).toContain("SIMULTANEOUS_ASSIGNMENT");
  }
  return pool;
}
const keep = (pool: mysql.Pool) => {
  mysqlPools.push(pool);
  return pool;
};
/** Whether the server is MariaDB (the one with SIMULTANEOUS_ASSIGNMENT), asked once. */
const onMariaDb = mysqlMissing
  ? Promise.resolve(false)
  : mysql.createConnection(mysqlUrl).then(async (connection) => {
      const [[row]] = (await connection.query("SELECT VERSION() AS version")) as unknown as [
        [{ version: string }],
      ];
      await connection.end();
      return /mariadb/i.test(row.version);
    });

if (mysqlMissing) describe("MySqlSpendCounter", () => reportMissingService(mysqlMissing));
else {
  describeSpendCounter("MySqlSpendCounter", async () => {
    const table = mysqlTable();
    const [a, b] = [await mysqlPool(), await mysqlPool("other")];
    return {
      first: new MySqlSpendCounter({ client: a, table }),
      second: new MySqlSpendCounter({ client: b, table }),
    };
  });

  describeSpendCounter("MySqlSpendCounter on single connections", async () => {
    const table = mysqlTable();
    const [a, b] = [await mysql.createConnection(mysqlUrl), await mysql.createConnection(mysqlUrl)];
    mysqlConnections.push(a, b);
    return {
      first: new MySqlSpendCounter({ client: a, table }),
      second: new MySqlSpendCounter({ client: b, table }),
    };
  });

  describe("MySqlSpendCounter", () => {
    it("a key with a ttl starts again once it expired, on the server's clock", async () => {
      const table = mysqlTable();
      const [a, b] = [await mysqlPool(), await mysqlPool("other")];
      for (const counter of [
        new MySqlSpendCounter({ client: a, table }),
        new MySqlSpendCounter({ client: b, table }),
      ]) {
        const key = `day:${runName("k")}`;
        expect(await counter.add(key, 7, { ttlSeconds: 0.4, limit: 10 })).toEqual({ added: true, total: 7 });
        // the expiry is set by the first add, not pushed back by the next
        expect(await counter.add(key, 1, { ttlSeconds: 60, limit: 10 })).toEqual({ added: true, total: 8 });
        expect(await counter.add(key, 5, { ttlSeconds: 0.4, limit: 10 })).toEqual({ added: false, total: 8 });
        expect(await counter.read([key])).toEqual([8]);
        await new Promise((resolve) => setTimeout(resolve, 600));
        expect(await counter.read([key])).toEqual([0]);
        // an expired row refuses what an empty one would, and takes what an empty one would
        expect(await counter.add(key, 11, { ttlSeconds: 60, limit: 10 })).toEqual({ added: false, total: 0 });
        expect(await counter.add(key, 10, { ttlSeconds: 60, limit: 10 })).toEqual({ added: true, total: 10 });
        expect(await counter.read([key])).toEqual([10]);
      }
    });

    it("keeps hostile keys apart: case, trailing spaces, quotes, unicode; refuses one it would have to cut", async () => {
      const counter = new MySqlSpendCounter({ client: await mysqlPool(), table: mysqlTable() });
      const keys = [
        "user:ann",
        "user:ann ",
        "user:Ann",
        "user:ann'; DROP TABLE x; --",
        "user:änn",
        "user:ann\\",
      ];
      for (const [i, key] of keys.entries()) await counter.add(key, i + 1);
      expect(await counter.read(keys)).toEqual([1, 2, 3, 4, 5, 6]);
      await expect(counter.add("k".repeat(1025), 1)).rejects.toThrow(/1 to 1024 bytes/);
      await expect(counter.add("é".repeat(513), 1)).rejects.toThrow(/1 to 1024 bytes/);
      await expect(counter.add("", 1)).rejects.toThrow(/1 to 1024 bytes/);
      expect(await counter.add("é".repeat(512), 1)).toEqual({ added: true, total: 1 });
    });

    it("runs an add again when InnoDB rolled it back as a deadlock victim, and counts it once", async () => {
      const pool = await mysqlPool();
      let deadlocks = 1;
      // a real pool whose first upsert fails as a deadlock victim's does (after its transaction began)
      const client = {
        query: pool.query.bind(pool),
        execute: pool.execute.bind(pool),
        getConnection: async () => {
          const connection = await pool.getConnection();
          const query = connection.query.bind(connection);
          return Object.assign(connection, {
            query: (sql: string, values?: Parameters<typeof query>[1]) => {
              if (sql.startsWith("INSERT") && deadlocks-- > 0) {
                return Promise.reject(Object.assign(new Error("Deadlock found"), { errno: 1213 }));
              }
              return query(sql, values);
            },
          });
        },
      } as unknown as mysql.Pool;
      const counter = new MySqlSpendCounter({ client, table: mysqlTable() });
      expect(await counter.add("k", 5, { limit: 10 })).toEqual({ added: true, total: 5 });
      expect(deadlocks).toBe(-1);
      expect(await counter.read(["k"])).toEqual([5]);
    });

    it("concurrent adds on a fresh key from four pools never pass the limit together", async () => {
      const table = mysqlTable();
      const counters = await Promise.all(
        (["default", "other", "default", "other"] as const).map(
          async (variant) => new MySqlSpendCounter({ client: await mysqlPool(variant), table }),
        ),
      );
      for (const round of [1, 2, 3]) {
        const key = `race:${round}`;
        const results = await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            counters[i % 4]!.add(key, 7, { limit: 100, ttlSeconds: 3600 }),
          ),
        );
        expect(results.filter((r) => r.added)).toHaveLength(14);
        expect(
          results
            .filter((r) => r.added)
            .map((r) => r.total)
            .sort((x, y) => x - y),
        ).toEqual(Array.from({ length: 14 }, (_, i) => 7 * (i + 1)));
        expect(results.filter((r) => !r.added).every((r) => r.total === 98)).toBe(true);
        expect(await counters[0]!.read([key])).toEqual([98]);
      }
    });
  });
}
const mysqlConnections: mysql.Connection[] = [];

afterAll(async () => {
  if (mysqlPools[0])
    for (const table of mysqlTables) await mysqlPools[0].query(`DROP TABLE IF EXISTS ${table}`);
  for (const pool of mysqlPools) await pool.end();
  for (const connection of mysqlConnections) await connection.end();
  for (const client of redisClients) {
    const keys = await client.keys("as_test_spend_*");
    if (keys.length) await client.del(...keys);
    await client.quit();
  }
  if (pools[0]) for (const table of tables) await pools[0].query(`DROP TABLE IF EXISTS ${table}`);
  for (const pool of pools) await pool.end();
});
