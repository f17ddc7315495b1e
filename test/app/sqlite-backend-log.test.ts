import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { sqliteBackend } from "../../src/app/server/backend/sqlite-backend.js";
import { createEvent } from "../../src/event/index.js";

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
    const raw = new Database(file);
    raw.prepare("INSERT INTO agentscope_events (session_id, seq, event) VALUES ('s', '3x', '{}')").run();
    const logged = await backend.events.append("s", [delta("c")]);
    const stored = raw
      .prepare("SELECT seq FROM agentscope_events WHERE session_id = 's' AND event = ?")
      .pluck();
    expect(logged.map((e) => e.seq)).toEqual(logged.map((e) => stored.get(e.json)));
    expect(logged.map((e) => e.seq)).toEqual([4]); // '3x' counts as 3 in SQLite's arithmetic
    raw.close();
  } finally {
    await backend.close();
  }
});
