import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_SQLITE_PATH, SqliteStateStore } from "../../src/state/index.js";
import { openTestDatabase, scalar } from "../support/sqlite-file.js";
import { describeDeltaSaves } from "./delta-contract.js";
import { describeFamilyContract, freshSqliteUrl } from "./family-contract.js";
import { describeStoreContract, stateWith } from "./store-contract.js";

const directory = mkdtempSync(join(tmpdir(), "agentscope-sqlite-"));
const path = join(directory, "state.db");
const deltaPath = join(directory, "delta.db");

/** What the file holds for one save: its patch row, or the snapshot saved at that version. */
function sqliteWritten(file: string, table: string) {
  let db: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  return async (sessionId: string, version: number) => {
    db ??= await openTestDatabase(file);
    const patch = db
      .prepare<[string, number], { bytes: number }>(
        `SELECT length(CAST(patch AS BLOB)) AS bytes FROM ${table}_patches WHERE session_id = ? AND version = ?`,
      )
      .get(sessionId, version);
    if (patch) return { kind: "patch" as const, bytes: patch.bytes };
    const snapshot = db
      .prepare<[string, number], { bytes: number }>(
        `SELECT length(CAST(state AS BLOB)) AS bytes FROM ${table} WHERE session_id = ? AND version = ?`,
      )
      .get(sessionId, version);
    if (!snapshot) throw new Error(`no save of version ${version} of ${sessionId}`);
    return { kind: "snapshot" as const, bytes: snapshot.bytes };
  };
}

describeStoreContract("SqliteStateStore", {
  open: async () => new SqliteStateStore({ path }),
  writeRaw: async (sessionId, stateJson) => {
    const db = await openTestDatabase(path);
    db.prepare(
      "INSERT INTO agentscope_state (session_id, version, state, updated_at) VALUES (?, 1, ?, ?)",
    ).run(sessionId, stateJson, Date.now());
    db.close();
  },
  shared: { url: `sqlite:${path}` },
  cleanup: async () => rmSync(directory, { recursive: true, force: true }),
});

describeDeltaSaves("SqliteStateStore", {
  open: async (compaction) => new SqliteStateStore({ path: deltaPath, compaction }),
  written: sqliteWritten(deltaPath, "agentscope_state"),
  writeOld: async (sessionId, state) => {
    const db = await openTestDatabase(deltaPath);
    db.prepare(
      "INSERT INTO agentscope_state (session_id, version, state, updated_at) VALUES (?, 1, ?, ?)",
    ).run(sessionId, JSON.stringify(state), Date.now());
    db.close();
  },
  damagePatch: async (sessionId, version, patch) => {
    const db = await openTestDatabase(deltaPath);
    db.prepare("UPDATE agentscope_state_patches SET patch = ? WHERE session_id = ? AND version = ?").run(
      patch,
      sessionId,
      version,
    );
    db.close();
  },
  cleanup: async () => {},
});

describe("SqliteStateStore setup", () => {
  it("defaults to .agentscope/state.db under the working directory", () => {
    expect(DEFAULT_SQLITE_PATH).toBe(".agentscope/state.db");
    expect(new SqliteStateStore().path).toBe(join(process.cwd(), ".agentscope", "state.db"));
  });

  it("creates missing directories and puts the database in WAL mode", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentscope-sqlite-"));
    const file = join(dir, "nested", "deeper", "s.db");
    const store = new SqliteStateStore(file);
    await store.save("a", stateWith("a", ["x"]), { expectedVersion: 0 });
    await store.close();
    const db = await openTestDatabase(file);
    expect(scalar(db, "PRAGMA journal_mode")).toBe("wal");
    db.close();
    rmSync(dir, { recursive: true });
  });

  it("brings a table made before patches up to date, keeping its states", async () => {
    const db = await openTestDatabase(":memory:");
    db.exec(
      "CREATE TABLE agentscope_state (session_id TEXT PRIMARY KEY, version INTEGER NOT NULL, state TEXT NOT NULL, updated_at INTEGER NOT NULL)",
    );
    const old = stateWith("a", ["kept"]);
    db.prepare("INSERT INTO agentscope_state VALUES ('a', 4, ?, 0)").run(JSON.stringify(old));
    const store = new SqliteStateStore({ database: db });
    const loaded = await store.load("a");
    expect(loaded).toEqual({ state: old, version: 4 });
    loaded!.state.context.push(...stateWith("a", ["and more"]).context);
    await store.save("a", loaded!.state, { expectedVersion: 4 });
    loaded!.state.summary = "patched";
    await store.save("a", loaded!.state, { expectedVersion: 5 });
    expect(await new SqliteStateStore({ database: db }).load("a")).toEqual({
      state: loaded!.state,
      version: 6,
    });
    expect(db.prepare("SELECT version FROM agentscope_state_patches").all()).toEqual([{ version: 6 }]);
    await store.close();
    db.close();
  });

  it("uses a database it is given, in the table it is told, and leaves it open on close", async () => {
    const db = await openTestDatabase(":memory:");
    const store = new SqliteStateStore({ database: db, table: "my_states" });
    await store.save("a", stateWith("a", ["x"]), { expectedVersion: 0 });
    await store.close();
    expect(db.prepare("SELECT session_id, version FROM my_states").all()).toEqual([
      { session_id: "a", version: 1 },
    ]);
    db.close();
  });
});

describeFamilyContract({ name: "SQLite", url: freshSqliteUrl, shared: true });
