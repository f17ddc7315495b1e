import { describe, expect, it } from "vitest";
import { LoopTurnBatch } from "../../src/state/loop-turn-batch.js";

describe("LoopTurnBatch", () => {
  it("sends the calls of one loop turn together and answers each in order", async () => {
    const sends: number[][] = [];
    const batch = new LoopTurnBatch<number, number>(async (items) => {
      sends.push(items);
      return items.map((n) => n * 10);
    });
    const answers = await Promise.all([1, 2, 3].map((n) => batch.call(n)));
    expect(answers).toEqual([10, 20, 30]);
    expect(sends).toEqual([[1, 2, 3]]);
  });

  it("with perTurn, sends that many per turn: what else the loop has queued runs between them", async () => {
    const log: string[] = [];
    const batch = new LoopTurnBatch<number, number>(
      async (items) => {
        log.push(`send ${items.join(",")}`);
        return items;
      },
      { perTurn: 2 },
    );
    const calls = [1, 2, 3, 4, 5].map((n) => batch.call(n));
    setImmediate(() => log.push("other work"));
    await Promise.all(calls);
    // a call made while the backlog drains joins its end, in order
    const late = batch.call(6);
    await late;
    expect(log).toEqual(["send 1,2", "other work", "send 3,4", "send 5", "send 6"]);
  });

  it("a failed send fails the calls of its batch only", async () => {
    const batch = new LoopTurnBatch<number, number>(
      async (items) => {
        if (items.includes(2)) throw new Error("boom");
        return items;
      },
      { perTurn: 2 },
    );
    const results = await Promise.allSettled([1, 2, 3].map((n) => batch.call(n)));
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "fulfilled"]);
  });

  it("refuses a perTurn below 1", () => {
    for (const perTurn of [0, -1, Number.NaN]) {
      expect(() => new LoopTurnBatch(async (items: number[]) => items, { perTurn })).toThrow(/perTurn/);
    }
  });
});
