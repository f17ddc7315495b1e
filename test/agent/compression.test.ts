import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, limitImages, SUMMARY_INSTRUCTIONS } from "../../src/agent/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import { blocksOf, dataBlock, type Msg, textBlock, textOf, userMsg } from "../../src/message/index.js";
import { estimateTokens } from "../../src/model/core.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { collect } from "./helpers.js";

const lookup = functionTool({
  name: "lookup",
  description: "",
  input: z.object({ q: z.string() }),
  readOnly: true,
  execute: ({ q }) => `result for ${q}: ${"data ".repeat(20)}`,
});

const isSummaryCall = (messages: Msg[]) => textOf(messages[0]!).startsWith(SUMMARY_INSTRUCTIONS.slice(0, 40));

/** A model that answers every question, calls a tool every third turn, and summarises when asked. */
function conversationModel(failSummary = false) {
  let turn = 0;
  const step: ScriptedStep = (messages) => {
    if (isSummaryCall(messages)) {
      if (failSummary) return { error: { type: "upstream", message: "summariser down" } };
      return {
        text: "## Task overview\nanswering questions\n## Current state\nmany answered",
        usage: { inputTokens: 50, outputTokens: 7 },
      };
    }
    const last = messages.at(-1)!;
    const pendingCall = last.role === "assistant" && blocksOf(last, "tool_result").length > 0;
    turn += 1;
    if (!pendingCall && turn % 3 === 0) return { toolCalls: [{ name: "lookup", input: { q: `q${turn}` } }] };
    return { text: `answer ${turn}: ${"words ".repeat(15)}` };
  };
  return new ScriptedModel(
    Array.from({ length: 800 }, () => step),
    { contextSize: 3000, chunkSize: 50 },
  );
}

describe("context compression", () => {
  it("keeps a 200-turn conversation under the window; the summary goes right after the system prompt", async () => {
    const model = conversationModel();
    const agent = new Agent({
      name: "a",
      systemPrompt: "You answer.",
      model,
      toolkit: [lookup],
      context: { triggerRatio: 0.8, reserveRatio: 0.2 },
    });
    const compressions: AgentEvent[] = [];
    for (let i = 0; i < 200; i++) {
      const events = await collect(agent.replyStream(userMsg(`question ${i}: ${"please ".repeat(10)}`)));
      compressions.push(...events.filter((e) => e.type === "CUSTOM" && e.name === "context_compressed"));
      expect(events.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
    }
    expect(compressions.length).toBeGreaterThan(3);
    const answerCalls = model.calls.filter((c) => !isSummaryCall(c.messages));
    for (const call of answerCalls) {
      expect(estimateTokens(call.messages, call.options.tools)).toBeLessThanOrEqual(model.contextSize);
      for (const msg of call.messages) {
        const results = new Set(blocksOf(msg, "tool_result").map((r) => r.id));
        for (const toolCall of blocksOf(msg, "tool_call")) expect(results.has(toolCall.id)).toBe(true);
      }
    }
    const after = answerCalls.at(-1)!.messages[0]!;
    expect(after.role).toBe("system");
    expect(after.content.map((b) => (b.type === "text" ? b.text.split("\n")[0] : ""))).toEqual([
      "You answer.",
      "Summary of the earlier conversation:",
    ]);
    expect(agent.state.summary).toContain("## Task overview");
  }, 60_000);

  it("shows the summary call in the stream and counts its tokens in the reply's usage", async () => {
    const model = conversationModel();
    const agent = new Agent({ name: "a", model, context: { triggerRatio: 0.05, reserveRatio: 0.01 } });
    agent.observe([userMsg("old question"), userMsg(`old detail ${"x ".repeat(600)}`)]);
    const events = await collect(agent.replyStream(userMsg("new question")));
    const calls = events.filter((e) => e.type === "MODEL_CALL_END");
    expect(calls[0]).toMatchObject({
      metadata: { purpose: "context_compression" },
      inputTokens: 50,
      outputTokens: 7,
    });
    const reply = agent.state.context.at(-1)!;
    expect(reply.usage!.inputTokens).toBeGreaterThanOrEqual(50);
    expect(agent.state.context.map((m) => textOf(m).slice(0, 12))).toEqual([
      "new question",
      textOf(reply).slice(0, 12),
    ]);
  });

  it("when summarising fails, drops the oldest messages with a marker and the reply goes on", async () => {
    const model = conversationModel(true);
    const agent = new Agent({ name: "a", model, context: { triggerRatio: 0.05, reserveRatio: 0.01 } });
    agent.observe([userMsg(`old ${"x ".repeat(300)}`)]);
    const events = await collect(agent.replyStream(userMsg("new")));
    const truncated = events.find((e) => e.type === "CUSTOM" && e.name === "context_truncated");
    expect(truncated).toMatchObject({ value: { removedMessages: 1, error: "summariser down" } });
    expect(events.at(-1)).toMatchObject({ finishedReason: "completed" });
    expect(agent.state.summary).toContain("1 earlier messages were dropped because summarising them failed");
  });

  it("compresses on demand with agent.compressContext()", async () => {
    const model = conversationModel();
    const agent = new Agent({ name: "a", model, context: { reserveRatio: 0.01 } });
    agent.observe([userMsg("a"), userMsg("b"), userMsg("c")]);
    const result = await agent.compressContext();
    expect(result).toMatchObject({ compressed: true, removedMessages: 2 });
    expect(agent.state.context.map(textOf)).toEqual(["c"]);
    expect(agent.state.summary).toContain("## Current state");
  });

  it("sends only the newest images when maxImages is set", () => {
    const img = () => dataBlock("iVBORw0KGgo=", "image/png");
    const msgs = [userMsg([textBlock("one"), img()]), userMsg([img()]), userMsg([img(), textBlock("three")])];
    const limited = limitImages(msgs, 1);
    expect(limited.map((m) => m.content.map((b) => b.type))).toEqual([
      ["text", "text"],
      ["text"],
      ["data", "text"],
    ]);
    expect(msgs[0]!.content[1]!.type).toBe("data");
  });
});
