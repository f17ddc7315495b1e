import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { blocksOf, textOf, userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { collect, shape, time, weather } from "./helpers.js";

const TOOL_ROUND = [
  "MODEL_CALL_START",
  "TOOL_CALL_START",
  "TOOL_CALL_DELTA",
  "TOOL_CALL_END",
  "MODEL_CALL_END",
  "TOOL_RESULT_START",
  "TOOL_RESULT_TEXT_DELTA",
  "TOOL_RESULT_END",
];
const TEXT_ROUND = [
  "MODEL_CALL_START",
  "TEXT_BLOCK_START",
  "TEXT_BLOCK_DELTA",
  "TEXT_BLOCK_END",
  "MODEL_CALL_END",
];

describe("the reply loop emits events in order", () => {
  it("text only", async () => {
    const agent = new Agent({ name: "a", model: new ScriptedModel([{ text: "Hello there, friend" }]) });
    const events = await collect(agent.replyStream(userMsg("hi")));
    expect(shape(events)).toEqual(["REPLY_START", ...TEXT_ROUND, "REPLY_END"]);
    const deltas = events.filter((e) => e.type === "TEXT_BLOCK_DELTA");
    expect(deltas.length).toBeGreaterThan(1);
    expect(new Set(events.map((e) => e.replyId)).size).toBe(1);
    const end = events.at(-1)!;
    expect(end.type === "REPLY_END" && end.finishedReason).toBe("completed");
    expect(textOf(agent.state.context.at(-1)!)).toBe("Hello there, friend");
  });

  it("one tool, then the answer", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
      { text: "It is sunny." },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [weather] });
    const events = await collect(agent.replyStream(userMsg("weather?")));
    expect(shape(events)).toEqual(["REPLY_START", ...TOOL_ROUND, ...TEXT_ROUND, "REPLY_END"]);
    const reply = agent.state.context.at(-1)!;
    expect(blocksOf(reply, "tool_result")[0]).toMatchObject({ output: "sunny in Paris", state: "success" });
    expect(blocksOf(reply, "tool_call")[0]!.state).toBe("finished");
    // the second model call saw the call and its result
    const second = model.calls[1]!.messages.at(-1)!;
    expect(blocksOf(second, "tool_result")).toHaveLength(1);
  });

  it("two parallel read-only tools run together", async () => {
    let running = 0;
    let peak = 0;
    const slow = (name: string) =>
      functionTool({
        name,
        description: name,
        input: z.object({}),
        readOnly: true,
        execute: async () => {
          running += 1;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 30));
          running -= 1;
          return name;
        },
      });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "a1", input: {} },
          { name: "a2", input: {} },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [slow("a1"), slow("a2")] });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(peak).toBe(2);
    const starts = events.filter((e) => e.type === "TOOL_RESULT_START").map((e) => e.type);
    expect(starts).toHaveLength(2);
    // both results start before either ends
    const order = events
      .filter((e) => e.type === "TOOL_RESULT_START" || e.type === "TOOL_RESULT_END")
      .map((e) => e.type);
    expect(order).toEqual(["TOOL_RESULT_START", "TOOL_RESULT_START", "TOOL_RESULT_END", "TOOL_RESULT_END"]);
  });

  it("a concurrency-unsafe tool runs alone, then the safe ones run as a parallel batch", async () => {
    const log: string[] = [];
    const tool = (name: string, safe: boolean) =>
      functionTool({
        name,
        description: name,
        input: z.object({}),
        readOnly: true,
        concurrencySafe: safe,
        execute: async () => {
          log.push(`start ${name}`);
          await new Promise((r) => setTimeout(r, 20));
          log.push(`end ${name}`);
          return name;
        },
      });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "unsafe", input: {} },
          { name: "s1", input: {} },
          { name: "s2", input: {} },
        ],
      },
      { text: "ok" },
    ]);
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [tool("unsafe", false), tool("s1", true), tool("s2", true)],
    });
    await agent.reply(userMsg("go"));
    expect(log).toEqual(["start unsafe", "end unsafe", "start s1", "start s2", "end s1", "end s2"]);
  });

  it("a tool that throws becomes an error result the model reads", async () => {
    const boom = functionTool({
      name: "boom",
      description: "fails",
      input: z.object({}),
      readOnly: true,
      execute: () => {
        throw new Error("disk on fire");
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "boom", input: {} }] }, { text: "sorry" }]);
    const agent = new Agent({ name: "a", model, toolkit: [boom] });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(shape(events)).toEqual(["REPLY_START", ...TOOL_ROUND, ...TEXT_ROUND, "REPLY_END"]);
    const result = blocksOf(agent.state.context.at(-1)!, "tool_result")[0]!;
    expect(result.state).toBe("error");
    expect(result.output).toContain("disk on fire");
  });

  it("an unknown tool becomes an error result naming the available tools", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "nope", input: {} }] }, { text: "ok" }]);
    const agent = new Agent({ name: "a", model, toolkit: [weather] });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(shape(events)).toEqual(["REPLY_START", ...TOOL_ROUND, ...TEXT_ROUND, "REPLY_END"]);
    const result = blocksOf(agent.state.context.at(-1)!, "tool_result")[0]!;
    expect(result).toMatchObject({ state: "error" });
    expect(result.output).toContain('no tool named "nope"');
    expect(result.output).toContain("get_weather");
  });

  it("arguments that are not JSON become an error result", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "get_weather", input: '{"city": "Par' }] },
      { text: "ok" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [weather] });
    await agent.reply(userMsg("go"));
    const result = blocksOf(agent.state.context.at(-1)!, "tool_result")[0]!;
    expect(result.state).toBe("error");
    expect(result.output).toContain("not valid JSON");
  });

  it("arguments that violate the schema go back to the model, which corrects itself", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "get_weather", input: { town: "Paris" } }] },
      (messages) => {
        const results = blocksOf(messages.at(-1)!, "tool_result");
        expect(results[0]!.output).toContain("city");
        return { toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] };
      },
      { text: "sunny" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [weather] });
    const reply = await agent.reply(userMsg("go"));
    const results = blocksOf(reply, "tool_result");
    expect(results.map((r) => r.state)).toEqual(["error", "success"]);
    expect(results[1]!.output).toBe("sunny in Paris");
    expect(reply.finishedReason).toBe("completed");
  });

  it("stops at max iterations with EXCEED_MAX_ITERS then REPLY_END exceed_max_iters", async () => {
    const loop = { toolCalls: [{ name: "get_weather", input: { city: "X" } }] };
    const model = new ScriptedModel([loop, loop, loop]);
    const agent = new Agent({ name: "a", model, toolkit: [weather], maxIters: 2 });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(shape(events).slice(-2)).toEqual(["EXCEED_MAX_ITERS", "REPLY_END"]);
    const end = events.at(-1)!;
    expect(end.type === "REPLY_END" && end.finishedReason).toBe("exceed_max_iters");
    expect(model.calls).toHaveLength(2);
    expect(agent.state.replyContext).toBeUndefined();
  });

  it("a model error ends the reply with REPLY_END error and leaves the state usable", async () => {
    const model = new ScriptedModel([
      { error: { type: "rate_limit", message: "slow down" } },
      { text: "back again" },
    ]);
    const agent = new Agent({ name: "a", model });
    const events = await collect(agent.replyStream(userMsg("hi")));
    const end = events.at(-1)!;
    expect(shape(events)).toEqual(["REPLY_START", "MODEL_CALL_START", "MODEL_CALL_END", "REPLY_END"]);
    expect(end.type === "REPLY_END" && end.finishedReason).toBe("error");
    expect(end.type === "REPLY_END" && end.error).toMatchObject({ type: "rate_limit", message: "slow down" });
    const next = await agent.reply(userMsg("again"));
    expect(textOf(next)).toBe("back again");
  });

  it("an error in the middle of a stream closes the open blocks and calls", async () => {
    const model = new ScriptedModel([
      {
        text: "partial answer",
        toolCalls: [{ name: "get_weather", input: { city: "Paris" } }],
        error: new Error("socket hang up"),
        errorAfter: 6,
      },
      { text: "ok" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [weather] });
    const reply = await agent.reply(userMsg("hi"));
    expect(reply.finishedReason).toBe("error");
    expect(reply.error?.message).toContain("socket hang up");
    for (const call of blocksOf(reply, "tool_call")) {
      expect(blocksOf(reply, "tool_result").some((r) => r.id === call.id)).toBe(true);
    }
    expect(textOf(await agent.reply(userMsg("again")))).toBe("ok");
  });

  it("fails over to the fallback model and says so in MODEL_CALL_START", async () => {
    const primary = new ScriptedModel([{ error: { type: "upstream", message: "503" } }], { name: "primary" });
    const fallback = new ScriptedModel([{ text: "from fallback" }], { name: "backup" });
    const agent = new Agent({ name: "a", model: primary, fallbackModel: fallback });
    const events = await collect(agent.replyStream(userMsg("hi")));
    const starts = events.filter((e) => e.type === "MODEL_CALL_START");
    expect(starts.map((e) => e.type === "MODEL_CALL_START" && [e.modelName, e.fallbackFrom])).toEqual([
      ["primary", undefined],
      ["backup", "primary"],
    ]);
    expect(textOf(agent.state.context.at(-1)!)).toBe("from fallback");
  });

  it("runs two tools in one reply across iterations and counts usage", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [{ name: "get_weather", input: { city: "A" } }],
        usage: { inputTokens: 10, outputTokens: 2 },
      },
      {
        toolCalls: [{ name: "get_time", input: { city: "A" } }],
        usage: { inputTokens: 20, outputTokens: 3 },
      },
      { text: "done", usage: { inputTokens: 30, outputTokens: 4 } },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [weather, time] });
    const reply = await agent.reply(userMsg("go"));
    expect(reply.usage).toEqual({ inputTokens: 60, outputTokens: 9 });
    expect(blocksOf(reply, "tool_result").map((r) => r.output)).toEqual(["sunny in A", "noon in A"]);
  });
});
