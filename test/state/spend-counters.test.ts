import Database from "better-sqlite3";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  InMemorySpendCounter,
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

afterAll(async () => {
  for (const client of redisClients) {
    const keys = await client.keys("as_test_spend_*");
    if (keys.length) await client.del(...keys);
    await client.quit();
  }
  if (pools[0]) for (const table of tables) await pools[0].query(`DROP TABLE IF EXISTS ${table}`);
  for (const pool of pools) await pool.end();
});
