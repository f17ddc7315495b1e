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

  it("with perSend, splits one turn's calls into sends of that many", async () => {
    const sends: number[][] = [];
    const batch = new LoopTurnBatch<number, number>(
      async (items) => {
        sends.push(items);
        return items;
      },
      { perSend: 2 },
    );
    expect(await Promise.all([1, 2, 3, 4, 5].map((n) => batch.call(n)))).toEqual([1, 2, 3, 4, 5]);
    expect(sends).toEqual([[1, 2], [3, 4], [5]]);
  });

  it("with maxInFlight 1, calls made while a send is unanswered wait and go together when it answers", async () => {
    const sends: number[][] = [];
    const answers: Array<() => void> = [];
    const batch = new LoopTurnBatch<number, number>(
      (items) => {
        sends.push(items);
        return new Promise((resolve) => answers.push(() => resolve(items)));
      },
      { maxInFlight: 1 },
    );
    const first = batch.call(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sends).toEqual([[1]]);
    const later = [2, 3, 4].map((n) => batch.call(n));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sends).toEqual([[1]]); // still waiting for the first answer
    answers.shift()?.();
    expect(await first).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sends).toEqual([[1], [2, 3, 4]]);
    answers.shift()?.();
    expect(await Promise.all(later)).toEqual([2, 3, 4]);
  });

  it("with maxInFlight, a failed send still lets the waiting calls go", async () => {
    let sends = 0;
    const batch = new LoopTurnBatch<number, number>(
      async (items) => {
        sends += 1;
        if (sends === 1) throw new Error("boom");
        return items;
      },
      { maxInFlight: 1 },
    );
    const first = batch.call(1).catch((error: Error) => error.message);
    await new Promise((resolve) => setImmediate(resolve));
    const second = batch.call(2);
    expect(await first).toBe("boom");
    expect(await second).toBe(2);
  });

  it("refuses a perTurn, perSend or maxInFlight below 1", () => {
    for (const name of ["perTurn", "perSend", "maxInFlight"]) {
      for (const value of [0, -1, Number.NaN]) {
        expect(() => new LoopTurnBatch(async (items: number[]) => items, { [name]: value })).toThrow(name);
      }
    }
  });
});
