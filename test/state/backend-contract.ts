import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import { newestEvent } from "../../src/app/server/backend/newest-event.js";
import type { BackendOptions, ServiceBackend } from "../../src/app/server/backend/types.js";
import { followEvents } from "../../src/app/server/runtime/follow-events.js";
import { createEvent } from "../../src/event/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { dropBackend } from "./drop-backend.js";
import { appendRawEvent } from "./raw-event.js";

/** A driver family as the contract suites reach it: its real server, and what it shares. */
export interface FamilyUnderTest {
  name: string;
  /** A URL of its server; called once per suite (a SQLite family gives a fresh file each time). */
  url: () => string;
  /** The port on 127.0.0.1 its server listens on (none for an embedded one). */
  port?: number;
  /** Whether two backends opened on one URL share their data (every family but memory:). */
  shared: boolean;
  /** Whether replicas tell each other through the server (a bus that crosses processes). */
  replicaBus?: boolean;
  /** How its prefix ends: `:` for key prefixes (Redis), `_` for table names. */
  prefixEnd?: ":" | "_";
}

const dir = mkdtempSync(join(tmpdir(), "agentscope-backends-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh SQLite file's URL, for a family under test. */
export const freshSqliteUrl = () => `sqlite:${join(dir, `${runName("db")}.db`)}`;

export const event = (n: number) => createEvent("CUSTOM", { replyId: "r1", name: `e${n}` });

/**
 * The service backend's contract (event log, run locks, bus, session directory), run against a
 * family's real server: `test/state/families.test.ts` runs it for every family with a backend.
 */
export function describeBackendContract(kind: FamilyUnderTest): void {
  describe(`the ${kind.name} service backend`, async () => {
    const missing = kind.port ? await missingService(kind.name, kind.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }
    const url = kind.url();
    const prefix = `${runName("be")}${kind.prefixEnd ?? "_"}`;
    const opened: ServiceBackend[] = [];
    const open = async (options: BackendOptions = {}) => {
      const backend = await createBackend(url, { prefix, ...options });
      opened.push(backend);
      return backend;
    };
    /** Opened, and its first write done: SQLite's writer thread can take longer to start than a short TTL. */
    const openWritten = async (options: BackendOptions) => {
      const backend = await open(options);
      await (await backend.locks.acquire(runName("warm")))?.release();
      return backend;
    };
    afterAll(async () => {
      await Promise.all(opened.map((b) => b.close()));
      await dropBackend(url, prefix);
    });

    it("numbers the appends of many sessions made at once, two of one session one after the other", async () => {
      const b = await open();
      const sessions = Array.from({ length: 6 }, (_, k) => runName(`many${k}`));
      await b.events.append(sessions[0]!, [event(0)]);
      const appended = await Promise.all([
        ...sessions.map((s, k) => b.events.append(s, [event(1), event(2 + k)])),
        b.events.append(sessions[0]!, [event(9)]),
      ]);
      expect(appended.map((logged) => logged.map((e) => e.seq))).toEqual([
        [2, 3],
        ...sessions.slice(1).map(() => [1, 2]),
        [4],
      ]);
      const read = await b.events.read(sessions[0]!, 0, 10);
      expect(read.map((e) => [e.seq, (e.event as { name: string }).name])).toEqual([
        [1, "e0"],
        [2, "e1"],
        [3, "e2"],
        [4, "e9"],
      ]);
      expect(
        (await b.events.read(sessions[5]!, 0, 10)).map((e) => (e.event as { name: string }).name),
      ).toEqual(["e1", "e7"]);
    });

    it("numbers a session's appends in order when the next is made before the last has answered", async () => {
      const b = await open();
      const sessions = Array.from({ length: 20 }, (_, k) => runName(`overlap${k}`));
      const first = sessions.map((s) => b.events.append(s, [event(1)]));
      await new Promise((resolve) => setImmediate(resolve)); // the first ones are on their way
      await new Promise((resolve) => setImmediate(resolve));
      const second = sessions.map((s) => b.events.append(s, [event(2), event(3)]));
      const logged = await Promise.all([...first, ...second]);
      expect(logged.map((l) => l.map((e) => e.seq))).toEqual([
        ...sessions.map(() => [1]),
        ...sessions.map(() => [2, 3]),
      ]);
      const read = await b.events.read(sessions[7]!, 0, 10);
      expect(read.map((e) => (e.event as { name: string }).name)).toEqual(["e1", "e2", "e3"]);
    });

    it("numbers events 1, 2, 3… per session and reads them after an id", async () => {
      const b = await open();
      const s = runName("s");
      expect((await b.events.append(s, [event(1), event(2)])).map((e) => e.seq)).toEqual([1, 2]);
      expect((await b.events.append(s, [event(3)])).map((e) => e.seq)).toEqual([3]);
      expect((await b.events.append(`${s}x`, [event(1)])).map((e) => e.seq)).toEqual([1]);
      const read = await b.events.read(s, 1, 10);
      expect(read.map((e) => [e.seq, (e.event as { name: string }).name])).toEqual([
        [2, "e2"],
        [3, "e3"],
      ]);
      expect((await b.events.read(s, 0, 2)).map((e) => e.seq)).toEqual([1, 2]);
      expect(await b.events.lastSeq(s)).toBe(3);
      const newest = await b.events.last?.(s);
      expect(newest).toMatchObject({ seq: 3, event: { name: "e3" } });
      expect(JSON.parse(newest?.json ?? "null")).toEqual(newest?.event);
      expect(await b.events.last?.(`${s}-none`)).toBeUndefined();
      await b.events.delete(s);
      expect(await b.events.read(s, 0, 10)).toEqual([]);
      expect(await b.events.last?.(s)).toBeUndefined();
    });

    if (kind.shared) {
      it("names the session and the seq of a stored event that was damaged, instead of failing further on", async () => {
        const b = await open();
        const notJson = runName("s");
        await b.events.append(notJson, [event(1), event(2)]);
        await appendRawEvent(url, prefix, notJson, 3, "{not json");
        const damaged = new RegExp(`event 3 in the log of session "${notJson}" is not JSON`);
        await expect(b.events.last!(notJson)).rejects.toThrow(damaged);
        await expect(newestEvent(b.events, notJson)).rejects.toThrow(damaged);
        await expect(b.events.read(notJson, 1, 10)).rejects.toThrow(damaged);
        // the events before it still read
        expect((await b.events.read(notJson, 0, 2)).map((e) => e.seq)).toEqual([1, 2]);
        for (const text of ["null", "42", '"REPLY_END"', '{"type":7}']) {
          const notEvent = runName("s");
          await appendRawEvent(url, prefix, notEvent, 1, text);
          await expect(b.events.last!(notEvent)).rejects.toThrow(
            new RegExp(`event 1 in the log of session "${notEvent}" is not an event`),
          );
        }
      });
    }

    it("keeps at most maxEventsPerSession events; a follower from before the window is told about the gap", async () => {
      const b = await open({ maxEventsPerSession: 5 });
      const s = runName("s");
      for (let i = 1; i <= 8; i++) await b.events.append(s, [event(i)]);
      expect(await b.events.firstSeq(s)).toBe(4);
      expect((await b.events.read(s, 0, 10)).map((e) => e.seq)).toEqual([4, 5, 6, 7, 8]);
      const controller = new AbortController();
      const items = [];
      for await (const item of followEvents(b, s, {
        after: 1,
        signal: controller.signal,
        heartbeatMs: 1000,
        until: Promise.resolve(),
      }))
        items.push(item.kind === "event" ? item.seq : item.kind);
      expect(items).toEqual(["gap", 4, 5, 6, 7, 8]);
    });

    it("a follower that falls behind the retention window mid-stream is told about the gap", async () => {
      const b = await open({ maxEventsPerSession: 5 });
      const s = runName("s");
      await b.events.append(s, [event(1), event(2)]);
      let finish = () => {};
      const until = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const follower = followEvents(b, s, {
        after: 0,
        signal: new AbortController().signal,
        heartbeatMs: 1000,
        pollMs: 20,
        until,
      });
      const seen: Array<number | string> = [];
      for (let i = 0; i < 2; i++) {
        const next = await follower.next();
        if (!next.done && next.value.kind === "event") seen.push(next.value.seq);
      }
      for (let i = 3; i <= 10; i++) await b.events.append(s, [event(i)]); // keeps 6…10
      finish();
      for await (const item of follower) seen.push(item.kind === "event" ? item.seq : item.kind);
      expect(seen).toEqual([1, 2, "gap", 6, 7, 8, 9, 10]);
    });

    if (kind.replicaBus)
      it("delivers a replica's own bus message once (the broker's echo is skipped) and the others' too", async () => {
        const [a, b] = [await open(), await open()];
        const s = runName("s");
        const heard: string[] = [];
        const stop = a.bus.subscribe(s, (m) => heard.push(m.kind === "interrupt" ? m.reason : m.kind));
        await a.bus.publish({ sessionId: s, kind: "events" });
        await b.bus.publish({ sessionId: s, kind: "interrupt", reason: "from b" });
        // b's message comes after a's echo would have, on the same channel
        await vi.waitFor(() => expect(heard).toContain("from b"));
        stop();
        expect(heard).toEqual(["events", "from b"]);
      });

    it("lets one run hold a session at a time, across backend instances", async () => {
      const [one, two] = kind.shared ? [await open(), await open()] : [await open(), undefined];
      const other = two ?? one;
      const s = runName("s");
      const lease = await one.locks.acquire(s);
      expect(lease).toBeDefined();
      expect(await other.locks.acquire(s)).toBeUndefined();
      expect(await other.locks.isHeld(s)).toBe(true);
      expect(await lease!.renew()).toBe(true);
      await lease!.release();
      expect(await lease!.renew()).toBe(false);
      expect(await other.locks.isHeld(s)).toBe(false);
      const next = await other.locks.acquire(s);
      expect(next).toBeDefined();
      await next!.release();
    });

    it("of two acquires of one session at once, one gets it", async () => {
      const backend = await open();
      const s = runName("s");
      const got = await Promise.all([backend.locks.acquire(s), backend.locks.acquire(s)]);
      expect(got.filter(Boolean)).toHaveLength(1);
      await got.find(Boolean)!.release();
    });

    it("renewals made together each answer for their own lease", async () => {
      const backend = await open();
      const sessions = Array.from({ length: 12 }, (_, k) => runName(`r${k}`));
      const leases = await Promise.all(sessions.map((s) => backend.locks.acquire(s)));
      await Promise.all(leases.filter((_, k) => k % 3 === 0).map((lease) => lease!.release()));
      const renewed = await Promise.all(leases.map((lease) => lease!.renew()));
      expect(renewed).toEqual(sessions.map((_, k) => k % 3 !== 0));
      await Promise.all(leases.map((lease) => lease!.release()));
    });

    it("renews many leases in one call, each answering for its own; released or foreign leases answer false", async () => {
      const [backend, other] = [await open(), await open()];
      // ids that look like SQL, array syntax or NULL go to the store as they are
      const hostile = ["NULL", `it's'); DELETE FROM x; --`, `{a,"b"}\\ $1`];
      const sessions = [...hostile, ...Array.from({ length: 9 }, (_, k) => runName(`m${k}`))];
      const leases = (await Promise.all(sessions.map((s) => backend.locks.acquire(s)))).map((l) => l!);
      const foreign = (await other.locks.acquire(runName("foreign")))!;
      await Promise.all(leases.filter((_, k) => k % 3 === 0).map((lease) => lease.release()));
      expect(await backend.locks.renewMany!([])).toEqual([]);
      const renewed = await backend.locks.renewMany!([...leases, foreign]);
      expect(renewed).toEqual([...sessions.map((_, k) => k % 3 !== 0), false]);
      expect(await foreign.renew()).toBe(true);
      await Promise.all([...leases, foreign].map((lease) => lease.release()));
      expect(await backend.locks.renewMany!(leases)).toEqual(leases.map(() => false));
    });

    if (kind.shared) {
      it("renewMany extends the leases: held past their first expiry, while an unrenewed one is taken", async () => {
        const a = await openWritten({ lockTtlMs: 400 });
        const b = await openWritten({ lockTtlMs: 400 });
        const [kept, left] = [runName("kept"), runName("left")];
        const leases = [(await a.locks.acquire(kept))!, (await a.locks.acquire(left))!];
        await new Promise((resolve) => setTimeout(resolve, 250));
        expect(await a.locks.renewMany!([leases[0]!])).toEqual([true]);
        await new Promise((resolve) => setTimeout(resolve, 250)); // 500 ms after both were taken
        expect(await b.locks.acquire(kept)).toBeUndefined();
        const taken = await b.locks.acquire(left);
        expect(taken).toBeDefined();
        // the lease taken over answers false, the kept one true, in one call
        expect(await a.locks.renewMany!(leases)).toEqual([true, false]);
        await Promise.all([leases[0]!.release(), taken!.release()]);
      });

      it("a lease that was not renewed expires and another replica takes the session", async () => {
        const a = await openWritten({ lockTtlMs: 150 });
        const b = await openWritten({ lockTtlMs: 150 });
        const s = runName("s");
        const lease = await a.locks.acquire(s);
        expect(await b.locks.acquire(s)).toBeUndefined();
        await new Promise((resolve) => setTimeout(resolve, 400));
        const taken = await b.locks.acquire(s);
        expect(taken).toBeDefined();
        expect(await lease!.renew()).toBe(false);
        await taken!.release();
      });

      it("of two replicas that find the same lease expired, one takes it", async () => {
        const [a, b, c] = [
          await openWritten({ lockTtlMs: 150 }),
          await openWritten({ lockTtlMs: 150 }),
          await openWritten({ lockTtlMs: 150 }),
        ];
        const s = runName("s");
        expect(await a.locks.acquire(s)).toBeDefined();
        await new Promise((resolve) => setTimeout(resolve, 400));
        const taken = await Promise.all([b.locks.acquire(s), c.locks.acquire(s)]);
        expect(taken.filter(Boolean)).toHaveLength(1);
        await taken.find(Boolean)!.release();
      });
    }

    it("keeps sessions per owner, refuses a taken id and pages by id", async () => {
      const b = await open();
      const owner = runName("user");
      const ids = ["s3", "s1", "s2"].map((id) => `${owner}-${id}`);
      for (const id of ids)
        expect(await b.sessions.create({ sessionId: id, owner, agent: "main", createdAt: "t" })).toBe(true);
      expect(
        await b.sessions.create({ sessionId: ids[0]!, owner: "else", agent: "main", createdAt: "t" }),
      ).toBe(false);
      expect((await b.sessions.get(ids[0]!))?.owner).toBe(owner);
      const page = await b.sessions.list(owner, { limit: 2 });
      expect(page.sessions.map((r) => r.sessionId)).toEqual([ids[1], ids[2]]);
      const rest = await b.sessions.list(owner, { limit: 2, cursor: page.nextCursor! });
      expect(rest.sessions.map((r) => r.sessionId)).toEqual([ids[0]]);
      expect(rest.nextCursor).toBeUndefined();
      expect((await b.sessions.list("nobody", { limit: 5 })).sessions).toEqual([]);
      await b.sessions.delete(ids[0]!);
      expect(await b.sessions.get(ids[0]!)).toBeUndefined();
    });
  });
}
