import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import { FencedError } from "../../src/app/server/backend/fenced-error.js";
import type { BackendOptions, RunLease, ServiceBackend } from "../../src/app/server/backend/types.js";
import { type AgentEvent, createEvent } from "../../src/event/index.js";
import { emptyAgentState } from "../../src/state/index.js";
import { dropBackend } from "../state/drop-backend.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { openTestDatabase } from "../support/sqlite-file.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-fencing-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const delta = (text: string): AgentEvent =>
  createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: text });
const replyEnd = (): AgentEvent => createEvent("REPLY_END", { replyId: "r1", finishedReason: "completed" });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// long enough for a loaded machine to make its first writes inside it
const TTL = 600;
const kinds = [
  { name: "SQLite", url: () => `sqlite:${join(dir, `${runName("db")}.db`)}` },
  { name: "Redis", url: () => "redis://127.0.0.1:6379", port: 6379 },
  { name: "PostgreSQL", url: () => "postgres://postgres@127.0.0.1:5432/test", port: 5432 },
];

for (const kind of kinds) {
  describe(`fenced writes on ${kind.name}: a lease that expired writes nothing once another replica has the session`, async () => {
    const missing = kind.port ? await missingService(kind.name, kind.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }
    const url = kind.url();
    const prefix = kind.name === "Redis" ? `${runName("fence")}:` : `${runName("fence")}_`;
    const opened: ServiceBackend[] = [];
    const open = async (options: BackendOptions = {}) => {
      const backend = await createBackend(url, { prefix, lockTtlMs: TTL, ...options });
      opened.push(backend);
      await (await backend.locks.acquire(runName("warm")))?.release(); // the writer is up
      return backend;
    };
    afterAll(async () => {
      await Promise.all(opened.map((b) => b.close()));
      await dropBackend(url, prefix);
    });

    /** Replica A's lease on a session with a saved state and one event, left to expire; then B's. */
    async function takenOver(sessionId: string) {
      const a = await open();
      const b = await open();
      const state = emptyAgentState(sessionId);
      await a.store.save(sessionId, state, { expectedVersion: 0 });
      const stale = (await a.locks.acquire(sessionId))!;
      await a.events.append(sessionId, [delta("before")], stale);
      await sleep(TTL * 2); // A is frozen past its lease: it renews nothing
      const current = (await b.locks.acquire(sessionId))!;
      expect(current).toBeDefined();
      return { a, b, state, stale, current };
    }

    it("its append, checkpoint and run end are refused, and the log, the state and B's lock are as B left them", async () => {
      const { a, b, state, stale, current } = await takenOver("frozen");
      expect(current.generation).toBeGreaterThan(stale.generation);
      await expect(a.events.append("frozen", [delta("late")], stale)).rejects.toBeInstanceOf(FencedError);
      await expect(
        a.checkpoint!({
          sessionId: "frozen",
          events: [delta("late")],
          save: { state, expectedVersion: 1 },
          lease: stale,
        }),
      ).rejects.toBeInstanceOf(FencedError);
      await expect(
        a.endRun!({
          sessionId: "frozen",
          events: [delta("late")],
          save: { state, expectedVersion: 1 },
          endEvents: [replyEnd()],
          lease: stale,
        }),
      ).rejects.toThrow(/generation \d+\) no longer holds the session/);
      expect((await b.events.read("frozen", 0, 10)).map((e) => e.seq)).toEqual([1]);
      expect((await b.store.load("frozen"))?.version).toBe(1);
      expect(await b.locks.isHeld("frozen")).toBe(true);
      expect(await stale.renew()).toBe(false);
      // B writes on under its own lease; A's release does not free B's lock
      await stale.release();
      expect((await b.events.append("frozen", [replyEnd()], current)).map((e) => e.seq)).toEqual([2]);
      expect(await b.locks.isHeld("frozen")).toBe(true);
      await current.release();
    });

    it("a lease that expired is refused even before anyone takes over, and is listed as abandoned", async () => {
      const a = await open();
      const lease = (await a.locks.acquire("lapsed"))!;
      await a.events.append("lapsed", [delta("one")], lease);
      expect((await a.locks.abandoned!(100)).map((l) => l.sessionId)).not.toContain("lapsed");
      await sleep(TTL * 2);
      expect(await lease.renew()).toBe(false);
      await expect(a.events.append("lapsed", [delta("two")], lease)).rejects.toBeInstanceOf(FencedError);
      expect(await a.events.lastSeq("lapsed")).toBe(1);
      expect((await a.locks.abandoned!(100)).map((l) => l.sessionId)).toContain("lapsed");
      // the sweeper's way out: take it, release it, and it is abandoned no more
      const taken = (await a.locks.acquire("lapsed"))!;
      expect(taken.generation).toBeGreaterThan(lease.generation);
      await taken.release();
      expect((await a.locks.abandoned!(100)).map((l) => l.sessionId)).not.toContain("lapsed");
    });

    it("writes without a lease are not fenced (tools and tests that append directly)", async () => {
      const a = await open();
      expect((await a.events.append("plain", [delta("x")])).map((e) => e.seq)).toEqual([1]);
    });

    it("a lease from another backend object is refused with a clear error, not written under", async () => {
      const a = await open();
      const b = await open();
      const lease = (await b.locks.acquire("foreign"))!;
      await expect(a.events.append("foreign", [delta("x")], lease)).rejects.toThrow(/not this backend's/);
      expect(await a.events.lastSeq("foreign")).toBe(0);
      await lease.release();
    });
  });
}

