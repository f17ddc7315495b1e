import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import type { AgentEvent, ModelCallEndEvent } from "../../src/event/index.js";
import { sessionCost } from "../../src/message/index.js";
import { AnthropicModel } from "../../src/model/anthropic/anthropic-model.js";
import { GeminiModel } from "../../src/model/gemini/gemini-model.js";
import { OpenAIChatModel } from "../../src/model/openai/chat-model.js";
import { OpenAIResponsesModel } from "../../src/model/openai/responses-model.js";
import { type PricingTable, pricingTable } from "../../src/model/pricing/index.js";
import type { ChatModel } from "../../src/model/types.js";
import { functionTool, type Tool } from "../../src/tool/index.js";
import { replyThroughAgent } from "../model/helpers/agent-reply.js";
import { PROVIDER_CASES } from "../model/helpers/provider-cases.js";
import { cassette, chunkPayloads, geminiSse, recordedText } from "../model/helpers/recorded-wire.js";
import { responsesBodies } from "../model/helpers/replay.js";
import { wireServerForFile } from "../model/helpers/wire-server.js";

/**
 * Cost of recorded usage: real provider responses (committed under test/model/fixtures/recorded/)
 * and each provider's own frames, replayed through a real Agent with a pricing table. Every figure
 * is worked out by hand below from the token counts in the recording and the table's price (USD per
 * million tokens); the fold of the events must equal the stored Msg (replyThroughAgent checks it).
 */

const wire = wireServerForFile();
const SSE = { "content-type": "text/event-stream" };
const pricing = pricingTable();
const callEnds = (events: AgentEvent[]) =>
  events.filter((e): e is ModelCallEndEvent => e.type === "MODEL_CALL_END");
const agentOn = (model: ChatModel, prices: PricingTable = pricing, toolkit: Tool[] = []) =>
  new Agent({ name: "helper", systemPrompt: "Be brief.", model, toolkit, pricing: prices });
const M = 1_000_000;

const calculator = functionTool({
  name: "calculator",
  description: "A minimal calculator for basic arithmetic. Call it once per step.",
  input: z.object({ a: z.number(), b: z.number(), op: z.enum(["add", "subtract", "multiply", "divide"]) }),
  readOnly: true,
  execute: ({ a, b, op }) =>
    String(op === "add" ? a + b : op === "subtract" ? a - b : op === "multiply" ? a * b : a / b),
});

