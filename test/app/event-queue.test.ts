import { describe, expect, it } from "vitest";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import type { BusMessage, RunEnd } from "../../src/app/server/backend/types.js";
import { EventQueue } from "../../src/app/server/runtime/event-queue.js";
import { type AgentEvent, createEvent } from "../../src/event/index.js";
import { emptyAgentState, StateConflictError } from "../../src/state/index.js";

const delta = (i: number): AgentEvent =>
  createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: `d${i}` });

const replyEnd = (): AgentEvent => createEvent("REPLY_END", { replyId: "r1", finishedReason: "completed" });
const named = (events: AgentEvent[]) =>
  events.map((event) => (event as { delta?: string }).delta ?? event.type);

/**
 * A memory backend whose appends and saves are recorded in `steps` (the events of each append) and
 * whose bus messages are kept; without `endRun` and `checkpoint` (a custom backend's steps), which
 * tests that want them put back.
 */
function recordingBackend() {
  const backend = memoryBackend();
  delete backend.endRun;
  delete backend.checkpoint;
  const appends: string[][] = [];
  const steps: string[] = [];
  const append = backend.events.append.bind(backend.events);
  backend.events.append = (sessionId, events) => {
    appends.push(named(events));
    steps.push(`append ${named(events)}`);
    return append(sessionId, events);
  };
  const save = backend.store.save.bind(backend.store);
  backend.store.save = (sessionId, state, options) => {
    steps.push("save");
    return save(sessionId, state, options);
  };
  const heard: BusMessage[] = [];
  backend.bus.subscribe("s", (message) => heard.push(message));
  return { backend, appends, steps, heard };
}

/** Settles after `hops` chained promise reactions, as a generator handing on an event does. */
async function afterHops(hops: number): Promise<void> {
  for (let i = 0; i < hops; i++) await Promise.resolve();
}

