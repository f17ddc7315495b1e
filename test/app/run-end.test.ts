import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import { FencedError } from "../../src/app/server/backend/fenced-error.js";
import type {
  BackendOptions,
  BusMessage,
  RunEnd,
  ServiceBackend,
} from "../../src/app/server/backend/types.js";
import { type AgentEvent, createEvent } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import { emptyAgentState, StateConflictError, StateEncodingError } from "../../src/state/index.js";
import { dropBackend } from "../state/drop-backend.js";
import { missingService, reportMissingService, runName } from "../support/services.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-run-end-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const delta = (text: string): AgentEvent =>
  createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: text });
const replyEnd = (): AgentEvent => createEvent("REPLY_END", { replyId: "r1", finishedReason: "completed" });

/** The backends with `endRun`: a run's end in one round trip (one script, one transaction, one statement). */
const kinds = [
  // SQLite's replicas (processes on one file) poll the log; Redis's hear of each append on its bus
  { name: "SQLite", url: () => `sqlite:${join(dir, `${runName("db")}.db`)}`, notifies: false },
  { name: "Redis", url: () => "redis://127.0.0.1:6379", port: 6379, notifies: true },
  {
    name: "PostgreSQL",
    url: () => "postgres://postgres@127.0.0.1:5432/test",
    port: 5432,
    notifies: true,
  },
];

