import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { createEvent } from "../../src/event/index.js";
import { sqliteBackend } from "../../src/state/sqlite/sqlite-backend.js";
import { openTestDatabase, scalar } from "../support/sqlite-file.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-sqlite-log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const delta = (text: string) =>
  createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: text });

// Seqs are numbered from the session's last seq as read in the append's transaction, and must be the
// seqs the rows got: also over a damaged row (a seq stored as text), which SQLite's MAX puts last.
it("answers each appended event with the seq its row was stored under, even after a damaged seq", async () => {
  const file = join(dir, "log.db");
  const backend = await sqliteBackend(file);
  try {
    expect((await backend.events.append("s", [delta("a"), delta("b")])).map((e) => e.seq)).toEqual([1, 2]);
    const raw = await openTestDatabase(file);
    raw.prepare("INSERT INTO agentscope_events (session_id, seq, event) VALUES ('s', '3x', '{}')").run();
    const logged = await backend.events.append("s", [delta("c")]);
    const stored = (json: string) =>
      scalar(raw, "SELECT seq FROM agentscope_events WHERE session_id = 's' AND event = ?", json);
    expect(logged.map((e) => e.seq)).toEqual(logged.map((e) => stored(e.json!)));
    expect(logged.map((e) => e.seq)).toEqual([4]); // '3x' counts as 3 in SQLite's arithmetic
    raw.close();
  } finally {
    await backend.close();
  }
});

// A new file's events table is a rowid table: rows go in at its end in the order they are written
// (what keeps a commit of many sessions' events to a few table pages), looked up by the key index.
it("keeps a new file's events in the order they were written, across sessions", async () => {
  const file = join(dir, "order.db");
  const backend = await sqliteBackend(file);
  try {
    await backend.events.append("b", [delta("1")]);
    await backend.events.append("a", [delta("2")]);
    await backend.events.append("b", [delta("3")]);
    const raw = await openTestDatabase(file);
    const rows = raw.prepare("SELECT session_id, seq FROM agentscope_events ORDER BY rowid").all();
    raw.close();
    expect(rows).toEqual([
      { session_id: "b", seq: 1 },
      { session_id: "a", seq: 1 },
      { session_id: "b", seq: 2 },
    ]);
    expect((await backend.events.read("b", 0, 10)).map((e) => e.seq)).toEqual([1, 2]);
  } finally {
    await backend.close();
  }
});

// Files made before the events table was a rowid table keep their WITHOUT ROWID table: every
// statement of the backend works on it as it was.
it("works on a file whose events table was made WITHOUT ROWID", async () => {
  const file = join(dir, "earlier.db");
  const raw = await openTestDatabase(file);
  raw.exec(
    "CREATE TABLE agentscope_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID",
  );
  raw.prepare("INSERT INTO agentscope_events VALUES ('s', 1, ?)").run(JSON.stringify(delta("old")));
  raw.close();
  const backend = await sqliteBackend(file, { maxEventsPerSession: 3 });
  try {
    await backend.events.append("s", [delta("a"), delta("b")]);
    const lease = (await backend.locks.acquire("s"))!;
    const ended = await backend.endRun!({
      sessionId: "s",
      events: [delta("c")],
      endEvents: [createEvent("REPLY_END", { replyId: "r1", finishedReason: "completed" })],
      lease,
    });
    expect(ended.logged.map((e) => e.seq)).toEqual([4, 5]);
    // trimmed to the newest 3
    expect(await backend.events.firstSeq("s")).toBe(3);
    expect((await backend.events.read("s", 0, 10)).map((e) => [e.seq, e.event.type])).toEqual([
      [3, "TEXT_BLOCK_DELTA"],
      [4, "TEXT_BLOCK_DELTA"],
      [5, "REPLY_END"],
    ]);
    expect(await backend.locks.isHeld("s")).toBe(false);
    // a damaged row of the earlier table is reported by session and seq, as on the new one
    const damage = await openTestDatabase(file);
    damage.prepare("INSERT INTO agentscope_events VALUES ('s', 6, 'not json')").run();
    damage.prepare("INSERT INTO agentscope_events VALUES ('s', 7, '{\"no\":\"type\"}')").run();
    damage.close();
    await expect(backend.events.read("s", 5, 1)).rejects.toThrow(
      /event 6 in the log of session "s" is not JSON/,
    );
    await expect(backend.events.read("s", 6, 1)).rejects.toThrow(
      /event 7 in the log of session "s" is not an event/,
    );
    const check = await openTestDatabase(file);
    const sql = scalar(check, "SELECT sql FROM sqlite_master WHERE name = 'agentscope_events'");
    check.close();
    expect(sql).toMatch(/WITHOUT ROWID/);
  } finally {
    await backend.close();
  }
});