describe("cost of real recorded replies", () => {
  it("OpenAI Chat, gpt-4o-2024-08-06 (openai-python snapshot): 14 input, 30 output at gpt-4o's $2.50/$10", async () => {
    const body = recordedText(
      "openai-chat/e2aad469b71d1d4894ff833ea147020a9d875eb7ce644a0ff355581690a4cbfd.bin",
    );
    wire.queue({ headers: SSE, frames: [body] });
    const model = new OpenAIChatModel({ model: "gpt-4o-2024-08-06", baseURL: `${wire.url}/v1`, apiKey: "k" });
    const { msg, events } = await replyThroughAgent(agentOn(model), "What's the weather like in SF?");
    const usd = (14 * 2.5 + 30 * 10) / M;
    expect(callEnds(events)).toMatchObject([{ inputTokens: 14, outputTokens: 30 }]);
    expect(callEnds(events)[0]?.cost).toEqual({ usd, pricedUsd: usd, priceAsOf: "2025-10-01" });
    expect(msg.cost).toEqual({ usd, pricedUsd: usd });
  });

  it("OpenAI Responses, gpt-5.1-codex-max (vercel/ai recording): four calls summed at gpt-5's $1.25/$10", async () => {
    const bodies = responsesBodies(
      chunkPayloads("openai-responses/openai-reasoning-encrypted-content.1.chunks.txt"),
    );
    wire.queue(...bodies.map((body) => ({ headers: SSE, frames: [body] })));
    const model = new OpenAIResponsesModel({
      model: "gpt-5.1-codex-max",
      baseURL: `${wire.url}/v1`,
      apiKey: "k",
      store: false,
    });
    const { msg, events } = await replyThroughAgent(agentOn(model, pricing, [calculator]), "Compute.");
    const calls = [
      [134, 28],
      [221, 26],
      [260, 26],
      [299, 12],
    ];
    const each = calls.map(([input = 0, output = 0]) => (input * 1.25 + output * 10) / M);
    expect(callEnds(events).map((e) => e.cost?.usd)).toEqual(each);
    expect(msg.cost?.usd).toBeCloseTo((914 * 1.25 + 92 * 10) / M, 15);
    expect(msg.cost?.unpriced).toBeUndefined();
  });

  it("Anthropic, claude-sonnet-4-5-20250929 (pydantic-ai cassette): 92 input, 189 output at $3/$15", async () => {
    const exchange = cassette("anthropic/test_anthropic_model_thinking_part_redacted_stream.yaml")[0];
    wire.queue({ headers: SSE, frames: [exchange?.body ?? ""] });
    const model = new AnthropicModel({
      model: "claude-sonnet-4-5",
      baseURL: wire.url,
      apiKey: "k",
      cache: false,
    });
    const { msg, events } = await replyThroughAgent(agentOn(model), "Think.");
    const usd = (92 * 3 + 189 * 15) / M;
    expect(callEnds(events)[0]).toMatchObject({ modelName: "claude-sonnet-4-5-20250929", cost: { usd } });
    expect(msg.cost).toEqual({ usd, pricedUsd: usd });
  });

  it("Gemini 3 Pro preview (vercel/ai recording) has no built-in price: 'no price', not zero; a user price bills thinking as output", async () => {
    const body = geminiSse(chunkPayloads("gemini/google-reasoning-gemini3.chunks.txt"));
    const model = () =>
      new GeminiModel({ model: "gemini-3-pro-preview", baseURL: `${wire.url}/v1beta`, apiKey: "k" });
    wire.queue({ headers: SSE, frames: [body] });
    const unknown = await replyThroughAgent(agentOn(model()), "Hi");
    expect(unknown.msg.cost).toEqual({ usd: null, pricedUsd: 0, unpriced: ["gemini:gemini-3-pro-preview"] });
    expect(callEnds(unknown.events)[0]?.cost?.usd).toBeNull();

    // 9 prompt tokens; 23 candidate + 302 thought tokens are the output.
    const priced = pricing.with({ "gemini:gemini-3-pro": { input: 2, output: 12, asOf: "2025-11-18" } });
    wire.queue({ headers: SSE, frames: [body] });
    const { msg, events } = await replyThroughAgent(agentOn(model(), priced), "Hi");
    const usd = (9 * 2 + (23 + 302) * 12) / M;
    expect(callEnds(events)[0]).toMatchObject({ inputTokens: 9, outputTokens: 325 });
    expect(callEnds(events)[0]?.cost).toEqual({ usd, pricedUsd: usd, priceAsOf: "2025-11-18" });
    expect(msg.cost).toEqual({ usd, pricedUsd: usd });
  });
});

/** Each provider's frames with these counts, and the cost by hand at the model's built-in price. */
const BY_HAND: Record<
  string,
  { usage: { input: number; output: number; cached?: number }; usd: number | null }
> = {
  // The stream names gpt-4o (the model that answered is priced): 600 fresh input at $2.50, 400 cached at $1.25, 200 output at $10.
  "openai-chat": {
    usage: { input: 1000, output: 200, cached: 400 },
    usd: (600 * 2.5 + 400 * 1.25 + 200 * 10) / M,
  },
  // deepseek-reasoner: 700 cache misses at $0.28, 300 hits at $0.028, 50 output at $0.42.
  "openai-chat (deepseek preset)": {
    usage: { input: 1000, output: 50, cached: 300 },
    usd: (700 * 0.28 + 300 * 0.028 + 50 * 0.42) / M,
  },
  // o3: 900 fresh at $2, 100 cached at $0.50, 40 output at $8.
  "openai-responses": {
    usage: { input: 1000, output: 40, cached: 100 },
    usd: (900 * 2 + 100 * 0.5 + 40 * 8) / M,
  },
  // claude-sonnet-4-5 (priced as claude-sonnet-4): $3 / $15.
  anthropic: { usage: { input: 120, output: 30 }, usd: (120 * 3 + 30 * 15) / M },
  // gemini-2.5-flash: $0.30 / $2.50.
  gemini: { usage: { input: 500, output: 80 }, usd: (500 * 0.3 + 80 * 2.5) / M },
  // llama3.1 on Ollama runs locally: a price of zero, which is a price.
  ollama: { usage: { input: 11, output: 7 }, usd: 0 },
  // qwen-plus: $0.40 / $1.20.
  dashscope: { usage: { input: 11, output: 7 }, usd: (11 * 0.4 + 7 * 1.2) / M },
};

