import { afterAll, describe, expect, it } from "vitest";
import type { BusMessage, ServiceBackend } from "../../src/app/server/backend/types.js";
import { type AgentEvent, createEvent } from "../../src/event/index.js";
import { redisBackend } from "../../src/state/redis/redis-backend.js";
import { dropBackend } from "../state/drop-backend.js";
import { missingService, reportMissingService, runName } from "../support/services.js";

const url = "redis://127.0.0.1:6379";
const missing = await missingService("Redis", 6379);

const delta = (session: number, k: number): AgentEvent =>
  createEvent("TEXT_BLOCK_DELTA", { replyId: `r${session}`, blockId: "b1", delta: `s${session}-${k}` });

describe("the Redis backend under many sessions", () => {
  if (missing) {
    reportMissingService(missing);
    return;
  }
  const prefix = `${runName("log")}:`;
  const opened: ServiceBackend[] = [];
  const open = async (options: { maxEventsPerSession?: number } = {}) => {
    const backend = await redisBackend(url, { prefix, ...options });
    opened.push(backend);
    return backend;
  };
  afterAll(async () => {
    await Promise.all(opened.map((b) => b.close()));
    await dropBackend(url, prefix);
  });

  it("appends of many sessions at once (sent together) number each session's events without gaps", async () => {
    const backend = await open();
    const sessions = 60;
    const rounds = 5;
    for (let round = 0; round < rounds; round++) {
      // every session appends in the same turn of the event loop: one batch, as under load
      const results = await Promise.all(
        Array.from({ length: sessions }, (_, s) =>
          backend.events.append(`s${s}`, [delta(s, round * 2), delta(s, round * 2 + 1)]),
        ),
      );
      results.forEach((logged, s) => {
        expect(logged.map((e) => e.seq)).toEqual([round * 2 + 1, round * 2 + 2]);
        expect(logged.map((e) => e.json)).toEqual(logged.map((e) => JSON.stringify(e.event)));
        expect(logged[0]!.event).toMatchObject({ delta: `s${s}-${round * 2}` });
      });
    }
    for (const s of [0, 17, 59]) {
      const log = await backend.events.read(`s${s}`, 0, 100);
      expect(log.map((e) => e.seq)).toEqual(Array.from({ length: rounds * 2 }, (_, k) => k + 1));
      expect(log.map((e) => (e.event as { delta: string }).delta)).toEqual(
        Array.from({ length: rounds * 2 }, (_, k) => `s${s}-${k}`),
      );
      expect(await backend.events.lastSeq(`s${s}`)).toBe(rounds * 2);
    }
  });

  it("keeps numbering past the retention bound: the oldest go, seq never restarts", async () => {
    const backend = await open({ maxEventsPerSession: 4 });
    await backend.events.append(
      "trim",
      [1, 2, 3, 4, 5, 6].map((k) => delta(0, k)),
    );
    const [next] = await backend.events.append("trim", [delta(0, 7)]);
    expect(next!.seq).toBe(7);
    expect(await backend.events.firstSeq("trim")).toBe(4);
    expect((await backend.events.read("trim", 0, 10)).map((e) => e.seq)).toEqual([4, 5, 6, 7]);
  });

  it("renewals of many leases in one turn (one script call) each answer for their own lock", async () => {
    const a = await open();
    const b = await open();
    const leases = await Promise.all(Array.from({ length: 20 }, (_, i) => a.locks.acquire(`lock${i}`)));
    expect(leases.every(Boolean)).toBe(true);
    expect(await Promise.all(leases.map((lease) => lease!.renew()))).toEqual(leases.map(() => true));
    // lease 7's lock expires under it and another replica takes the session: only its renewal fails
    const { Redis } = await import("ioredis");
    const raw = new Redis(url);
    await raw.del(`${prefix}lock:lock7`);
    await raw.quit();
    const other = await b.locks.acquire("lock7");
    expect(other).toBeDefined();
    const renewed = await Promise.all(leases.map((lease) => lease!.renew()));
    expect(renewed).toEqual(leases.map((_, i) => i !== 7));
    expect(await other!.renew()).toBe(true);
    await Promise.all([...leases, other].map((lease) => lease!.release()));
  });

  it("tells another replica of each append once, and the appending replica does not hear its own echo", async () => {
    const a = await open();
    const b = await open();
    const heardOnA: BusMessage[] = [];
    const heardOnB: BusMessage[] = [];
    a.bus.subscribe("shared", (m) => heardOnA.push(m));
    b.bus.subscribe("shared", (m) => heardOnB.push(m));
    for (let k = 0; k < 3; k++) {
      const events = await a.events.append("shared", [delta(1, k)]);
      await a.bus.publish({ sessionId: "shared", kind: "events", events });
    }
    await expect.poll(() => heardOnB.length).toBe(3);
    expect(heardOnB.every((m) => m.kind === "events" && m.events === undefined)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50)); // an echo, if one came, would be here by now
    expect(heardOnA).toHaveLength(3);
    expect(heardOnA.every((m) => m.kind === "events" && m.events?.length === 1)).toBe(true);
  });
});
