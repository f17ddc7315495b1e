import mysql from "mysql2/promise";
import { describe, expect, it } from "vitest";
import { MySqlStateStore } from "../../src/state/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { describeDeltaSaves } from "./delta-contract.js";
import { describeFamilyContract } from "./family-contract.js";
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
      await sql(`INSERT INTO ${table} (session_id, version, state, updated_at) VALUES (?, 1, ?, ?)`, [
        sessionId,
        stateJson,
        Date.now(),
      ]);
    },
    shared: { url, options: { table } },
    cleanup: () => sql(`DROP TABLE IF EXISTS ${table}_patches, ${table}`).then(() => {}),
  });

  const deltaTable = runName("my_delta");
  const pool = mysql.createPool({ uri: url, connectionLimit: 4 });
  describeDeltaSaves("MySqlStateStore", {
    longReplies: 200, // each commit waits for the disk: 1,000 of them take a good 15 s here
    open: async (compaction) => new MySqlStateStore({ url, table: deltaTable, compaction }),
    written: async (sessionId, version) => {
      const [patches] = await pool.query<mysql.RowDataPacket[]>(
        `SELECT OCTET_LENGTH(patch) AS bytes FROM ${deltaTable}_patches WHERE session_id = ? AND version = ?`,
        [sessionId, version],
      );
      if (patches[0]) return { kind: "patch", bytes: Number(patches[0].bytes) };
      const [snapshots] = await pool.query<mysql.RowDataPacket[]>(
        `SELECT OCTET_LENGTH(state) AS bytes FROM ${deltaTable} WHERE session_id = ? AND base = ?`,
        [sessionId, version],
      );
      if (!snapshots[0]) throw new Error(`no save of version ${version} of ${sessionId}`);
      return { kind: "snapshot", bytes: Number(snapshots[0].bytes) };
    },
    writeOld: async (sessionId, state) => {
      await pool.query(
        `INSERT INTO ${deltaTable} (session_id, version, state, updated_at) VALUES (?, 1, ?, ?)`,
        [sessionId, JSON.stringify(state), Date.now()],
      );
    },
    damagePatch: async (sessionId, version, patch) => {
      await pool.query(`UPDATE ${deltaTable}_patches SET patch = ? WHERE session_id = ? AND version = ?`, [
        patch,
        sessionId,
        version,
      ]);
    },
    cleanup: async () => {
      await pool.query(`DROP TABLE IF EXISTS ${deltaTable}_patches, ${deltaTable}`);
      await pool.end();
    },
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
        await sql(`DROP TABLE IF EXISTS ${name}_patches, ${name}`);
      }
    });
  });
}

describeFamilyContract({
  name: "MySQL",
  url: () => url,
  port: 3306,
  shared: true,
  noBackend:
    /MySQL keeps agent state \(createStateStore\) but cannot back the service: .*no such notification/,
});
