import type { Pool } from "pg";
import { describe, expect, it } from "vitest";
import { postgresLogBatch } from "../../src/state/postgres/postgres-log-batch.js";

/** A pool whose statements answer when the test says: which sessions each wrote, in start order. */
function heldPool() {
  const started: string[][] = [];
  const answers: Array<() => void> = [];
  const pool = {
    query: (_text: string, values: unknown[]) => {
      const sessions = values[0] as string[];
      started.push(sessions);
      return new Promise((resolve, reject) => {
        answers.push(() =>
          // a statement with session "bad" fails, as one refused by PostgreSQL is rolled back whole
          sessions.includes("bad")
            ? reject(new Error(`duplicate key (session bad)`))
            : resolve({ rows: sessions.map((_, k) => ({ k: k + 1, s: 0, saved: null, actual: null })) }),
        );
      });
    },
  } as unknown as Pool;
  return { pool, started, answer: (i: number) => answers[i]!() };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const write = (sessionId: string) => ({ sessionId, json: ["{}"], notice: "n" });
const tables = { events: "e", leases: "l", state: "s" };

describe("postgresLogBatch", () => {
  it("sends the next turn's statement while one is in flight, unless it writes a session the first does", async () => {
    const { pool, started, answer } = heldPool();
    const log = postgresLogBatch(pool, tables, "bus");
    const first = [log.write(write("a")), log.write(write("b"))];
    await turn();
    expect(started).toEqual([["a", "b"]]);
    // other sessions: a second statement goes at once
    const other = log.write(write("c"));
    await turn();
    expect(started).toEqual([["a", "b"], ["c"]]);
    answer(1);
    await other;
    // session a again, while the statement writing it is in flight: it waits for it
    const again = log.write(write("a"));
    await turn();
    await turn();
    expect(started).toHaveLength(2);
    answer(0);
    await Promise.all(first);
    await turn();
    expect(started).toEqual([["a", "b"], ["c"], ["a"]]);
    answer(2);
    await again;
  });

  it("when a statement fails, tries each write alone, so only the one that fails by itself fails", async () => {
    const { pool, started, answer } = heldPool();
    const log = postgresLogBatch(pool, tables, "bus");
    const calls = ["a", "bad", "c"].map((id) => log.write(write(id)));
    await turn();
    answer(0);
    await turn();
    expect(started).toEqual([["a", "bad", "c"], ["a"], ["bad"], ["c"]]);
    for (const i of [1, 2, 3]) answer(i);
    const settled = await Promise.allSettled(calls);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((settled[1] as PromiseRejectedResult).reason.message).toMatch(/session bad/);
  });

  it("writes a session twice in one turn in two statements, in call order", async () => {
    const { pool, started, answer } = heldPool();
    const log = postgresLogBatch(pool, tables, "bus");
    const calls = [log.write(write("a")), log.write(write("b")), log.write(write("a"))];
    await turn();
    expect(started).toEqual([["a", "b"]]);
    answer(0);
    await turn();
    expect(started).toEqual([["a", "b"], ["a"]]);
    answer(1);
    await Promise.all(calls);
  });
});
