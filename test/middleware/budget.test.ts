import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { type AgentEvent, userConfirmResult } from "../../src/event/index.js";
import { blocksOf, type Msg, userMsg } from "../../src/message/index.js";
import { budgetMiddleware } from "../../src/middleware/index.js";
import { ScriptedModel, type ScriptedTurn } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { collect, shape, weather } from "../agent/helpers.js";

const callWeather: ScriptedTurn = { toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] };

function stopOf(events: AgentEvent[]) {
  const stop = events.find((e) => e.type === "REQUEST_STOP");
  const end = events.at(-1)!;
  return {
    tail: shape(events).slice(-2),
    reason: stop?.type === "REQUEST_STOP" ? stop.reason : undefined,
    finishedReason: end.type === "REPLY_END" ? end.finishedReason : undefined,
  };
}

const toolResults = (events: AgentEvent[]) => events.filter((e) => e.type === "TOOL_RESULT_END").length;

describe("budgetMiddleware", () => {
  it("stops after the maximum number of tool calls, with the reason", async () => {
    const model = new ScriptedModel([callWeather, callWeather, callWeather, { text: "done" }]);
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [weather],
      middlewares: [budgetMiddleware({ maxToolCalls: 2 })],
    });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(stopOf(events)).toEqual({
      tail: ["REQUEST_STOP", "REPLY_END"],
      reason: "tool call budget reached: this reply ran 2 tool calls (limit 2)",
      finishedReason: "stopped",
    });
    expect(toolResults(events)).toBe(2);
    expect(model.calls).toHaveLength(2);
    expect(agent.state.context.at(-1)!.finishedReason).toBe("stopped");
  });

  it("stops before the next reasoning step once the reply's tokens reach the limit", async () => {
    const usage = { inputTokens: 60, outputTokens: 40 };
    const model = new ScriptedModel([
      { ...callWeather, usage },
      { ...callWeather, usage },
      { text: "never", usage },
    ]);
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [weather],
      middlewares: [budgetMiddleware({ maxTokens: 150 })],
    });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(stopOf(events)).toEqual({
      tail: ["REQUEST_STOP", "REPLY_END"],
      reason: "token budget reached: this reply used 200 tokens (limit 150)",
      finishedReason: "stopped",
    });
    expect(model.calls).toHaveLength(2);
    expect(toolResults(events)).toBe(2);
  });

  it("stops once the reply has run for the maximum time (checked after each tool call)", async () => {
    let clock = 0;
    const slow = functionTool({
      name: "slow",
      description: "takes a second",
      input: z.object({}),
      readOnly: true,
      execute: () => {
        clock += 1000;
        return "ok";
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "slow" }] },
      { toolCalls: [{ name: "slow" }] },
      { toolCalls: [{ name: "slow" }] },
      { text: "never" },
    ]);
    const budget = budgetMiddleware({ maxWallTimeMs: 1500, now: () => clock });
    const agent = new Agent({ name: "a", model, toolkit: [slow], middlewares: [budget] });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(stopOf(events)).toEqual({
      tail: ["REQUEST_STOP", "REPLY_END"],
      reason: "time budget reached: this reply ran for 2000 ms (limit 1500 ms)",
      finishedReason: "stopped",
    });
    expect(toolResults(events)).toBe(2);
  });

  it("does not count the time a reply waits paused for the user", async () => {
    let clock = 0;
    const note = functionTool({
      name: "write_note",
      description: "Writes a note (asks first)",
      input: z.object({}),
      execute: () => "written",
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "write_note" }] }, { text: "Done." }]);
    const budget = budgetMiddleware({ maxWallTimeMs: 1000, now: () => clock });
    const agent = new Agent({ name: "a", model, toolkit: [note], middlewares: [budget] });
    const first = await collect(agent.replyStream(userMsg("note")));
    const ask = first.find((e) => e.type === "REQUIRE_USER_CONFIRM");
    if (ask?.type !== "REQUIRE_USER_CONFIRM") throw new Error("expected a confirmation request");
    clock += 3_600_000; // the user answers an hour later
    const call = ask.toolCalls[0]!;
    const second = await collect(
      agent.replyStream(
        userConfirmResult({ replyId: ask.replyId, confirmResults: [{ confirmed: true, toolCall: call }] }),
      ),
    );
    const end = second.at(-1)!;
    expect(end.type === "REPLY_END" && end.finishedReason).toBe("completed");
    expect(second.some((e) => e.type === "REQUEST_STOP")).toBe(false);
  });

  it("starts each reply with a fresh budget", async () => {
    const model = new ScriptedModel([callWeather, { text: "one" }, callWeather, { text: "two" }]);
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [weather],
      middlewares: [budgetMiddleware({ maxToolCalls: 2 })],
    });
    for (const text of ["first", "second"]) {
      const events = await collect(agent.replyStream(userMsg(text)));
      expect(stopOf(events).finishedReason).toBe("completed");
    }
    expect(agent.state.middleware.budget).toMatchObject({ toolCalls: 1 });
  });

  it("keeps each session's counters apart when one agent serves two sessions at once", async () => {
    // Each session calls its tool until it has three results, then answers.
    const step = (messages: Msg[]): ScriptedTurn => {
      const results = blocksOf(messages.at(-1)!, "tool_result").length;
      return results < 3 ? callWeather : { text: "answer" };
    };
    const model = new ScriptedModel(Array.from({ length: 20 }, () => step));
    const slowWeather = functionTool({
      name: "get_weather",
      description: "Weather, slowly",
      input: z.object({ city: z.string() }),
      readOnly: true,
      execute: async ({ city }) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return `sunny in ${city}`;
      },
    });
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [slowWeather],
      middlewares: [budgetMiddleware({ maxToolCalls: 2 })],
    });
    const one = agent.createState("one");
    const two = agent.createState("two");
    const [first, second] = await Promise.all([
      collect(agent.replyStream(userMsg("a"), { state: one })),
      collect(agent.replyStream(userMsg("b"), { state: two })),
    ]);
    for (const [events, state] of [
      [first, one],
      [second, two],
    ] as const) {
      expect(toolResults(events)).toBe(2);
      expect(stopOf(events).finishedReason).toBe("stopped");
      expect(state.middleware.budget).toMatchObject({ replyId: events[0]!.replyId, toolCalls: 2 });
    }
  });

  it("rejects a negative limit when it is created", () => {
    expect(() => budgetMiddleware({ maxTokens: -5 })).toThrow(/maxTokens must be a number ≥ 0/);
  });
});
