import pg from "pg";
import { describe, expect, it } from "vitest";
import { PostgresStateStore } from "../../src/state/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { describeDeltaSaves } from "./delta-contract.js";
import { describeFamilyContract } from "./family-contract.js";
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

const dropTables = (name: string) => sql(`DROP TABLE IF EXISTS ${name}_patches, ${name}, ${name}_migrations`);

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

  const deltaTable = runName("pg_delta");
  const reader = new pg.Pool({ connectionString: url, max: 1 });
  // commits without waiting for the disk: the suite's thousands of saves count bytes, not durability
  const writers = new pg.Pool({ connectionString: url, options: "-c synchronous_commit=off" });
  const read = async <T>(text: string, values: unknown[]) => (await reader.query(text, values)).rows as T[];
  describeDeltaSaves("PostgresStateStore", {
    open: async (compaction) => new PostgresStateStore({ client: writers, table: deltaTable, compaction }),
    written: async (sessionId, version) => {
      const [patch] = await read<{ bytes: number }>(
        `SELECT octet_length(patch) AS bytes FROM ${deltaTable}_patches WHERE session_id = $1 AND version = $2`,
        [sessionId, version],
      );
      if (patch) return { kind: "patch", bytes: Number(patch.bytes) };
      const [snapshot] = await read<{ bytes: number }>(
        `SELECT octet_length(state::text) AS bytes FROM ${deltaTable} WHERE session_id = $1 AND base = $2`,
        [sessionId, version],
      );
      if (!snapshot) throw new Error(`no save of version ${version} of ${sessionId}`);
      return { kind: "snapshot", bytes: Number(snapshot.bytes) };
    },
    writeOld: async (sessionId, state) => {
      await sql(`INSERT INTO ${deltaTable} (session_id, version, state) VALUES ($1, 1, $2::jsonb)`, [
        sessionId,
        JSON.stringify(state),
      ]);
    },
    damagePatch: async (sessionId, version, patch) => {
      await sql(`UPDATE ${deltaTable}_patches SET patch = $3 WHERE session_id = $1 AND version = $2`, [
        sessionId,
        version,
        patch,
      ]);
    },
    cleanup: async () => {
      await reader.end();
      await writers.end();
      await dropTables(deltaTable);
    },
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
        expect(applied).toEqual([{ id: 1 }, { id: 2 }]);
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

describeFamilyContract({ name: "PostgreSQL", url: () => url, port: 5432, shared: true, replicaBus: true });