describe.each(PROVIDER_CASES.filter((c) => c.behaviour !== undefined))("cost on $name", (provider) => {
  it("MODEL_CALL_END and the reply Msg carry the cost worked out by hand", async () => {
    const expected = BY_HAND[provider.name];
    if (!expected) throw new Error(`no hand computation for ${provider.name}: add one to BY_HAND`);
    const frames = provider.textWire(["Hel", "lo"], expected.usage);
    wire.queue({
      headers: { "content-type": provider.behaviour?.contentType ?? "text/event-stream" },
      frames: [...frames.open, ...frames.deltas, ...frames.close],
    });
    const model = provider.behaviour?.create(wire.url, { maxRetries: 0 }) as ChatModel;
    const { msg, events } = await replyThroughAgent(agentOn(model), "Hi");
    expect(msg.usage?.inputTokens).toBe(expected.usage.input);
    const cost = callEnds(events)[0]?.cost;
    expect(cost?.usd).toBeCloseTo(expected.usd as number, 15);
    expect(cost?.priceAsOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(msg.cost?.usd).toBeCloseTo(expected.usd as number, 15);
  });
});

describe("cost over a session, and without a pricing table", () => {
  const answer = (input: number, output: number) => {
    const frames = PROVIDER_CASES[0]?.textWire(["ok"], { input, output });
    return { headers: SSE, frames: frames ? [...frames.open, ...frames.deltas, ...frames.close] : [] };
  };
  const gpt = (name = "gpt-4o-mini") =>
    new OpenAIChatModel({ model: name, baseURL: `${wire.url}/v1`, apiKey: "k" });

  it("the session's cost is the sum of its replies", async () => {
    const agent = agentOn(gpt());
    wire.queue(answer(1000, 100), answer(2000, 300));
    await replyThroughAgent(agent, "one");
    await replyThroughAgent(agent, "two");
    // chatCompletionFrames reports the model as gpt-4o: $2.50 / $10.
    const usd = (3000 * 2.5 + 400 * 10) / M;
    expect(sessionCost(agent.state.context)?.usd).toBeCloseTo(usd, 15);
  });

  it("one unpriced reply makes the session's total 'no price' while keeping what the priced ones cost", async () => {
    const agent = agentOn(gpt());
    wire.queue(answer(1000, 100));
    await replyThroughAgent(agent, "one");
    const unpriced = new Agent({
      name: "helper",
      model: gpt(),
      state: agent.state,
      pricing: pricingTable({
        builtin: false,
        prices: { "openai:gpt-5": { input: 1, output: 1, asOf: "2025-01-01" } },
      }),
    });
    wire.queue(answer(10, 10));
    await replyThroughAgent(unpriced, "two");
    expect(sessionCost(agent.state.context)).toEqual({
      usd: null,
      pricedUsd: (1000 * 2.5 + 100 * 10) / M,
      unpriced: ["openai:gpt-4o"],
    });
  });

  it("without a pricing table nothing changes: no cost on MODEL_CALL_END or the Msg", async () => {
    wire.queue(answer(10, 5));
    const agent = new Agent({ name: "helper", model: gpt() });
    const { msg, events } = await replyThroughAgent(agent, "Hi");
    expect(callEnds(events)[0]).not.toHaveProperty("cost");
    expect(msg).not.toHaveProperty("cost");
  });

  it("an Agent refuses a pricing option that is not a PricingTable, naming it", () => {
    expect(
      () =>
        new Agent({ name: "a", model: gpt(), pricing: { "openai:gpt-4o": {} } as unknown as PricingTable }),
    ).toThrow(/pricing/);
  });
});
