import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, describe } from "vitest";
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
}
