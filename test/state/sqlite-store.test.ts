import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { DEFAULT_SQLITE_PATH, SqliteStateStore } from "../../src/state/index.js";
import { describeStoreContract, stateWith } from "./store-contract.js";

const directory = mkdtempSync(join(tmpdir(), "agentscope-sqlite-"));
const path = join(directory, "state.db");

describeStoreContract("SqliteStateStore", {
  open: async () => new SqliteStateStore({ path }),
  writeRaw: async (sessionId, stateJson) => {
    const db = new Database(path);
    db.prepare(
      "INSERT INTO agentscope_state (session_id, version, state, updated_at) VALUES (?, 1, ?, ?)",
    ).run(sessionId, stateJson, Date.now());
    db.close();
  },
  shared: { url: `sqlite:${path}` },
  cleanup: async () => rmSync(directory, { recursive: true, force: true }),
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
    const db = new Database(file, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
    rmSync(dir, { recursive: true });
  });

  it("uses a database it is given, in the table it is told, and leaves it open on close", async () => {
    const db = new Database(":memory:");
    const store = new SqliteStateStore({ database: db, table: "my_states" });
    await store.save("a", stateWith("a", ["x"]), { expectedVersion: 0 });
    await store.close();
    expect(db.prepare("SELECT session_id, version FROM my_states").all()).toEqual([
      { session_id: "a", version: 1 },
    ]);
    db.close();
  });
});
