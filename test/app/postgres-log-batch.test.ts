import type { Pool } from "pg";
import { describe, expect, it } from "vitest";
import { postgresLogBatch } from "../../src/app/server/backend/postgres-log-batch.js";

/** A pool whose statements answer when the test says: which sessions each wrote, in start order. */
function heldPool() {
  const started: string[][] = [];
  const answers: Array<() => void> = [];
  const pool = {
    query: (_text: string, values: unknown[]) => {
      const sessions = values[0] as string[];
      started.push(sessions);
      return new Promise((resolve) => {
        answers.push(() =>
          resolve({ rows: sessions.map((_, k) => ({ k: k + 1, s: 0, saved: null, actual: null })) }),
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
    const first = [log.call(write("a")), log.call(write("b"))];
    await turn();
    expect(started).toEqual([["a", "b"]]);
    // other sessions: a second statement goes at once
    const other = log.call(write("c"));
    await turn();
    expect(started).toEqual([["a", "b"], ["c"]]);
    answer(1);
    await other;
    // session a again, while the statement writing it is in flight: it waits for it
    const again = log.call(write("a"));
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

  it("writes a session twice in one turn in two statements, in call order", async () => {
    const { pool, started, answer } = heldPool();
    const log = postgresLogBatch(pool, tables, "bus");
    const calls = [log.call(write("a")), log.call(write("b")), log.call(write("a"))];
    await turn();
    expect(started).toEqual([["a", "b"]]);
    answer(0);
    await turn();
    expect(started).toEqual([["a", "b"], ["a"]]);
    answer(1);
    await Promise.all(calls);
  });
});