describe("fenced writes on memory: a lease released (or lost) writes nothing once another run holds the session", () => {
  it("its append, checkpoint and run end are refused; generations only grow", async () => {
    const backend = await createBackend("memory:");
    const state = emptyAgentState("m");
    await backend.store.save("m", state, { expectedVersion: 0 });
    const stale: RunLease = (await backend.locks.acquire("m"))!;
    await backend.events.append("m", [delta("before")], stale);
    await stale.release();
    const current = (await backend.locks.acquire("m"))!;
    expect(current.generation).toBeGreaterThan(stale.generation);
    await expect(backend.events.append("m", [delta("late")], stale)).rejects.toBeInstanceOf(FencedError);
    await expect(
      backend.checkpoint!({
        sessionId: "m",
        events: [delta("late")],
        save: { state, expectedVersion: 1 },
        lease: stale,
      }),
    ).rejects.toBeInstanceOf(FencedError);
    await expect(
      backend.endRun!({ sessionId: "m", events: [], endEvents: [replyEnd()], lease: stale }),
    ).rejects.toBeInstanceOf(FencedError);
    expect(await backend.events.lastSeq("m")).toBe(1);
    expect((await backend.store.load("m"))?.version).toBe(1);
    expect(await backend.locks.isHeld("m")).toBe(true);
    const ended = await backend.endRun!({
      sessionId: "m",
      events: [],
      endEvents: [replyEnd()],
      lease: current,
    });
    expect(ended.logged.map((e) => e.seq)).toEqual([2]);
    expect(await backend.locks.isHeld("m")).toBe(false);
    await backend.close();
  });
});

describe("fenced writes on PostgreSQL, against a takeover in flight", async () => {
  const missing = await missingService("PostgreSQL", 5432);
  if (missing) {
    reportMissingService(missing);
    return;
  }
  const url = "postgres://postgres@127.0.0.1:5432/test";
  const prefix = `${runName("fence_race")}_`;
  const { default: pg } = await import("pg");
  const raw = new pg.Client({ connectionString: url });
  let backend: ServiceBackend;
  afterAll(async () => {
    await backend?.close();
    await raw.end();
    await dropBackend(url, prefix);
  });

  /** A transaction of another replica that has locked the lease row to take it over (as `acquire` does). */
  async function takeoverInFlight(sessionId: string) {
    await raw.query("BEGIN");
    await raw.query(`SELECT 1 FROM ${prefix}leases WHERE session_id = $1 FOR UPDATE`, [sessionId]);
  }

  it("a write waits for the takeover; once it commits the write sees the new generation and is refused", async () => {
    await raw.connect();
    backend = await createBackend(url, { prefix, lockTtlMs: 60_000 });
    const lease = (await backend.locks.acquire("race"))!;
    await takeoverInFlight("race");
    let settled = false;
    const write = backend.events.append("race", [delta("late")], lease).finally(() => {
      settled = true;
    });
    write.catch(() => {});
    await sleep(300);
    expect(settled).toBe(false); // held FOR KEY SHARE behind the takeover's FOR UPDATE
    await raw.query(
      `UPDATE ${prefix}leases SET owner = 'other', generation = generation + 1000 WHERE session_id = $1`,
      ["race"],
    );
    await raw.query("COMMIT");
    await expect(write).rejects.toBeInstanceOf(FencedError);
    expect(await backend.events.lastSeq("race")).toBe(0);
  });

  it("a takeover that gives up (rolls back) lets the waiting write through", async () => {
    const lease = (await backend.locks.acquire("kept"))!;
    await takeoverInFlight("kept");
    const write = backend.events.append("kept", [delta("on time")], lease);
    await sleep(100);
    await raw.query("ROLLBACK");
    expect((await write).map((e) => e.seq)).toEqual([1]);
    await lease.release();
  });
});

describe("a store made before leases had generations", () => {
  it("SQLite: the leases table gets its generation column on open; a lease row left there is generation 0", async () => {
    const file = join(dir, `${runName("old")}.db`);
    const old = await openTestDatabase(file);
    old.exec(
      "CREATE TABLE agentscope_leases (session_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL)",
    );
    old.prepare("INSERT INTO agentscope_leases VALUES ('left', 'otherhost:1:x', 0)").run();
    old.close();
    const backend = await createBackend(`sqlite:${file}`, { lockTtlMs: 60_000 });
    try {
      expect(await backend.locks.abandoned!(10)).toEqual([{ sessionId: "left", generation: 0 }]);
      const lease = (await backend.locks.acquire("left"))!;
      expect(lease.generation).toBeGreaterThan(0);
      expect((await backend.events.append("left", [delta("x")], lease)).map((e) => e.seq)).toEqual([1]);
      await lease.release();
    } finally {
      await backend.close();
    }
  });
});
