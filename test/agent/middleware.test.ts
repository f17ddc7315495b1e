import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type Middleware } from "../../src/agent/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import { blocksOf, textOf, userMsg } from "../../src/message/index.js";
import type { ChatChunk } from "../../src/model/core.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { announcer, collect, shape, weather } from "./helpers.js";

const write = functionTool({
  name: "write",
  description: "",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `wrote ${text}`,
});

describe("middleware", () => {
  it("wraps model calls in registration order, outermost first, and may change the input", async () => {
    const log: string[] = [];
    const tracer = (name: string): Middleware => ({
      name,
      async *onModelCall(request, _ctx, next) {
        log.push(`enter ${name}`);
        yield* next({ ...request, messages: [...request.messages, userMsg(`note from ${name}`)] });
        log.push(`exit ${name}`);
      },
    });
    const model = new ScriptedModel([{ text: "ok" }]);
    const agent = new Agent({ name: "a", model, middlewares: [tracer("outer"), tracer("inner")] });
    await agent.reply(userMsg("hi"));
    expect(log).toEqual(["enter outer", "enter inner", "exit inner", "exit outer"]);
    expect(model.calls[0]!.messages.slice(-2).map(textOf)).toEqual(["note from outer", "note from inner"]);
  });

  it("can short-circuit a model call with its own stream", async () => {
    const cached: Middleware = {
      name: "cache",
      async *onModelCall(): AsyncIterable<ChatChunk> {
        yield { type: "text", blockId: "t", delta: "from cache" };
        yield {
          type: "final",
          content: [{ type: "text", id: "t", text: "from cache" }],
          usage: { inputTokens: 0, outputTokens: 0 },
          stopReason: "stop",
        };
      },
    };
    const model = new ScriptedModel([]);
    const agent = new Agent({ name: "a", model, middlewares: [cached] });
    expect(textOf(await agent.reply(userMsg("hi")))).toBe("from cache");
    expect(model.calls).toHaveLength(0);
  });

  it("changes a tool's input and output, and the system prompt", async () => {
    const mw: Middleware = {
      name: "rewrite",
      systemPrompt: (prompt) => `${prompt}\nAlways be polite.`,
      async onToolCall(request, _ctx, next) {
        const out = await next({ ...request, input: { city: "Lyon" } });
        return `${String(out)} (checked)`;
      },
    };
    const model = new ScriptedModel([
      { toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
      { text: "ok" },
    ]);
    const agent = new Agent({
      name: "a",
      systemPrompt: "You help.",
      model,
      toolkit: [weather],
      middlewares: [mw],
    });
    const reply = await agent.reply(userMsg("go"));
    expect(blocksOf(reply, "tool_result")[0]!.output).toBe("sunny in Lyon (checked)");
    expect(textOf(model.calls[0]!.messages[0]!)).toBe("You help.\nAlways be polite.");
  });

  it("wraps the permission check (here: allows what would ask)", async () => {
    const trusting: Middleware = {
      name: "trust",
      async onPermission(request, _ctx, next) {
        const decision = await next(request);
        return decision.behavior === "ask"
          ? { behavior: "allow", reason: "trusted by middleware" }
          : decision;
      },
    };
    const model = new ScriptedModel([
      { toolCalls: [{ name: "write", input: { text: "x" } }] },
      { text: "ok" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [write], middlewares: [trusting] });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(events.some((e) => e.type === "REQUIRE_USER_CONFIRM")).toBe(false);
    expect(blocksOf(agent.state.context.at(-1)!, "tool_result")[0]!.output).toBe("wrote x");
  });

  it("wraps the whole reply and can emit events into it", async () => {
    const agent = new Agent({
      name: "a",
      model: new ScriptedModel([{ text: "ok" }]),
      middlewares: [announcer],
    });
    const events = await collect(agent.replyStream(userMsg("hi")));
    expect(shape(events).slice(0, 3)).toEqual(["REPLY_START", "CUSTOM", "MODEL_CALL_START"]);
    expect(new Set(events.map((e) => e.replyId)).size).toBe(1);
  });

  it("a stop requested before reasoning ends the loop with REQUEST_STOP and REPLY_END stopped", async () => {
    const once: Middleware = {
      name: "one-step",
      beforeReasoning(iteration, ctx) {
        if (iteration > 1) ctx.requestStop("one reasoning step only");
      },
    };
    const model = new ScriptedModel([
      { toolCalls: [{ name: "get_weather", input: { city: "A" } }] },
      { text: "never" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [weather], middlewares: [once] });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(shape(events).slice(-2)).toEqual(["REQUEST_STOP", "REPLY_END"]);
    expect(events.at(-1)).toMatchObject({ finishedReason: "stopped" });
    expect(events.at(-2)).toMatchObject({ reason: "one reasoning step only" });
    expect(model.calls).toHaveLength(1);
  });

  it("a stop requested after reasoning closes the calls it will not run", async () => {
    const stopper: Middleware = {
      name: "stopper",
      afterReasoning: (_reply, ctx) => ctx.requestStop("enough"),
    };
    const model = new ScriptedModel([{ toolCalls: [{ name: "get_weather", input: { city: "A" } }] }]);
    const agent = new Agent({ name: "a", model, toolkit: [weather], middlewares: [stopper] });
    const reply = await agent.reply(userMsg("go"));
    expect(reply.finishedReason).toBe("stopped");
    expect(blocksOf(reply, "tool_result")[0]).toMatchObject({ state: "interrupted" });
  });

  it("a tool can request a stop too", async () => {
    const finish = functionTool({
      name: "finish",
      description: "",
      input: z.object({}),
      readOnly: true,
      execute: (_input, ctx) => {
        ctx.requestStop("task complete");
        return "bye";
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "finish", input: {} }] }, { text: "never" }]);
    const agent = new Agent({ name: "a", model, toolkit: [finish] });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(shape(events).slice(-2)).toEqual(["REQUEST_STOP", "REPLY_END"]);
    expect(model.calls).toHaveLength(1);
  });

  it("keeps per-session data in each session's state: two concurrent sessions do not mix", async () => {
    const counter: Middleware = {
      name: "counter",
      beforeReasoning(_iteration, ctx) {
        const data = ctx.data(() => ({ steps: 0 }));
        data.steps += 1;
      },
    };
    const turns = Array.from({ length: 10 }, () => ({ text: "ok", delayMs: 1 }));
    const agent = new Agent({ name: "a", model: new ScriptedModel(turns), middlewares: [counter] });
    const alice = agent.createState("alice");
    const bob = agent.createState("bob");
    await Promise.all([
      agent.reply(userMsg("1"), { state: alice }).then(() => agent.reply(userMsg("2"), { state: alice })),
      agent.reply(userMsg("1"), { state: bob }),
    ]);
    expect(alice.middleware.counter).toEqual({ steps: 2 });
    expect(bob.middleware.counter).toEqual({ steps: 1 });
  });

  it("sees every event before it is emitted", async () => {
    const seen: string[] = [];
    const watcher: Middleware = { name: "watch", onEvent: (event: AgentEvent) => void seen.push(event.type) };
    const agent = new Agent({
      name: "a",
      model: new ScriptedModel([{ text: "ok" }]),
      middlewares: [watcher],
    });
    const events = await collect(agent.replyStream(userMsg("hi")));
    expect(seen).toEqual(events.map((e) => e.type));
  });
});
