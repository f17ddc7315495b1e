import { describe, expect, it } from "vitest";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import type { BusMessage } from "../../src/app/server/backend/types.js";
import { EventQueue } from "../../src/app/server/runtime/event-queue.js";
import { type AgentEvent, createEvent } from "../../src/event/index.js";

const delta = (i: number): AgentEvent =>
  createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: `d${i}` });

/** A memory backend whose appends are recorded (the events of each call) and whose bus messages are kept. */
function recordingBackend() {
  const backend = memoryBackend();
  const appends: string[][] = [];
  const append = backend.events.append.bind(backend.events);
  backend.events.append = (sessionId, events) => {
    appends.push(events.map((event) => (event as { delta?: string }).delta ?? event.type));
    return append(sessionId, events);
  };
  const heard: BusMessage[] = [];
  backend.bus.subscribe("s", (message) => heard.push(message));
  return { backend, appends, heard };
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
});
