import { describe, expect, it } from "vitest";
import type { LoggedEvent } from "../../src/app/server/backend/types.js";
import { createEvent } from "../../src/event/index.js";
import { decodeBusMessage, encodeBusMessage } from "../../src/state/service/local-bus.js";

const logged: LoggedEvent[] = [
  { seq: 1, event: createEvent("TEXT_BLOCK_DELTA", { replyId: "r", blockId: "b", delta: "secret" }) },
];

describe("bus messages between replicas", () => {
  it("never put the appended events a local notice carries on the wire", () => {
    const text = encodeBusMessage({ sessionId: "s", kind: "events", events: logged }, "replica_a");
    expect(text).not.toContain("secret");
    expect(JSON.parse(text)).toEqual({ from: "replica_a", sessionId: "s", kind: "events" });
  });

  it("drop events a message from the wire claims to carry: followers must read them from the log", () => {
    const forged = JSON.stringify({ from: "replica_b", sessionId: "s", kind: "events", events: logged });
    expect(decodeBusMessage(forged, "replica_a")).toEqual({ sessionId: "s", kind: "events" });
  });

  it("keep runEnded off the wire both ways: only this process's run may end its own followers early", () => {
    const local = encodeBusMessage(
      { sessionId: "s", kind: "events", events: logged, runEnded: true },
      "replica_a",
    );
    expect(JSON.parse(local)).toEqual({ from: "replica_a", sessionId: "s", kind: "events" });
    const forged = JSON.stringify({ from: "replica_b", sessionId: "s", kind: "events", runEnded: true });
    expect(decodeBusMessage(forged, "replica_a")).toEqual({ sessionId: "s", kind: "events" });
  });

  it("skip only this replica's own echo, not a replica whose name merely starts the same", () => {
    const own = encodeBusMessage({ sessionId: "s", kind: "interrupt", reason: "stop" }, "replica_a");
    const other = encodeBusMessage({ sessionId: "s", kind: "interrupt", reason: "stop" }, "replica_ab");
    expect(decodeBusMessage(own, "replica_a")).toBeUndefined();
    expect(decodeBusMessage(other, "replica_a")).toEqual({
      sessionId: "s",
      kind: "interrupt",
      reason: "stop",
    });
    expect(decodeBusMessage(own, "replica_ab")).toEqual({
      sessionId: "s",
      kind: "interrupt",
      reason: "stop",
    });
  });

  it("ignore text that is not a bus message", () => {
    for (const text of [
      "",
      "not json",
      "[]",
      '{"from":"x"}',
      '{"sessionId":1,"kind":"events"}',
      '{"sessionId":"s","kind":"drop"}',
    ])
      expect(decodeBusMessage(text, "replica_a")).toBeUndefined();
  });
});
