import { describe, expect, it } from "vitest";
import { EventBatches, type EventStep } from "../../src/agent/event-batches.js";
import { Agent } from "../../src/agent/index.js";
import { type AgentEvent, createEvent } from "../../src/event/index.js";
import { textOf, userMsg } from "../../src/message/index.js";
import type { BatchedChatStream, ChatChunk, ChatModel } from "../../src/model/index.js";

const delta = (text: string): AgentEvent =>
  createEvent("TEXT_BLOCK_DELTA", { replyId: "r", blockId: "b", delta: text });

const texts = (events: AgentEvent[]) => events.map((e) => (e.type === "TEXT_BLOCK_DELTA" ? e.delta : e.type));

describe("EventBatches", () => {
  it("hands out single events and every event of a batch, one per next(), in order", async () => {
    async function* steps(): AsyncGenerator<EventStep> {
      yield delta("a");
      yield [delta("b"), delta("c"), delta("d")];
      yield delta("e");
    }
    const seen: AgentEvent[] = [];
    for await (const event of new EventBatches(steps())) seen.push(event);
    expect(texts(seen)).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("keeps the order when next() is called again before the last call settled", async () => {
    async function* steps(): AsyncGenerator<EventStep> {
      await new Promise((resolve) => setTimeout(resolve, 5));
      yield [delta("a"), delta("b")];
      yield delta("c");
    }
    const stream = new EventBatches(steps());
    const results = await Promise.all([stream.next(), stream.next(), stream.next(), stream.next()]);
    expect(results.map((r) => (r.done ? "done" : texts([r.value])[0]))).toEqual(["a", "b", "c", "done"]);
  });

  it("breaking out of for await runs the generator's finally and drops the rest of the batch", async () => {
    let closed = false;
    async function* steps(): AsyncGenerator<EventStep> {
      try {
        yield [delta("a"), delta("b"), delta("c")];
        yield delta("never");
      } finally {
        closed = true;
      }
    }
    const stream = new EventBatches(steps());
    for await (const event of stream) if (texts([event])[0] === "a") break;
    expect(closed).toBe(true);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it("Symbol.asyncDispose (what `await using` calls) ends the run like return()", async () => {
    let closed = false;
    async function* steps(): AsyncGenerator<EventStep> {
      try {
        yield [delta("a"), delta("b")];
        yield delta("never");
      } finally {
        closed = true;
      }
    }
    const stream = new EventBatches(steps());
    expect(texts([(await stream.next()).value as AgentEvent])).toEqual(["a"]);
    const dispose = (stream as unknown as Record<symbol, () => Promise<void>>)[Symbol.asyncDispose];
    expect(typeof dispose).toBe("function");
    await dispose!.call(stream);
    expect(closed).toBe(true);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it("return() while a next() waits ends after it: no event of that batch comes out later", async () => {
    let closed = false;
    async function* steps(): AsyncGenerator<EventStep> {
      try {
        await new Promise((resolve) => setTimeout(resolve, 5));
        yield [delta("a"), delta("b"), delta("c")];
      } finally {
        closed = true;
      }
    }
    const stream = new EventBatches(steps());
    const first = stream.next();
    const ended = stream.return();
    expect(texts([((await first) as IteratorYieldResult<AgentEvent>).value])).toEqual(["a"]);
    expect(await ended).toEqual({ value: undefined, done: true });
    expect(closed).toBe(true);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it("a failure of the generator rejects next(), after the events before it", async () => {
    async function* steps(): AsyncGenerator<EventStep> {
      yield [delta("a"), delta("b")];
      throw new Error("model went away");
    }
    const seen: AgentEvent[] = [];
    await expect(
      (async () => {
        for await (const event of new EventBatches(steps())) seen.push(event);
      })(),
    ).rejects.toThrow("model went away");
    expect(texts(seen)).toEqual(["a", "b"]);
  });

  it("throw() reaches the generator", async () => {
    let caught: unknown;
    async function* steps(): AsyncGenerator<EventStep> {
      try {
        yield delta("a");
      } catch (error) {
        caught = error;
      }
    }
    const stream = new EventBatches(steps());
    await stream.next();
    expect(await stream.throw(new Error("stop"))).toEqual({ value: undefined, done: true });
    expect((caught as Error).message).toBe("stop");
  });
});

/** A model whose stream hands the agent its chunks in reads of several, as the HTTP transport does. */
function batchedModel(reads: string[][]): ChatModel {
  return {
    name: "batched",
    provider: "test",
    contextSize: 100_000,
    countTokens: () => 1,
    stream(): BatchedChatStream {
      const full = reads.flat().join("");
      const final: ChatChunk = {
        type: "final",
        content: [{ type: "text", id: "t", text: full }],
        usage: { inputTokens: 1, outputTokens: 1 },
        stopReason: "stop",
      };
      async function* batches(): AsyncGenerator<readonly ChatChunk[]> {
        for (const read of reads)
          yield read.map((text) => ({ type: "text", blockId: "t", delta: text }) as const);
        yield [final];
      }
      return {
        batches,
        async *[Symbol.asyncIterator]() {
          for await (const batch of batches()) yield* batch;
        },
      };
    },
  };
}

describe("replyStream over a batched model stream", () => {
  it("yields every delta of every read once, in order, and folds them into the reply", async () => {
    const reads = [
      ["Hel", "lo"],
      ["", ", "],
      ["wor", "ld", "!"],
    ];
    const agent = new Agent({ name: "a", model: batchedModel(reads) });
    const events: AgentEvent[] = [];
    for await (const event of agent.replyStream(userMsg("hi"))) events.push(event);
    const deltas = events.filter((e) => e.type === "TEXT_BLOCK_DELTA").map((e) => texts([e])[0]);
    expect(deltas).toEqual(["Hel", "lo", ", ", "wor", "ld", "!"]);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(events.at(-1)?.type).toBe("REPLY_END");
    expect(textOf(agent.state.context.at(-1)!)).toBe("Hello, world!");
  });

  it("a consumer that stops mid-read ends the reply's run (the agent takes another reply)", async () => {
    const agent = new Agent({ name: "a", model: batchedModel([["a", "b", "c"], ["d"]]) });
    for await (const event of agent.replyStream(userMsg("hi")))
      if (event.type === "TEXT_BLOCK_DELTA" && event.delta === "b") break;
    const again: AgentEvent[] = [];
    for await (const event of agent.replyStream(userMsg("again"))) again.push(event);
    expect(again.at(-1)?.type).toBe("REPLY_END");
  });
});