describe("EventQueue", () => {
  it("appends what a tick pushes, over any number of awaits, as one batch", async () => {
    const { backend, appends, heard } = recordingBackend();
    const queue = new EventQueue(backend, "s");
    queue.push(delta(1));
    await afterHops(5); // the model's final chunk comes several awaits after its last delta
    queue.push(delta(2));
    queue.push(delta(3));
    await queue.flush();
    expect(appends).toEqual([["d1", "d2", "d3"]]);
    expect(heard).toHaveLength(1);
    expect((await backend.events.read("s", 0, 10)).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it("batches what arrives while an append is in flight, in order, and starts afresh after", async () => {
    const { backend, appends } = recordingBackend();
    const queue = new EventQueue(backend, "s");
    queue.push(delta(1));
    await new Promise((resolve) => setImmediate(resolve)); // a later turn: the first append is under way
    queue.push(delta(2));
    queue.push(delta(3));
    await queue.flush();
    queue.push(delta(4));
    await queue.flush();
    expect(appends.flat()).toEqual(["d1", "d2", "d3", "d4"]);
    expect(appends.at(-1)).toEqual(["d4"]);
    expect((await backend.events.read("s", 0, 10)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it("flush waits for an append not yet started, and a failed append fails every later flush", async () => {
    const { backend } = recordingBackend();
    const queue = new EventQueue(backend, "s");
    queue.push(delta(1));
    await queue.flush(); // pushed in this very tick: the append starts after it, and flush waits for it
    expect(await backend.events.lastSeq("s")).toBe(1);

    backend.events.append = async () => {
      throw new Error("disk full");
    };
    queue.push(delta(2));
    await expect(queue.flush()).rejects.toThrow(/cannot append to the event log of session "s": disk full/);
    await expect(queue.flush()).rejects.toThrow(/disk full/);
  });

  it("end hands what the tick pushed to the backend's endRun with the save and the end events: one call, one message", async () => {
    const { backend, appends, heard } = recordingBackend();
    const ends: RunEnd[] = [];
    backend.endRun = async (end) => {
      ends.push(end);
      await end.lease.release();
      return { logged: await backend.events.append("s", [...end.events, ...end.endEvents]) };
    };
    appends.length = 0;
    const lease = (await backend.locks.acquire("s"))!;
    const state = emptyAgentState("s");
    const queue = new EventQueue(backend, "s");
    queue.push(delta(1));
    await afterHops(3); // the reply ends a few awaits after its last delta, in the same tick
    const result = await queue.end({ save: { state, expectedVersion: 0 }, endEvents: [replyEnd()], lease });
    expect(ends.map((end) => [named(end.events), end.save?.state, named(end.endEvents)])).toEqual([
      [["d1"], state, ["REPLY_END"]],
    ]);
    expect(appends).toEqual([["d1", "REPLY_END"]]); // only the one endRun made: the queue appended nothing
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({ kind: "events", events: result.logged, runEnded: true });
    expect(await backend.locks.isHeld("s")).toBe(false);
  });

  it("end without endRun logs, saves and logs in turn, frees the session, then tells it all in one message; a lost save still logs the end", async () => {
    const { backend, steps, heard } = recordingBackend();
    // whether the session was still held when each message was told (memory locks answer at once)
    const heldWhenTold: Array<Promise<boolean>> = [];
    backend.bus.subscribe("s", () => heldWhenTold.push(backend.locks.isHeld("s")));
    const state = emptyAgentState("s");
    await backend.store.save("s", state, { expectedVersion: 0 });
    steps.length = 0;
    let lease = (await backend.locks.acquire("s"))!;
    let queue = new EventQueue(backend, "s");
    queue.push(delta(1));
    let result = await queue.end({ save: { state, expectedVersion: 1 }, endEvents: [replyEnd()], lease });
    expect(steps).toEqual(["append d1", "save", "append REPLY_END"]);
    expect(result.version).toBe(2);
    expect(result.logged.map((e) => [e.seq, e.event.type])).toEqual([
      [1, "TEXT_BLOCK_DELTA"],
      [2, "REPLY_END"],
    ]);
    // the last delta and the end together: one delivery (one socket write) per follower, not two
    expect(
      heard.map((m) => (m.kind === "events" ? [m.events?.map((e) => e.seq), m.runEnded ?? false] : [])),
    ).toEqual([[[1, 2], true]]);
    expect(await Promise.all(heldWhenTold)).toEqual([false]);
    expect(await backend.locks.isHeld("s")).toBe(false);

    lease = (await backend.locks.acquire("s"))!;
    queue = new EventQueue(backend, "s");
    result = await queue.end({ save: { state, expectedVersion: 1 }, endEvents: [replyEnd()], lease });
    expect(result.saveError).toBeInstanceOf(StateConflictError);
    expect(result.logged.map((e) => e.seq)).toEqual([3]);
    expect((await backend.store.load("s"))?.version).toBe(2);
    expect(await backend.locks.isHeld("s")).toBe(false);
  });

  it("end without endRun: if logging the end events fails, the events logged before are told, and end rejects", async () => {
    const { backend, heard } = recordingBackend();
    const append = backend.events.append.bind(backend.events);
    backend.events.append = (sessionId, events) =>
      events.some((event) => event.type === "REPLY_END")
        ? Promise.reject(new Error("disk full"))
        : append(sessionId, events);
    const lease = (await backend.locks.acquire("s"))!;
    const queue = new EventQueue(backend, "s");
    queue.push(delta(1));
    await expect(queue.end({ endEvents: [replyEnd()], lease })).rejects.toThrow(/disk full/);
    expect(heard).toMatchObject([{ kind: "events", events: [{ seq: 1 }] }]);
    expect(heard[0]).not.toHaveProperty("runEnded");
    expect(await backend.locks.isHeld("s")).toBe(false);
  });

  it("after a failed append, end saves and logs nothing more, and still frees the session", async () => {
    const { backend, steps } = recordingBackend();
    const state = emptyAgentState("s");
    const lease = (await backend.locks.acquire("s"))!;
    backend.events.append = async () => {
      throw new Error("disk full");
    };
    const queue = new EventQueue(backend, "s");
    queue.push(delta(1));
    await new Promise((resolve) => setImmediate(resolve)); // the append has failed
    await expect(
      queue.end({ save: { state, expectedVersion: 0 }, endEvents: [replyEnd()], lease }),
    ).rejects.toThrow(/disk full/);
    expect(steps).toEqual([]);
    expect(await backend.store.load("s")).toBeUndefined();
    expect(await backend.locks.isHeld("s")).toBe(false);
  });

  it("if the backend's endRun fails, end rejects and the lease is released all the same", async () => {
    const { backend } = recordingBackend();
    backend.endRun = async () => {
      throw new Error("connection lost");
    };
    const lease = (await backend.locks.acquire("s"))!;
    const queue = new EventQueue(backend, "s");
    queue.push(delta(1));
    await expect(queue.end({ endEvents: [replyEnd()], lease })).rejects.toThrow(/connection lost/);
    expect(await backend.locks.isHeld("s")).toBe(false);
  });

  it("checkpoint hands the tick's events to the backend's checkpoint with the save; a lost save rejects, the events told", async () => {
    const { backend, appends, heard } = recordingBackend();
    const calls: string[][] = [];
    let conflict = false;
    backend.checkpoint = async ({ events, save }) => {
      calls.push(named(events));
      const logged = await backend.events.append("s", events);
      if (conflict) return { logged, saveError: new StateConflictError("s", save.expectedVersion, 9) };
      return { logged, version: save.expectedVersion + 1 };
    };
    appends.length = 0;
    const state = emptyAgentState("s");
    const queue = new EventQueue(backend, "s");
    queue.push(delta(1));
    await afterHops(2);
    expect(await queue.checkpoint({ state, expectedVersion: 3 })).toBe(4);
    expect(calls).toEqual([["d1"]]);
    expect(appends).toEqual([["d1"]]); // only the checkpoint's own: the queue appended nothing
    expect(heard).toHaveLength(1);

    queue.push(delta(2)); // after a checkpoint the queue appends as before
    await queue.flush();
    expect(appends.at(-1)).toEqual(["d2"]);

    conflict = true;
    queue.push(delta(3));
    await expect(queue.checkpoint({ state, expectedVersion: 4 })).rejects.toBeInstanceOf(StateConflictError);
    expect(heard.at(-1)).toMatchObject({ events: [{ seq: 3 }] });
  });

  it("checkpoint without the backend's checkpoint flushes the log, then saves", async () => {
    const { backend, steps } = recordingBackend();
    const state = emptyAgentState("s");
    const queue = new EventQueue(backend, "s");
    queue.push(delta(1));
    expect(await queue.checkpoint({ state, expectedVersion: 0 })).toBe(1);
    expect(steps).toEqual(["append d1", "save"]);
  });
});