for (const kind of kinds) {
  describe(`the ${kind.name} backend's run end (log, save, log, release at once)`, async () => {
    const missing = kind.port ? await missingService(kind.name, kind.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }
    const url = kind.url();
    const prefix = kind.name === "Redis" ? `${runName("end")}:` : `${runName("end")}_`;
    const opened: ServiceBackend[] = [];
    /** A backend on the shared store, its writer started (SQLite's thread can take longer than a short TTL). */
    const open = async (options: BackendOptions = {}) => {
      const backend = await createBackend(url, { prefix, ...options });
      opened.push(backend);
      await (await backend.locks.acquire(runName("warm")))?.release();
      return backend;
    };
    afterAll(async () => {
      await Promise.all(opened.map((b) => b.close()));
      await dropBackend(url, prefix);
    });

    /** A session with a saved state (version 1), one logged event and its run lock held. */
    async function runningSession(backend: ServiceBackend, sessionId: string) {
      const state = emptyAgentState(sessionId);
      await backend.store.save(sessionId, state, { expectedVersion: 0 });
      await backend.events.append(sessionId, [delta(`${sessionId}-start`)]);
      const lease = (await backend.locks.acquire(sessionId))!;
      return { state, lease };
    }

    it("runs ending in the same turn each log their events around their save and free their session", async () => {
      const backend = await open();
      const other = await open(); // another replica: on Redis, hears of each end once
      const heard: BusMessage[] = [];
      const notices = kind.notifies ? 12 : 0;
      const ids = Array.from({ length: 12 }, (_, k) => `many${k}`);
      for (const id of ids) other.bus.subscribe(id, (m) => heard.push(m));
      const runs = await Promise.all(ids.map((id) => runningSession(backend, id)));
      await expect.poll(() => heard.length).toBe(notices); // of the first appends
      heard.length = 0;
      const said = ids.map((_, k) => userMsg(`hello ${k}`));
      for (const [k, { state }] of runs.entries()) state.context.push(said[k]!);
      const results = await Promise.all(
        runs.map(({ state, lease }, k) =>
          backend.endRun!({
            sessionId: ids[k]!,
            events: [
              delta(`${ids[k]}-last`),
              createEvent("TEXT_BLOCK_END", { replyId: "r1", blockId: "b1" }),
            ],
            save: { state, expectedVersion: 1 },
            endEvents: [replyEnd()],
            lease,
          }),
        ),
      );
      for (const [k, result] of results.entries()) {
        const id = ids[k]!;
        expect(result.logged.map((e) => [e.seq, e.event.type])).toEqual([
          [2, "TEXT_BLOCK_DELTA"],
          [3, "TEXT_BLOCK_END"],
          [4, "REPLY_END"],
        ]);
        expect(result.logged.map((e) => e.json)).toEqual(result.logged.map((e) => JSON.stringify(e.event)));
        expect(result.version).toBe(2);
        expect(result.saveError).toBeUndefined();
        const log = await backend.events.read(id, 0, 10);
        expect(log.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
        expect(log.slice(1).map((e) => e.json)).toEqual(result.logged.map((e) => e.json));
        const stored = await backend.store.load(id);
        expect(stored?.version).toBe(2);
        expect(stored?.state.context).toEqual([said[k]]);
        expect(await backend.locks.isHeld(id)).toBe(false);
      }
      await expect.poll(() => heard.length).toBe(notices);
      await new Promise((resolve) => setTimeout(resolve, 50)); // a second notice, if one came, would be here by now
      expect(heard.map((m) => m.sessionId).sort()).toEqual(kind.notifies ? [...ids].sort() : []);
    });

    it("a lost compare-and-set still logs the end (as a failed checkpoint does) and reports the conflict", async () => {
      const backend = await open();
      const { state, lease } = await runningSession(backend, "conflict");
      await backend.store.save("conflict", state, { expectedVersion: 1 }); // someone else saved: version 2
      const result = await backend.endRun!({
        sessionId: "conflict",
        events: [delta("last")],
        save: { state, expectedVersion: 1 },
        endEvents: [replyEnd()],
        lease,
      });
      expect(result.saveError).toBeInstanceOf(StateConflictError);
      expect(result.saveError).toMatchObject({ expectedVersion: 1, actualVersion: 2 });
      expect(result.version).toBeUndefined();
      expect((await backend.store.load("conflict"))?.version).toBe(2);
      expect((await backend.events.read("conflict", 0, 10)).map((e) => e.event.type)).toEqual([
        "TEXT_BLOCK_DELTA",
        "TEXT_BLOCK_DELTA",
        "REPLY_END",
      ]);
      expect(await backend.locks.isHeld("conflict")).toBe(false);
    });

    it("a state no store can hold is not saved, and the events are logged all the same", async () => {
      const backend = await open();
      const { state, lease } = await runningSession(backend, "unstorable");
      state.summary = "a lone surrogate \uD800";
      const result = await backend.endRun!({
        sessionId: "unstorable",
        events: [],
        save: { state, expectedVersion: 1 },
        endEvents: [replyEnd()],
        lease,
      });
      expect(result.saveError).toBeInstanceOf(StateEncodingError);
      expect(result.logged.map((e) => e.seq)).toEqual([2]);
      expect((await backend.store.load("unstorable"))?.version).toBe(1);
      expect(await backend.locks.isHeld("unstorable")).toBe(false);
    });

    it("an end whose lock another run has taken since is fenced: nothing logged, the lock left to it", async () => {
      const backend = await open({ lockTtlMs: 150 });
      const other = await open(); // another replica
      const { lease } = await runningSession(backend, "taken");
      await new Promise((resolve) => setTimeout(resolve, 400)); // the lease expires unrenewed
      expect(await other.locks.acquire("taken")).toBeDefined();
      const end: RunEnd = { sessionId: "taken", events: [delta("last")], endEvents: [replyEnd()], lease };
      await expect(backend.endRun!(end)).rejects.toBeInstanceOf(FencedError);
      expect(await backend.events.lastSeq("taken")).toBe(1);
      expect((await backend.store.load("taken"))?.version).toBe(1);
      expect(await backend.locks.isHeld("taken")).toBe(true);
      await lease.release(); // fenced: does not touch the other run's lock
      expect(await backend.locks.isHeld("taken")).toBe(true);
    });

    it("a checkpoint logs the events and saves in one step, and keeps the lock; a lost save still logs them", async () => {
      const backend = await open();
      const { state, lease } = await runningSession(backend, "checkpoint");
      state.context.push(userMsg("hello"));
      const result = await backend.checkpoint!({
        sessionId: "checkpoint",
        events: [delta("a"), delta("b")],
        save: { state, expectedVersion: 1 },
      });
      expect(result.logged.map((e) => [e.seq, (e.event as { delta: string }).delta])).toEqual([
        [2, "a"],
        [3, "b"],
      ]);
      expect(result.version).toBe(2);
      expect(result.saveError).toBeUndefined();
      expect((await backend.store.load("checkpoint"))?.state.context).toEqual(state.context);
      expect(await backend.locks.isHeld("checkpoint")).toBe(true);

      const lost = await backend.checkpoint!({
        sessionId: "checkpoint",
        events: [delta("c")],
        save: { state, expectedVersion: 1 },
      });
      expect(lost.saveError).toBeInstanceOf(StateConflictError);
      expect(lost.version).toBeUndefined();
      expect(lost.logged.map((e) => e.seq)).toEqual([4]);
      expect((await backend.store.load("checkpoint"))?.version).toBe(2);
      expect(await backend.locks.isHeld("checkpoint")).toBe(true);
      await lease.release();
    });

    it("a checkpoint and the end of one session made in the same turn are logged and saved in call order", async () => {
      const backend = await open();
      const { state, lease } = await runningSession(backend, "same-turn");
      state.context.push(userMsg("first"));
      const later = structuredClone(state);
      later.context.push(userMsg("second"));
      const [checkpoint, end] = await Promise.all([
        backend.checkpoint!({
          sessionId: "same-turn",
          events: [delta("a")],
          save: { state, expectedVersion: 1 },
        }),
        backend.endRun!({
          sessionId: "same-turn",
          events: [delta("b")],
          save: { state: later, expectedVersion: 2 },
          endEvents: [replyEnd()],
          lease,
        }),
      ]);
      expect([checkpoint.version, end.version]).toEqual([2, 3]);
      expect([checkpoint.saveError, end.saveError]).toEqual([undefined, undefined]);
      expect([...checkpoint.logged, ...end.logged].map((e) => e.seq)).toEqual([2, 3, 4]);
      expect((await backend.store.load("same-turn"))?.state.context).toEqual(later.context);
      expect(await backend.locks.isHeld("same-turn")).toBe(false);
    });

    it("a checkpoint that only saves logs nothing and tells the other replicas nothing", async () => {
      const backend = await open();
      const other = await open();
      const heard: BusMessage[] = [];
      other.bus.subscribe("save-only", (m) => heard.push(m));
      const { state, lease } = await runningSession(backend, "save-only");
      await expect.poll(() => heard.length).toBe(kind.notifies ? 1 : 0); // of the session's first append
      heard.length = 0;
      state.context.push(userMsg("hello"));
      const result = await backend.checkpoint!({
        sessionId: "save-only",
        events: [],
        save: { state, expectedVersion: 1 },
      });
      expect(result.logged).toEqual([]);
      expect(result.version).toBe(2);
      await backend.bus.publish({ sessionId: "save-only", kind: "interrupt", reason: "marker" });
      // the marker comes after any notice the checkpoint sent, on the same channel
      await expect
        .poll(() => heard.length, { timeout: kind.notifies ? 2000 : 200 })
        .toBe(kind.notifies ? 1 : 0);
      expect(heard.map((m) => m.kind)).toEqual(kind.notifies ? ["interrupt"] : []);
      await lease.release();
    });

    it("logs and saves sessions whose ids and text look like SQL, array syntax or NULL, as they are", async () => {
      const backend = await open();
      const hostile = ["NULL", `it's'); DELETE FROM x; --`, `{a,"b"}\\ $1 x`];
      const text = `quote ' double " backslash \\ brace {,} dollar $1 newline \n end`;
      const runs = await Promise.all(hostile.map((id) => runningSession(backend, id)));
      for (const { state } of runs) state.context.push(userMsg(text));
      const results = await Promise.all(
        runs.map(({ state, lease }, k) =>
          backend.endRun!({
            sessionId: hostile[k]!,
            events: [delta(text)],
            save: { state, expectedVersion: 1 },
            endEvents: [replyEnd()],
            lease,
          }),
        ),
      );
      for (const [k, id] of hostile.entries()) {
        expect(results[k]!.version).toBe(2);
        const log = await backend.events.read(id, 0, 10);
        expect(log.map((e) => e.seq)).toEqual([1, 2, 3]);
        expect((log[1]!.event as { delta: string }).delta).toBe(text);
        expect((await backend.store.load(id))?.state.context).toEqual(runs[k]!.state.context);
        expect(await backend.locks.isHeld(id)).toBe(false);
      }
      expect(await backend.events.read("x", 0, 10)).toEqual([]); // nothing leaked into another session
    });

    it("refuses a lease that is not its own", async () => {
      const backend = await open();
      const foreign = { sessionId: "x", generation: 1, renew: async () => true, release: async () => {} };
      await expect(
        backend.endRun!({ sessionId: "x", events: [], endEvents: [replyEnd()], lease: foreign }),
      ).rejects.toThrow(/the lease of session "x" is not this backend's/);
    });
  });
}
