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

    const textOf = async (store: MySqlStateStore, id: string) =>
      (await store.load(id))?.state.context[0]?.content;

    it("keeps ids that differ only in trailing spaces, tabs or case apart (PAD SPACE would not)", async () => {
      const name = runName("my_pad");
      const store = new MySqlStateStore({ url, table: name });
      try {
        await store.save("a", stateWith("a", ["plain"]), { expectedVersion: 0 });
        expect(await store.load("a ")).toBeUndefined();
        expect(await store.load("a\t")).toBeUndefined();
        expect(await store.load("A")).toBeUndefined();
        for (const id of ["a ", "a  ", "a\t", "A"]) {
          await store.save(id, stateWith(id, [`id ${JSON.stringify(id)}`]), { expectedVersion: 0 });
        }
        const loaded = await store.load("a ");
        expect(loaded?.version).toBe(1);
        expect(loaded?.state.sessionId).toBe("a ");
        expect(await textOf(store, "a ")).toMatchObject([{ text: 'id "a "' }]);
        expect(await textOf(store, "a  ")).toMatchObject([{ text: 'id "a  "' }]);
        expect(await textOf(store, "a\t")).toMatchObject([{ text: 'id "a\\t"' }]);
        expect(await textOf(store, "A")).toMatchObject([{ text: 'id "A"' }]);
        // a patch save and a delete of "a " touch "a " only
        const next = stateWith("a ", ['id "a "', "second"]);
        await store.save("a ", next, { expectedVersion: 1 });
        expect(await textOf(store, "a")).toMatchObject([{ text: "plain" }]);
        expect((await store.load("a"))?.state.context).toHaveLength(1);
        expect((await store.load("a "))?.state.context).toHaveLength(2);
        expect(await store.delete("a ")).toBe(true);
        expect(await textOf(store, "a")).toMatchObject([{ text: "plain" }]);
        expect((await store.list()).sessions.map((s) => s.sessionId).sort()).toEqual(
          ["A", "a", "a\t", "a  "].sort(),
        );
        // a forged save of "a " at "a"'s version finds no row of its own
        await expect(store.save("a ", stateWith("a ", ["forged"]), { expectedVersion: 1 })).rejects.toThrow(
          /expected version 1 but the store has no saved state/,
        );
        expect(await textOf(store, "a")).toMatchObject([{ text: "plain" }]);
      } finally {
        await store.close();
        await sql(`DROP TABLE IF EXISTS ${name}_patches, ${name}`);
      }
    });

    /** The tables as versions before VARBINARY ids made them. */
    async function createOldTables(name: string): Promise<void> {
      await sql(`CREATE TABLE ${name} (
          session_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
          version BIGINT NOT NULL, state JSON NOT NULL, updated_at BIGINT NOT NULL, head CHAR(32) NULL, base BIGINT NULL
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
      await sql(`CREATE TABLE ${name}_patches (
          session_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, version BIGINT NOT NULL,
          patch LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, PRIMARY KEY (session_id, version),
          FOREIGN KEY (session_id) REFERENCES ${name} (session_id) ON DELETE CASCADE
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
    }

    it("on a table made by an earlier version (a PAD SPACE text column) never answers another session's state", async () => {
      const name = runName("my_old");
      await createOldTables(name);
      const store = new MySqlStateStore({ url, table: name });
      try {
        const state = stateWith("a", ["plain"]);
        await store.save("a", state, { expectedVersion: 0 });
        state.context = [...state.context, ...stateWith("a", ["", "two"]).context.slice(1)];
        await store.save("a", state, { expectedVersion: 1 });
        expect(await sql(`SELECT COUNT(*) AS n FROM ${name}_patches`)).toEqual([{ n: 1 }]); // a patch row too
        await store.save("b ", stateWith("b ", ["spaced"]), { expectedVersion: 0 });
        expect(await store.load("a ")).toBeUndefined();
        expect(await store.load("a  ")).toBeUndefined();
        expect(await store.load("b")).toBeUndefined();
        expect(await textOf(store, "b ")).toMatchObject([{ text: "spaced" }]);
        await expect(store.save("a ", stateWith("a ", ["other"]), { expectedVersion: 0 })).rejects.toThrow(
          /cannot save session "a ": .*earlier version.* counts it as the same id as the stored session "a"/,
        );
        await expect(store.save("a ", stateWith("a ", ["other"]), { expectedVersion: 2 })).rejects.toThrow(
          /expected version 2 but the store has no saved state/,
        );
        expect(await store.delete("a ")).toBe(false);
        expect(await store.delete("b")).toBe(false);
        const a = await store.load("a");
        expect(a?.version).toBe(2);
        expect(a?.state.context).toHaveLength(2);
        expect(await store.load("A")).toBeUndefined();
        await store.save("A", stateWith("A", ["upper"]), { expectedVersion: 0 });
        expect(await textOf(store, "A")).toMatchObject([{ text: "upper" }]);
        expect((await store.list()).sessions.map((s) => s.sessionId)).toEqual(["A", "a", "b "]);
      } finally {
        await store.close();
        await sql(`DROP TABLE IF EXISTS ${name}_patches, ${name}`);
      }
    });
    it("an earlier version's table converted as docs/service.md says keeps its sessions and then keeps padded ids apart", async () => {
      const name = runName("my_conv");
      await createOldTables(name);
      const old = new MySqlStateStore({ url, table: name });
      try {
        const state = stateWith("a", ["plain"]);
        await old.save("a", state, { expectedVersion: 0 });
        state.context = [...state.context, ...stateWith("a", ["", "two"]).context.slice(1)];
        await old.save("a", state, { expectedVersion: 1 }); // a patch row, which the delete below cascades to
      } finally {
        await old.close();
      }
      expect(await sql(`SELECT COUNT(*) AS n FROM ${name}_patches`)).toEqual([{ n: 1 }]);
      const [fk] = (await sql(
        "SELECT CONSTRAINT_NAME AS name FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = ?",
        [`${name}_patches`],
      )) as Array<{ name: string }>;
      expect(fk?.name).toBe(`${name}_patches_ibfk_1`);
      await sql(`ALTER TABLE ${name}_patches DROP FOREIGN KEY ${fk!.name}`);
      await sql(`ALTER TABLE ${name} MODIFY session_id VARBINARY(1020) NOT NULL`);
      await sql(`ALTER TABLE ${name}_patches MODIFY session_id VARBINARY(1020) NOT NULL,
        ADD FOREIGN KEY (session_id) REFERENCES ${name} (session_id) ON DELETE CASCADE`);
      const store = new MySqlStateStore({ url, table: name });
      try {
        const a = await store.load("a");
        expect(a?.version).toBe(2);
        expect(a?.state.context).toHaveLength(2);
        await store.save("a ", stateWith("a ", ["spaced"]), { expectedVersion: 0 });
        expect(await textOf(store, "a ")).toMatchObject([{ text: "spaced" }]);
        expect(await store.delete("a")).toBe(true);
        expect(await sql(`SELECT COUNT(*) AS n FROM ${name}_patches`)).toEqual([{ n: 0 }]);
        expect(await textOf(store, "a ")).toMatchObject([{ text: "spaced" }]);
      } finally {
        await store.close();
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
