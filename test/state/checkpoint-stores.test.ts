import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  InMemoryCheckpointStore,
  JsonFileCheckpointStore,
  MySqlCheckpointStore,
  PostgresCheckpointStore,
  RedisCheckpointStore,
  SqliteCheckpointStore,
} from "../../src/state/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { describeCheckpointStore } from "./checkpoint-contract.js";

const memory = new InMemoryCheckpointStore();
describeCheckpointStore("InMemoryCheckpointStore", async () => memory);

const directory = mkdtempSync(join(tmpdir(), "agentscope-ckpt-sqlite-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
describeCheckpointStore(
  "SqliteCheckpointStore",
  async () => new SqliteCheckpointStore({ path: join(directory, "c.db") }),
);

const redisMissing = await missingService("Redis", 6379);
const prefix = `${runName("ckpt")}:`;
if (redisMissing) describe("RedisCheckpointStore", () => reportMissingService(redisMissing));
else {
  describeCheckpointStore("RedisCheckpointStore", async () => new RedisCheckpointStore({ prefix }));
  afterAll(async () => {
    const redis = new Redis();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });
}

const pgMissing = await missingService("PostgreSQL", 5432);
const url = "postgres://postgres@127.0.0.1:5432/test";
const table = runName("ckpt");
if (pgMissing) describe("PostgresCheckpointStore", () => reportMissingService(pgMissing));
else {
  describeCheckpointStore("PostgresCheckpointStore", async () => new PostgresCheckpointStore({ url, table }));
  afterAll(async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP TABLE IF EXISTS ${table}_blobs, ${table}_records`);
    await client.end();
  });
}

describeCheckpointStore(
  "JsonFileCheckpointStore",
  async () => new JsonFileCheckpointStore({ directory: join(directory, "files") }),
);

const mysqlMissing = await missingService("MariaDB", 3306);
const mysqlUrl = "mysql://root@127.0.0.1:3306/test";
const mysqlTable = runName("ckpt");
if (mysqlMissing) describe("MySqlCheckpointStore", () => reportMissingService(mysqlMissing));
else {
  describeCheckpointStore(
    "MySqlCheckpointStore",
    async () => new MySqlCheckpointStore({ url: mysqlUrl, table: mysqlTable }),
  );
  afterAll(async () => {
    const connection = await mysql.createConnection(mysqlUrl);
    await connection.query(`DROP TABLE IF EXISTS ${mysqlTable}_blobs, ${mysqlTable}_records`);
    await connection.end();
  });

  describe("MySqlCheckpointStore session ids", () => {
    const blob = (text: string) => ({ hash: text.padEnd(64, "0"), bytes: new Uint8Array(Buffer.from(text)) });
    /** Writes under ids that a PAD SPACE key counts as one, then checks each holds only its own. */
    async function keptApart(store: MySqlCheckpointStore): Promise<void> {
      const ids = ["a", "a ", "a  ", "a\t", "A"];
      for (const id of ids) {
        await store.putRecord(id, "head", `head of ${JSON.stringify(id)}`);
        expect(await store.putBlobs(id, [blob("abc"), blob(`own${ids.indexOf(id)}`)])).toBe(7);
      }
      for (const [i, id] of ids.entries()) {
        expect(await store.records(id)).toEqual([{ key: "head", json: `head of ${JSON.stringify(id)}` }]);
        expect([...(await store.blobSizes(id)).keys()].sort()).toEqual(
          [blob("abc").hash, blob(`own${i}`).hash].sort(),
        );
        expect(await store.missingBlobs(id, [blob("own0").hash])).toEqual(i === 0 ? [] : [blob("own0").hash]);
      }
      await store.deleteSession("a ");
      expect(await store.records("a ")).toEqual([]);
      expect(await store.records("a")).toEqual([{ key: "head", json: 'head of "a"' }]);
      expect((await store.getBlobs("a", [blob("abc").hash])).size).toBe(1);
    }

    it("keeps ids that differ only in trailing spaces, tabs or case apart", async () => {
      const table = runName("ckpt_pad");
      const store = new MySqlCheckpointStore({ url: mysqlUrl, table });
      try {
        await keptApart(store);
      } finally {
        await store.close();
        const connection = await mysql.createConnection(mysqlUrl);
        await connection.query(`DROP TABLE IF EXISTS ${table}_blobs, ${table}_records`);
        await connection.end();
      }
    });

    it("converts the tables of an earlier version (PAD SPACE ids) on first open, keeping their rows", async () => {
      const table = runName("ckpt_old");
      const connection = await mysql.createConnection(mysqlUrl);
      try {
        // the tables as versions before VARBINARY ids made them
        await connection.query(
          `CREATE TABLE ${table}_blobs (session_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, hash CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL, size INT NOT NULL, bytes LONGBLOB NOT NULL, PRIMARY KEY (session_id, hash))`,
        );
        await connection.query(
          `CREATE TABLE ${table}_records (session_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, record_key VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL, json LONGTEXT NOT NULL, PRIMARY KEY (session_id, record_key))`,
        );
        await connection.query(
          `INSERT INTO ${table}_records VALUES ('b ', 'head', 'old head'), ('é', 'head', 'é head')`,
        );
        await connection.query(`INSERT INTO ${table}_blobs VALUES ('b ', ?, 3, 'old')`, [blob("old").hash]);
        const store = new MySqlCheckpointStore({ url: mysqlUrl, table });
        try {
          expect(await store.records("b")).toEqual([]);
          expect(await store.records("b ")).toEqual([{ key: "head", json: "old head" }]);
          expect(await store.records("é")).toEqual([{ key: "head", json: "é head" }]);
          expect(
            Buffer.from((await store.getBlobs("b ", [blob("old").hash])).get(blob("old").hash)!).toString(),
          ).toBe("old");
          await store.putRecord("b", "head", "new head");
          expect(await store.records("b ")).toEqual([{ key: "head", json: "old head" }]);
          await keptApart(store);
        } finally {
          await store.close();
        }
        // a second open finds the tables converted and leaves them as they are
        const again = new MySqlCheckpointStore({ url: mysqlUrl, table });
        expect(await again.records("b")).toEqual([{ key: "head", json: "new head" }]);
        await again.close();
      } finally {
        await connection.query(`DROP TABLE IF EXISTS ${table}_blobs, ${table}_records`);
        await connection.end();
      }
    });
  });
}
