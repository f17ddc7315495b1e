import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunLease } from "../../src/app/server/backend/types.js";
import { LeaseRenewals } from "../../src/app/server/runtime/lease-renewals.js";

afterEach(() => {
  vi.useRealTimers();
});

/** A lease that records when it was renewed and answers `answer()`. */
function lease(sessionId: string, answer: () => Promise<boolean>) {
  const renewedAt: number[] = [];
  const held: RunLease & { renewedAt: number[] } = {
    sessionId,
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
  it("renews every held lease on one timer, in one turn, and stops the timer when none is held", async () => {
    vi.useFakeTimers({ now: 0 });
    const renewals = new LeaseRenewals(100);
    const leases = Array.from({ length: 5 }, (_, i) => lease(`s${i}`, async () => true));
    for (const held of leases.slice(0, 3)) renewals.add(held, () => {});
    await vi.advanceTimersByTimeAsync(50);
    for (const held of leases.slice(3)) renewals.add(held, () => {});
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(50);
    // the ones added later are renewed on the same tick as the others
    expect(leases.map((held) => held.renewedAt)).toEqual(leases.map(() => [100]));
    renewals.delete(leases[0]!);
    await vi.advanceTimersByTimeAsync(100);
    expect(leases.map((held) => held.renewedAt.length)).toEqual([1, 2, 2, 2, 2]);
    for (const held of leases) renewals.delete(held);
    expect(renewals.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
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
});
