import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { announcer, collect, weather } from "./helpers.js";

/** The events without what differs from one run to the next (ids, times). */
const comparable = (events: AgentEvent[]) =>
  events.map(({ id: _id, createdAt: _at, replyId: _reply, ...rest }) => {
    const { blockId: _b, toolCallId: _t, sessionId: _s, ...kept } = rest as Record<string, unknown>;
    return kept;
  });

const script = () =>
  new ScriptedModel([
    { toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
    { text: "It is sunny in Paris, as it was yesterday" },
  ]);

describe("Agent.replyTo", () => {
  it("hands over, in order, the very events replyStream yields, and leaves the same state", async () => {
    const streamed = new Agent({ name: "a", model: script(), toolkit: [weather] });
    const handed = new Agent({ name: "a", model: script(), toolkit: [weather] });
    const expected = await collect(streamed.replyStream(userMsg("weather in Paris?")));
    const events: AgentEvent[] = [];
    await handed.replyTo(userMsg("weather in Paris?"), (event) => events.push(event));
    expect(comparable(events)).toEqual(comparable(expected));
    expect(events.filter((e) => e.type === "TEXT_BLOCK_DELTA").length).toBeGreaterThan(1);
    expect(new Set(events.map((e) => e.replyId)).size).toBe(1);
    expect(handed.state.context.at(-1)).toMatchObject({
      role: "assistant",
      finishedReason: "completed",
      content: [...streamed.state.context.at(-1)!.content].map((b) => ({ type: b.type })),
    });
  });

  it("hands each event over as it is emitted, before the model's next chunk is read", async () => {
    const model = new ScriptedModel([{ text: "one two three four five" }]);
    const agent = new Agent({ name: "a", model });
    const seen: string[] = [];
    const stream = model.stream.bind(model);
    model.stream = async function* (messages, options) {
      for await (const chunk of stream(messages, options)) {
        seen.push(`model:${chunk.type}`);
        yield chunk;
      }
    };
    await agent.replyTo(userMsg("count"), (event) => {
      if (event.type === "TEXT_BLOCK_DELTA") seen.push("event:delta");
    });
    // every delta reaches the consumer before the model is asked for the next chunk
    const order = seen.filter((s) => s === "model:text" || s === "event:delta");
    expect(order.length).toBeGreaterThan(2);
    for (let i = 0; i < order.length; i += 2)
      expect(order.slice(i, i + 2)).toEqual(["model:text", "event:delta"]);
  });

  it("rejects an input error before any event, changing nothing", async () => {
    const agent = new Agent({ name: "a", model: new ScriptedModel([{ text: "hi" }]) });
    const events: AgentEvent[] = [];
    const bad = {
      id: "m1",
      name: "u",
      role: "user",
      content: [{ type: "tool_call", id: "c", name: "x", input: {} }],
    };
    await expect(agent.replyTo(bad as never, (event) => events.push(event))).rejects.toThrow();
    expect(events).toEqual([]);
    expect(agent.state.context).toEqual([]);
  });

  it("with onReply middleware, forwards the hooks' stream (what a hook adds included)", async () => {
    const agent = new Agent({
      name: "a",
      model: new ScriptedModel([{ text: "ok" }]),
      middlewares: [announcer],
    });
    const events: AgentEvent[] = [];
    await agent.replyTo(userMsg("hi"), (event) => events.push(event));
    expect(events.map((e) => e.type)).toContain("CUSTOM");
    expect(events.at(-1)?.type).toBe("REPLY_END");
  });

  it("an interrupt with nothing in flight hands over nothing and resolves", async () => {
    const agent = new Agent({ name: "a", model: new ScriptedModel([{ text: "hi" }]) });
    const events: AgentEvent[] = [];
    await agent.replyTo({ type: "USER_INTERRUPT" } as never, (event) => events.push(event));
    expect(events).toEqual([]);
  });
});
