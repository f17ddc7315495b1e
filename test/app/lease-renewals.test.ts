import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import type { RunLease } from "../../src/app/server/backend/types.js";
import { LeaseRenewals } from "../../src/app/server/runtime/lease-renewals.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { conversationModel } from "./fixtures/agents.js";

afterEach(() => {
  vi.useRealTimers();
});

/** A lease that records when it was renewed and answers `answer()`. */
function lease(sessionId: string, answer: () => Promise<boolean>) {
  const renewedAt: number[] = [];
  const held: RunLease & { renewedAt: number[] } = {
    sessionId,
    generation: 1,
    renewedAt,
    renew: () => {
      renewedAt.push(Date.now());
      return answer();
    },
    release: async () => {},
  };
  return held;
}

describe("LeaseRenewals", () => {
  it("renews each lease a period after it was taken or last renewed, those due together in one turn, on one timer", async () => {
    vi.useFakeTimers({ now: 0 });
    const renewals = new LeaseRenewals(100);
    const leases = Array.from({ length: 5 }, (_, i) => lease(`s${i}`, async () => true));
    for (const held of leases.slice(0, 3)) renewals.add(held, () => {});
    await vi.advanceTimersByTimeAsync(50);
    for (const held of leases.slice(3)) renewals.add(held, () => {});
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(50);
    // the first three together, a period after they were taken; the later two not yet
    expect(leases.map((held) => held.renewedAt)).toEqual([[100], [100], [100], [], []]);
    await vi.advanceTimersByTimeAsync(50);
    expect(leases.map((held) => held.renewedAt)).toEqual([[100], [100], [100], [150], [150]]);
    renewals.delete(leases[0]!);
    await vi.advanceTimersByTimeAsync(100);
    expect(leases.map((held) => held.renewedAt)).toEqual([
      [100],
      [100, 200],
      [100, 200],
      [150, 250],
      [150, 250],
    ]);
    for (const held of leases) renewals.delete(held);
    expect(renewals.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("spreads the renewals of leases taken at different times instead of renewing them all at once", async () => {
    vi.useFakeTimers({ now: 0 });
    const renewals = new LeaseRenewals(1000);
    const leases = Array.from({ length: 100 }, (_, i) => lease(`s${i}`, async () => true));
    // taken one every 10 ms over a period, as runs start
    for (const held of leases) {
      renewals.add(held, () => {});
      await vi.advanceTimersByTimeAsync(10);
    }
    await vi.advanceTimersByTimeAsync(3000);
    const renewedAt = leases.flatMap((held) => held.renewedAt);
    const perTick = new Map<number, number>();
    for (const at of renewedAt) perTick.set(at, (perTick.get(at) ?? 0) + 1);
    // ten leases per tick of 100 ms, never the hundred together
    expect(Math.max(...perTick.values())).toBe(10);
    // each a period after the last, within half a tick
    for (const held of leases) {
      const gaps = held.renewedAt.slice(1).map((at, i) => at - held.renewedAt[i]!);
      expect(gaps.every((gap) => gap === 1000)).toBe(true);
      expect(Math.abs(held.renewedAt[0]! - leases.indexOf(held) * 10 - 1000)).toBeLessThanOrEqual(50);
    }
  });

  it("keeps renewing on schedule when the wall clock is set back", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const renewals = new LeaseRenewals(100);
    const held = lease("s", async () => true);
    renewals.add(held, () => {});
    await vi.advanceTimersByTimeAsync(100);
    vi.setSystemTime(0); // an hour and more back
    await vi.advanceTimersByTimeAsync(200);
    expect(held.renewedAt).toEqual([1_000_100, 100, 200]);
    renewals.delete(held);
  });

  it("tells the run of a lease that is lost or cannot be renewed, and only that run", async () => {
    vi.useFakeTimers({ now: 0 });
    const renewals = new LeaseRenewals(100);
    const lost: string[] = [];
    const kept = lease("kept", async () => true);
    const taken = lease("taken", async () => false);
    const unreachable = lease("unreachable", () => Promise.reject(new Error("ECONNREFUSED")));
    for (const held of [kept, taken, unreachable])
      renewals.add(held, (reason) => lost.push(`${held.sessionId}: ${reason}`));
    await vi.advanceTimersByTimeAsync(100);
    expect(lost).toEqual([
      "taken: the run lost its session lock",
      "unreachable: the run could not renew its session lock",
    ]);
  });

  it("with the backend's renewMany, renews the leases due on a tick in one call and tells only the runs that lost theirs", async () => {
    vi.useFakeTimers({ now: 0 });
    const calls: string[][] = [];
    let answer: (leases: RunLease[]) => Promise<boolean[]> = async (leases) =>
      leases.map((held) => held.sessionId !== "b");
    const renewals = new LeaseRenewals(100, (leases) => {
      calls.push(leases.map((held) => held.sessionId));
      return answer(leases);
    });
    const lost: string[] = [];
    const leases = ["a", "b", "c"].map((id) =>
      lease(id, () => Promise.reject(new Error("renewMany is used, not each lease's renew"))),
    );
    for (const held of leases) renewals.add(held, (reason) => lost.push(`${held.sessionId}: ${reason}`));
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toEqual([["a", "b", "c"]]);
    expect(leases.every((held) => held.renewedAt.length === 0)).toBe(true);
    expect(lost).toEqual(["b: the run lost its session lock"]);
    renewals.delete(leases[1]!);
    answer = () => Promise.reject(new Error("ECONNREFUSED"));
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toEqual([
      ["a", "b", "c"],
      ["a", "c"],
    ]);
    expect(lost.slice(1)).toEqual([
      "a: the run could not renew its session lock",
      "c: the run could not renew its session lock",
    ]);
    for (const held of leases) renewals.delete(held);
  });

  it("refuses a renewal period that is not a positive finite number, or not shorter than the lock's TTL", () => {
    for (const everyMs of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new LeaseRenewals(everyMs)).toThrow(/everyMs must be a positive finite number/);
    }
    const backend = { ...memoryBackend(), lockTtlMs: 15_000 };
    const agents = [{ name: "a", model: conversationModel({ text: "hi" }) }];
    expect(() => new ServiceRuntime({ backend, agents, renewEveryMs: 15_000 })).toThrow(
      /renewEveryMs \(15000\) must be shorter than the backend's lock TTL \(15000 ms\)/,
    );
    expect(() => new ServiceRuntime({ backend, agents, renewEveryMs: 5_000 })).not.toThrow();
  });
});
