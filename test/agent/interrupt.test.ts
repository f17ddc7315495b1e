import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { blocksOf, textOf, userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { collect } from "./helpers.js";

/** Every tool call in the context has a result: the invariant every provider needs. */
function expectPaired(agent: Agent) {
  for (const msg of agent.state.context) {
    const results = new Set(blocksOf(msg, "tool_result").map((r) => r.id));
    for (const call of blocksOf(msg, "tool_call")) expect(results.has(call.id)).toBe(true);
  }
}

describe("interruption through the AbortSignal", () => {
  it("while the model streams: REPLY_END interrupted, context valid, the next reply works", async () => {
    const model = new ScriptedModel([
      { text: "a long answer that takes a while", toolCalls: [{ name: "slow", input: {} }], delayMs: 5 },
      { text: "fresh start" },
    ]);
    const slow = functionTool({
      name: "slow",
      description: "",
      input: z.object({}),
      readOnly: true,
      execute: () => "x",
    });
    const agent = new Agent({ name: "a", model, toolkit: [slow] });
    const controller = new AbortController();
    const events = [];
    for await (const event of agent.replyStream(userMsg("hi"), { signal: controller.signal })) {
      events.push(event);
      if (
        event.type === "TEXT_BLOCK_DELTA" &&
        events.filter((e) => e.type === "TEXT_BLOCK_DELTA").length === 2
      ) {
        controller.abort();
      }
    }
    const end = events.at(-1)!;
    expect(end.type === "REPLY_END" && end.finishedReason).toBe("interrupted");
    expect(events.some((e) => e.type === "MODEL_CALL_END")).toBe(true);
    expect(events.some((e) => e.type === "TEXT_BLOCK_END")).toBe(true);
    expectPaired(agent);
    expect(agent.state.replyContext).toBeUndefined();
    expect(textOf(await agent.reply(userMsg("again")))).toBe("fresh start");
  });

  it("while a tool runs: the tool sees the signal, its result is interrupted with the output so far", async () => {
    let sawAbort = false;
    const controller = new AbortController();
    const stream = functionTool({
      name: "tail_log",
      description: "streams lines",
      input: z.object({}),
      readOnly: true,
      async *execute(_input, ctx) {
        yield "line 1\n";
        controller.abort("user pressed stop");
        if (!ctx.signal.aborted)
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
        sawAbort = ctx.signal.aborted;
        yield "line 2\n";
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "tail_log", input: {} }] },
      { text: "next reply" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [stream] });
    const events = await collect(agent.replyStream(userMsg("go"), { signal: controller.signal }));
    expect(sawAbort).toBe(true);
    const end = events.at(-1)!;
    expect(end.type === "REPLY_END" && end.finishedReason).toBe("interrupted");
    const result = blocksOf(agent.state.context.at(-1)!, "tool_result")[0]!;
    expect(result.state).toBe("interrupted");
    expect(result.output).toContain("line 1");
    expect(result.output).not.toContain("line 2");
    expectPaired(agent);
    expect(textOf(await agent.reply(userMsg("again")))).toBe("next reply");
  });

  it("a tool that ignores the signal is abandoned with an interrupted result", async () => {
    const controller = new AbortController();
    const stubborn = functionTool({
      name: "stubborn",
      description: "",
      input: z.object({}),
      readOnly: true,
      execute: () => {
        setTimeout(() => controller.abort(), 10);
        return new Promise(() => {});
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "stubborn", input: {} }] }]);
    const agent = new Agent({ name: "a", model, toolkit: [stubborn] });
    const reply = await agent.reply(userMsg("go"), { signal: controller.signal });
    expect(reply.finishedReason).toBe("interrupted");
    expect(blocksOf(reply, "tool_result")[0]!.state).toBe("interrupted");
  });

  it("a reply whose consumer stopped reading is repaired before the next reply", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "a1", input: {} },
          { name: "a2", input: {} },
        ],
      },
      { text: "recovered" },
    ]);
    const tool = (name: string) =>
      functionTool({
        name,
        description: "",
        input: z.object({}),
        readOnly: true,
        concurrencySafe: false,
        execute: () => name,
      });
    const agent = new Agent({ name: "a", model, toolkit: [tool("a1"), tool("a2")] });
    for await (const event of agent.replyStream(userMsg("go"))) {
      if (event.type === "TOOL_RESULT_END") break; // a1 finished, a2 never ran
    }
    const cut = agent.state.context.at(-1)!;
    const reply = await agent.reply(userMsg("continue"));
    expect(textOf(reply)).toBe("recovered");
    expect(cut.finishedReason).toBe("interrupted");
    expect(blocksOf(cut, "tool_result").map((r) => [r.name, r.state])).toEqual([
      ["a1", "success"],
      ["a2", "interrupted"],
    ]);
    expectPaired(agent);
  });

  it("a second reply on the same session while one runs is refused", async () => {
    const model = new ScriptedModel([{ text: "slow", delayMs: 5 }]);
    const agent = new Agent({ name: "a", model });
    const first = agent.replyStream(userMsg("one"));
    await first.next();
    await expect(agent.reply(userMsg("two"))).rejects.toThrow(/already running/);
    await collect(first);
  });
});
