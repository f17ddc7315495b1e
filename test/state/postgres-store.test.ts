import pg from "pg";
import { describe, expect, it } from "vitest";
import { PostgresStateStore } from "../../src/state/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { describeStoreContract, stateWith } from "./store-contract.js";

const missing = await missingService("PostgreSQL", 5432);
const url = "postgres://postgres@127.0.0.1:5432/test";
const table = runName("pg");

async function sql<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

const dropTables = (name: string) => sql(`DROP TABLE IF EXISTS ${name}, ${name}_migrations`);

if (missing) {
  describe("PostgresStateStore", () => reportMissingService(missing));
} else {
  describeStoreContract("PostgresStateStore", {
    open: async () => new PostgresStateStore({ url, table }),
    writeRaw: async (sessionId, stateJson) => {
      await sql(`INSERT INTO ${table} (session_id, version, state) VALUES ($1, 1, $2::jsonb)`, [
        sessionId,
        stateJson,
      ]);
    },
    shared: { url, options: { table } },
    cleanup: () => dropTables(table).then(() => {}),
  });

  describe("PostgresStateStore migrations and clients", () => {
    it("runs each migration once, even when stores start at the same time", async () => {
      const name = runName("pg_migrate");
      try {
        const stores = Array.from({ length: 3 }, () => new PostgresStateStore({ url, table: name }));
        await Promise.all(stores.map((s) => s.init()));
        await stores[0]!.save("a", stateWith("a", ["x"]), { expectedVersion: 0 });
        const again = new PostgresStateStore({ url, table: name });
        expect((await again.load("a"))?.version).toBe(1);
        for (const s of [...stores, again]) await s.close();
        const applied = await sql<{ id: number }>(`SELECT id FROM ${name}_migrations`);
        expect(applied).toEqual([{ id: 1 }]);
        const [column] = await sql<{ data_type: string }>(
          "SELECT data_type FROM information_schema.columns WHERE table_name = $1 AND column_name = 'state'",
          [name],
        );
        expect(column?.data_type).toBe("jsonb");
      } finally {
        await dropTables(name);
      }
    });

    it("uses a pool it is given and leaves it open on close", async () => {
      const name = runName("pg_pool");
      const pool = new pg.Pool({ connectionString: url });
      try {
        const store = new PostgresStateStore({ client: pool, table: name });
        await store.save("a", stateWith("a", ["x"]), { expectedVersion: 0 });
        await store.close();
        expect((await pool.query(`SELECT version FROM ${name}`)).rows).toEqual([{ version: "1" }]);
      } finally {
        await pool.end();
        await dropTables(name);
      }
    });
  });
}
