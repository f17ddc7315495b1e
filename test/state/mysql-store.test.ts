import mysql from "mysql2/promise";
import { describe, expect, it } from "vitest";
import { MySqlStateStore } from "../../src/state/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { describeStoreContract, stateWith } from "./store-contract.js";

const missing = await missingService("MariaDB/MySQL", 3306);
const url = "mysql://root@127.0.0.1:3306/test";
const table = runName("my");

async function sql(text: string, values?: unknown[]): Promise<unknown> {
  const connection = await mysql.createConnection(url);
  try {
    return (await connection.query(text, values))[0];
  } finally {
    await connection.end();
  }
}

if (missing) {
  describe("MySqlStateStore", () => reportMissingService(missing));
} else {
  describeStoreContract("MySqlStateStore", {
    open: async () => new MySqlStateStore({ url, table }),
    writeRaw: async (sessionId, stateJson) => {
      await sql(`INSERT INTO ${table} VALUES (?, 1, ?, ?)`, [sessionId, stateJson, Date.now()]);
    },
    shared: { url, options: { table } },
    cleanup: () => sql(`DROP TABLE IF EXISTS ${table}`).then(() => {}),
  });

  describe("MySqlStateStore ids and clients", () => {
    it("treats session ids that differ only in case as two sessions", async () => {
      const name = runName("my_case");
      const pool = mysql.createPool(url);
      try {
        const store = new MySqlStateStore({ client: pool, table: name });
        await store.save("Abc", stateWith("Abc", ["upper"]), { expectedVersion: 0 });
        await store.save("abc", stateWith("abc", ["lower"]), { expectedVersion: 0 });
        expect((await store.load("abc"))?.state.context[0]?.content).toMatchObject([{ text: "lower" }]);
        expect((await store.list()).sessions.map((s) => s.sessionId)).toEqual(["Abc", "abc"]);
        await store.close();
        expect(await pool.query("SELECT 1 AS one")).toBeDefined();
      } finally {
        await pool.end();
        await sql(`DROP TABLE IF EXISTS ${name}`);
      }
    });
  });
}
