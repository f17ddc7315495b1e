import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEvent } from "../../src/event/index.js";
import { emptyAgentState } from "../../src/state/index.js";
import { sqliteBackend } from "../../src/state/sqlite/sqlite-backend.js";
import { openTestDatabase, scalar } from "../support/sqlite-file.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-sqlite-prefix-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const delta = (text: string) =>
  createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: text });
const record = (owner: string) => ({
  sessionId: "s1",
  owner,
  agent: "a",
  createdAt: new Date().toISOString(),
});
const tables = async (file: string) => {
  const raw = await openTestDatabase(file);
  const names = raw
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((row) => row.name);
  raw.close();
  return names;
};

describe("storePrefix on SQLite", () => {
  it("prefixes every table, the state table too: two deployments on one file keep apart", async () => {
    const file = join(dir, "shared.db");
    const one = await sqliteBackend(file, { prefix: "one_" });
    const two = await sqliteBackend(file, { prefix: "two_" });
    try {
      // the same session id in both
      expect(await one.sessions.create(record("alice"))).toBe(true);
      expect(await two.sessions.create(record("bob"))).toBe(true);
      const first = emptyAgentState("s1");
      first.context.push({
        id: "m1",
        name: "u",
        role: "user",
        content: [{ type: "text", id: "t", text: "one's" }],
        metadata: {},
        createdAt: new Date().toISOString(),
      });
      expect((await one.store.save("s1", first, { expectedVersion: 0 })).version).toBe(1);
      // the other deployment's compare-and-set sees no state of its own (it would conflict if shared)
      expect(await two.store.load("s1")).toBeUndefined();
      const second = emptyAgentState("s1");
      expect((await two.store.save("s1", second, { expectedVersion: 0 })).version).toBe(1);
      await one.events.append("s1", [delta("a"), delta("b")]);
      await two.events.append("s1", [delta("c")]);

      expect((await one.store.load("s1"))!.state.context).toHaveLength(1);
      expect((await two.store.load("s1"))!.state.context).toHaveLength(0);
      expect((await one.sessions.get("s1"))!.owner).toBe("alice");
      expect((await two.sessions.get("s1"))!.owner).toBe("bob");
      expect(await one.events.lastSeq("s1")).toBe(2);
      expect(await two.events.lastSeq("s1")).toBe(1);
      await two.store.delete("s1");
      expect(await one.store.load("s1")).toBeDefined();
    } finally {
      await one.close();
      await two.close();
    }
    const names = await tables(file);
    for (const prefix of ["one_", "two_"])
      for (const table of ["events", "leases", "sessions", "state"])
        expect(names).toContain(`${prefix}${table}`);
    expect(names).not.toContain("agentscope_state");
  });

  it("the default prefix's state table is agentscope_state, as before: a file made earlier loads", async () => {
    const file = join(dir, "default.db");
    const before = await sqliteBackend(file);
    await before.sessions.create(record("alice"));
    await before.store.save("s1", emptyAgentState("s1"), {
      expectedVersion: 0,
    });
    await before.close();
    expect(await tables(file)).toContain("agentscope_state");
    const after = await sqliteBackend(file);
    try {
      expect((await after.store.load("s1"))?.version).toBe(1);
    } finally {
      await after.close();
    }
  });

  it("a deployment with its own prefix from before (its states in the shared table) keeps them", async () => {
    const file = join(dir, "legacy.db");
    // As earlier versions left it: x_events, x_sessions, x_leases, and the states in agentscope_state
    // (as those versions made it: four columns, no patches).
    const legacy = await sqliteBackend(file, { prefix: "x_" });
    await legacy.sessions.create(record("alice"));
    await legacy.close();
    const raw = await openTestDatabase(file);
    raw.exec(`DROP TABLE x_state; DROP TABLE IF EXISTS x_state_patches;
      CREATE TABLE agentscope_state (session_id TEXT PRIMARY KEY, version INTEGER NOT NULL, state TEXT NOT NULL, updated_at INTEGER NOT NULL)`);
    const state = JSON.stringify(emptyAgentState("s1"));
    raw
      .prepare("INSERT INTO agentscope_state (session_id, version, state, updated_at) VALUES ('s1', 3, ?, 0)")
      .run(state);
    raw.close();
    expect(await tables(file)).not.toContain("x_state");

    const reopened = await sqliteBackend(file, { prefix: "x_" });
    try {
      expect((await reopened.store.load("s1"))?.version).toBe(3);
      await reopened.store.save("s1", emptyAgentState("s1"), {
        expectedVersion: 3,
      });
    } finally {
      await reopened.close();
    }
    // copied once: the shared table is left as it was, and a second open copies nothing over the new row
    const again = await sqliteBackend(file, { prefix: "x_" });
    try {
      expect((await again.store.load("s1"))?.version).toBe(4);
    } finally {
      await again.close();
    }
    const check = await openTestDatabase(file);
    expect(scalar(check, "SELECT version FROM agentscope_state WHERE session_id = 's1'")).toBe(3);
    check.close();
  });
});
