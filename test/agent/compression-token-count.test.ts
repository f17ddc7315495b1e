import { describe, expect, it } from "vitest";
import { Agent, SUMMARY_INSTRUCTIONS, type TriggerCount } from "../../src/agent/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import { AnthropicModel } from "../../src/model/anthropic/anthropic-model.js";
import { GeminiModel } from "../../src/model/gemini/gemini-model.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { anthropicFrames, geminiFrames } from "../model/helpers/provider-wire.js";
import { type ScriptedResponse, wireServerForFile } from "../model/helpers/wire-server.js";
import { collect } from "./helpers.js";

/**
 * The compression trigger decided by the provider's token count, through a real Agent and real
 * model adapters against a local server. Window 1,000 tokens, trigger 0.8: compression starts above
 * 800. The history below estimates to ~610 tokens, under the trigger but near it.
 */

const wire = wireServerForFile();
const usage = { input: 5, output: 3 };
const JSON_TYPE = { "content-type": "application/json" };
const LONG = "lorem ipsum ".repeat(200); // 2,400 characters: ~600 estimated tokens

const stream = (frames: { open: string[]; deltas: string[]; close: string[] }): ScriptedResponse => ({
  frames: [...frames.open, ...frames.deltas, ...frames.close],
});
const anthropicCount = (tokens: number): ScriptedResponse => ({
  headers: JSON_TYPE,
  frames: [JSON.stringify({ input_tokens: tokens })],
});
const paths = () => wire.requests.map((r) => r.path);

function claude() {
  return new AnthropicModel({
    model: "claude-sonnet-4-5",
    baseURL: wire.url,
    apiKey: "k",
    contextSize: 1000,
    maxRetries: 0,
  });
}

function agentWithHistory(model: AnthropicModel | GeminiModel, tokenCounter?: "estimate" | "provider") {
  const agent = new Agent({
    name: "a",
    model,
    context: tokenCounter ? { triggerRatio: 0.8, tokenCounter } : { triggerRatio: 0.8 },
  });
  agent.observe(userMsg(LONG));
  return agent;
}

const compressed = (events: AgentEvent[]) =>
  events.flatMap((e) => (e.type === "CUSTOM" && e.name === "context_compressed" ? [e.value] : [])) as Array<{
    trigger?: TriggerCount;
    removedMessages: number;
  }>;

describe("compression trigger from the provider's count", () => {
  it("Anthropic: the estimate is under the trigger, count_tokens says over, so the context is compressed", async () => {
    wire.queue(
      anthropicCount(950),
      stream(anthropicFrames(["## Task overview\nlorem"], usage)),
      stream(anthropicFrames(["Done."], usage)),
    );
    const agent = agentWithHistory(claude());
    const events = await collect(agent.replyStream(userMsg("go on")));
    expect(paths()).toEqual(["/v1/messages/count_tokens", "/v1/messages", "/v1/messages"]);
    const [result] = compressed(events);
    expect(result?.removedMessages).toBe(1);
    expect(result?.trigger).toMatchObject({ source: "provider", tokens: 950, threshold: 800, over: true });
    expect(result!.trigger!.estimate).toBeLessThan(800);
    expect(result!.trigger!.estimate).toBeGreaterThan(480);
    // What was counted is what the model was about to get: the whole history and the new message.
    const counted = JSON.stringify(wire.requests[0]!.body);
    expect(counted).toContain("lorem ipsum lorem");
    expect(counted).toContain("go on");
    const summaryBody = wire.requests[1]!.body as { system: unknown };
    expect(JSON.stringify(summaryBody.system)).toContain(SUMMARY_INSTRUCTIONS.slice(0, 30));
    const answerBody = wire.requests[2]!.body as { system: unknown; messages: unknown };
    expect(JSON.stringify(answerBody.system)).toContain("Summary of the earlier conversation");
    expect(JSON.stringify(answerBody.messages)).not.toContain("lorem ipsum lorem");
    expect(events.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
  });

  it("Gemini: countTokens says over the trigger, the reply compresses the same way", async () => {
    wire.queue(
      { headers: JSON_TYPE, frames: ['{"totalTokens":901}'] },
      stream(geminiFrames(["## Task overview\nlorem"], usage)),
      stream(geminiFrames(["Done."], usage)),
    );
    const gemini = new GeminiModel({
      model: "gemini-2.5-flash",
      baseURL: `${wire.url}/v1beta`,
      apiKey: "g",
      contextSize: 1000,
      maxRetries: 0,
    });
    const events = await collect(agentWithHistory(gemini).replyStream(userMsg("go on")));
    expect(paths()[0]).toBe("/v1beta/models/gemini-2.5-flash:countTokens");
    expect(compressed(events)[0]?.trigger).toMatchObject({ source: "provider", tokens: 901 });
  });

  it("the provider says under: no compression, and its ratio spares the next reply a count", async () => {
    wire.queue(anthropicCount(520), stream(anthropicFrames(["Fine."], usage)));
    const agent = agentWithHistory(claude());
    const first = await collect(agent.replyStream(userMsg("go on")));
    expect(compressed(first)).toEqual([]);
    expect(paths()).toEqual(["/v1/messages/count_tokens", "/v1/messages"]);

    // Still near the trigger by the raw estimate (> 60% of it), but well under it once corrected by
    // the measured ratio (~0.85): no count_tokens round trip.
    wire.requests.length = 0;
    wire.queue(stream(anthropicFrames(["Fine again."], usage)));
    await agent.reply(userMsg("and more"));
    expect(paths()).toEqual(["/v1/messages"]);
  });

  it("clearly under the trigger: the provider is not asked", async () => {
    wire.queue(stream(anthropicFrames(["Hi."], usage)));
    const agent = new Agent({ name: "a", model: claude(), context: { triggerRatio: 0.8 } });
    await agent.reply(userMsg("hello"));
    expect(paths()).toEqual(["/v1/messages"]);
  });

  it("a failing count endpoint falls back to the estimate and the reply goes on", async () => {
    wire.queue(
      {
        status: 404,
        headers: JSON_TYPE,
        frames: ['{"type":"error","error":{"type":"not_found_error","message":"Not found"}}'],
      },
      stream(anthropicFrames(["Done."], usage)),
    );
    const agent = agentWithHistory(claude());
    const events = await collect(agent.replyStream(userMsg("go on")));
    expect(paths()).toEqual(["/v1/messages/count_tokens", "/v1/messages"]);
    expect(compressed(events)).toEqual([]); // the estimate (~610) is under 800
    expect(events.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
  });

  it("offline: a ScriptedModel scripting a provider count drives the trigger the same way", async () => {
    const model = new ScriptedModel([{ text: "## Task overview\nlorem" }, { text: "Done." }], {
      contextSize: 1000,
      countInputTokens: () => 950,
    });
    const agent = new Agent({ name: "a", model, context: { triggerRatio: 0.8 } });
    agent.observe(userMsg(LONG));
    const events = await collect(agent.replyStream(userMsg("go on")));
    expect(model.counts).toHaveLength(1);
    expect(compressed(events)[0]?.trigger).toMatchObject({ source: "provider", tokens: 950 });
    expect(agent.state.summary).toContain("Task overview");
  });

  it('tokenCounter: "estimate" never asks the provider', async () => {
    wire.queue(stream(anthropicFrames(["Done."], usage)));
    const agent = agentWithHistory(claude(), "estimate");
    await agent.reply(userMsg("go on"));
    expect(paths()).toEqual(["/v1/messages"]);
  });
});
