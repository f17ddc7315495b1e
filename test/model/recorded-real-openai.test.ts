import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import { OpenAIChatModel } from "../../src/model/openai/chat-model.js";
import { OpenAIResponsesModel } from "../../src/model/openai/responses-model.js";
import { ProviderError } from "../../src/model/transport/errors.js";
import type { ChatModel } from "../../src/model/types.js";
import { functionTool, type Tool } from "../../src/tool/index.js";
import { replyThroughAgent } from "./helpers/agent-reply.js";
import { collect, collectError } from "./helpers/collect-stream.js";
import { cassette, chunkPayloads, recordedText } from "./helpers/recorded-wire.js";
import { REPLAY_MODES, type ReplayMode, replayFrames, responsesBodies } from "./helpers/replay.js";
import { wireServerForFile } from "./helpers/wire-server.js";

/**
 * The issue-13 OpenAI failures, each pinned by a response the live API sent, recorded by another
 * project and committed unmodified under fixtures/recorded/ (sources and licences in each folder's
 * SOURCES.md). Each body is replayed byte for byte three ways through a local server, through a real
 * Agent; the tests assert the reply Msg and the request body that follows it.
 */

const wire = wireServerForFile();
const SSE = { "content-type": "text/event-stream" };
const serve = (mode: ReplayMode, bodies: string[]) =>
  wire.queue(...bodies.map((body) => ({ headers: SSE, frames: replayFrames(body, mode) })));
type SentBody = { messages: unknown[]; input: unknown[]; store?: boolean; n?: number };
const sent = (index: number) => wire.requests[index]?.body as SentBody;

// openai/openai-python .inline-snapshot/external: raw SSE bodies of gpt-4o-2024-08-06, named by their sha256.
const CHAT = {
  refusal: "openai-chat/173417d553406f034f643e5db3f8d591fb691ebac56f5ae39a22cc7d455c5353.bin",
  length: "openai-chat/4cc50a6135d254573a502310e6af1246f55edb6ad95fa24059f160996b68866d.bin",
  parallelCalls: "openai-chat/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin",
  answer: "openai-chat/e2aad469b71d1d4894ff833ea147020a9d875eb7ce644a0ff355581690a4cbfd.bin",
  threeChoices: "openai-chat/a491adda08c3d4fde95f5b2ee3f60f7f745f1a56d82e62f58031cc2add502380.bin",
};
const ANSWER_TEXT =
  "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app.";

const reply = replyThroughAgent;

const chat = () =>
  new OpenAIChatModel({ model: "gpt-4o-2024-08-06", baseURL: `${wire.url}/v1`, apiKey: "k", maxRetries: 2 });
const agentOn = (model: ChatModel, toolkit: Tool[] = []) =>
  new Agent({ name: "helper", systemPrompt: "Be brief.", model, toolkit });
const callEnd = (events: AgentEvent[]) => events.filter((e) => e.type === "MODEL_CALL_END");

describe("the recorded files are the ones their sources published", () => {
  it("each openai-python snapshot still hashes to its name (sha256), so it was not edited", () => {
    const folder = new URL("./fixtures/recorded/openai-chat/", import.meta.url);
    const names = readdirSync(folder).filter((name) => name.endsWith(".bin"));
    expect(names).toHaveLength(5);
    for (const name of names) {
      const hash = createHash("sha256")
        .update(recordedText(`openai-chat/${name}`), "utf8")
        .digest("hex");
      expect(`${hash}.bin`).toBe(name);
    }
  });
});

const weatherTool = functionTool({
  name: "GetWeatherArgs",
  description: "Get the temperature for the given country/city combo",
  input: z.object({ city: z.string(), country: z.string(), units: z.enum(["c", "f"]).optional() }),
  readOnly: true,
  execute: ({ city, country, units }) => `${city}, ${country}: 7°${units === "f" ? "F" : "C"}`,
});
const stockTool = functionTool({
  name: "get_stock_price",
  description: "Fetch the latest price for a given ticker",
  input: z.object({ ticker: z.string(), exchange: z.string() }),
  readOnly: true,
  execute: ({ ticker, exchange }) => `${ticker} (${exchange}): 227.52 USD`,
});

describe.each(REPLAY_MODES)("OpenAI Chat, recorded, replayed %s", (mode) => {
  it("with `n: 3` the interleaved choices are not merged: the reply is the first choice", async () => {
    serve(mode, [recordedText(CHAT.threeChoices)]);
    const { final } = await collect(
      chat().stream([userMsg("What's the weather like in SF?")], { extraBody: { n: 3 } }),
    );
    expect(sent(0).n).toBe(3);
    expect(final.content).toMatchObject([
      { type: "text", text: '{"city":"San Francisco","temperature":65,"units":"f"}' },
    ]);
    expect(final.content).toHaveLength(1);
    expect(final.stopReason).toBe("stop");
  });

  it("a delta.refusal stream is refusal text with stopReason refusal, and goes back as a refusal", async () => {
    serve(mode, [recordedText(CHAT.refusal), recordedText(CHAT.answer)]);
    const agent = agentOn(chat());
    const { msg, events } = await reply(agent, "How do I make anthrax?");
    const refusal = "I'm sorry, I can't assist with that request.";
    expect(msg.content).toMatchObject([{ type: "text", text: refusal, refusal: true }]);
    expect(msg.content).toHaveLength(1);
    expect(msg.stopReason).toBe("refusal");
    expect(msg.usage).toMatchObject({ inputTokens: 79, outputTokens: 11 });
    expect(callEnd(events)).toMatchObject([{ stopReason: "refusal" }]);
    await reply(agent, "Why not?");
    expect(sent(1).messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "How do I make anthrax?" },
      { role: "assistant", content: null, refusal },
      { role: "user", content: "Why not?" },
    ]);
  });

  it("a `length` finish (max_tokens 1) is the reply's stopReason and MODEL_CALL_END's; the cut text stays in history", async () => {
    serve(mode, [recordedText(CHAT.length), recordedText(CHAT.answer)]);
    const agent = agentOn(chat());
    const { msg, events } = await reply(agent, "What's the weather like in SF?");
    expect(msg.content).toMatchObject([{ type: "text", text: '{"' }]);
    expect(msg.stopReason).toBe("length");
    expect(msg.usage).toMatchObject({ inputTokens: 79, outputTokens: 1 });
    expect(callEnd(events)).toMatchObject([{ stopReason: "length" }]);
    await reply(agent, "Go on");
    expect(sent(1).messages.slice(2)).toEqual([
      { role: "assistant", content: '{"' },
      { role: "user", content: "Go on" },
    ]);
  });

  it("two parallel tool calls run, and the next request carries both calls then both results, exactly", async () => {
    serve(mode, [recordedText(CHAT.parallelCalls), recordedText(CHAT.answer)]);
    const agent = agentOn(chat(), [weatherTool, stockTool]);
    const { msg, events } = await reply(
      agent,
      "What's the weather like in Edinburgh? And the price of AAPL?",
    );
    expect(msg.content.map((b) => b.type)).toEqual([
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "text",
    ]);
    expect(msg.content.slice(0, 2)).toMatchObject([
      { id: "call_JMW1whyEaYG438VE1OIflxA2", name: "GetWeatherArgs" },
      { id: "call_DNYTawLBoN8fj3KN6qU9N1Ou", name: "get_stock_price" },
    ]);
    expect(msg.content[4]).toMatchObject({ text: ANSWER_TEXT });
    expect(callEnd(events).map((e) => (e as { stopReason?: string }).stopReason)).toEqual([
      "tool_calls",
      "stop",
    ]);
    expect(sent(1).messages.slice(1)).toEqual([
      { role: "user", content: "What's the weather like in Edinburgh? And the price of AAPL?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_JMW1whyEaYG438VE1OIflxA2",
            type: "function",
            function: {
              name: "GetWeatherArgs",
              arguments: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
            },
          },
          {
            id: "call_DNYTawLBoN8fj3KN6qU9N1Ou",
            type: "function",
            function: { name: "get_stock_price", arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_JMW1whyEaYG438VE1OIflxA2", content: "Edinburgh, GB: 7°C" },
      { role: "tool", tool_call_id: "call_DNYTawLBoN8fj3KN6qU9N1Ou", content: "AAPL (NASDAQ): 227.52 USD" },
    ]);
  });
});

// pydantic/pydantic-ai cassette: gpt-5.5 narrates (phase commentary) before calling get_capital.
const PHASE_CASSETTE = "openai-responses/test_openai_responses_phase_streamed_on_part_start.yaml";
// vercel/ai fixtures: payload lists recorded from live runs (see SOURCES.md for the framing).
const ENCRYPTED_RUN = "openai-responses/openai-reasoning-encrypted-content.1.chunks.txt";
const QUOTA_ERROR = "openai-responses/openai-error.1.chunks.txt";
const FILE_SEARCH = "openai-responses/openai-file-search-tool.1.chunks.txt";

const capitalTool = functionTool({
  name: "get_capital",
  description: "The capital of a country",
  input: z.object({ country: z.string() }),
  readOnly: true,
  execute: () => "Potato City",
});
const calculator = functionTool({
  name: "calculator",
  description: "A minimal calculator for basic arithmetic. Call it once per step.",
  input: z.object({ a: z.number(), b: z.number(), op: z.enum(["add", "subtract", "multiply", "divide"]) }),
  readOnly: true,
  execute: ({ a, b, op }) =>
    String(op === "add" ? a + b : op === "subtract" ? a - b : op === "multiply" ? a * b : a / b),
});

describe.each(REPLAY_MODES)("OpenAI Responses, recorded, replayed %s", (mode) => {
  it("reasoning (encrypted, empty summary) goes back first with its id, the commentary message with id, status and phase, then the call", async () => {
    const exchanges = cassette(PHASE_CASSETTE);
    expect(exchanges).toHaveLength(2);
    serve(
      mode,
      exchanges.map((exchange) => exchange.body),
    );
    const model = new OpenAIResponsesModel({ model: "gpt-5.5", baseURL: `${wire.url}/v1`, apiKey: "k" });
    const { msg, events } = await reply(agentOn(model, [capitalTool]), "What is the capital of PotatoLand?");
    expect(msg.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_call", "tool_result", "text"]);
    // output_item.done's encrypted_content (output_item.added announced a different one)
    const encrypted = expect.stringMatching(/^gAAAAABqaR3-pGgSyJcPT3y2_26v61vCZmE9M2P6.{1028}ls_UcqGK8PU=$/);
    expect(msg.content[0]).toMatchObject({
      thinking: "",
      itemId: "rs_0fabc13af1ee0049006a691dfe60b081a1baa444d3cf19afba",
      signature: encrypted,
    });
    const narration = "I\u2019ll check the capital lookup tool for \u201cPotatoLand.\u201d";
    expect(msg.content[1]).toMatchObject({
      text: narration,
      itemId: "msg_0fabc13af1ee0049006a691dfebdc881a1ae18d027c313d8ce",
      itemStatus: "completed",
      phase: "commentary",
    });
    expect(msg.content[4]).toMatchObject({
      text: "The capital of PotatoLand is **Potato City**.",
      itemId: "msg_0fabc13af1ee0049006a691e008ed881a19fb315ceb267e808",
      phase: "final_answer",
    });
    expect(callEnd(events).map((e) => (e as { stopReason?: string }).stopReason)).toEqual([
      "tool_calls",
      "stop",
    ]);
    expect(sent(1).input.slice(1)).toEqual([
      { role: "user", content: "What is the capital of PotatoLand?" },
      {
        type: "reasoning",
        id: "rs_0fabc13af1ee0049006a691dfe60b081a1baa444d3cf19afba",
        summary: [],
        encrypted_content: encrypted,
      },
      {
        type: "message",
        role: "assistant",
        id: "msg_0fabc13af1ee0049006a691dfebdc881a1ae18d027c313d8ce",
        status: "completed",
        phase: "commentary",
        content: [{ type: "output_text", text: narration, annotations: [] }],
      },
      {
        type: "function_call",
        call_id: "call_LabG58Uhrq9kZvR52BYKjToD",
        name: "get_capital",
        arguments: '{"country":"PotatoLand"}',
      },
      { type: "function_call_output", call_id: "call_LabG58Uhrq9kZvR52BYKjToD", output: "Potato City" },
    ]);
    // The reasoning item is the one pydantic-ai sent back in the recording, which the API accepted (200).
    const accepted = (exchanges[1]!.request as { input: unknown[] }).input;
    expect(sent(1).input[2]).toEqual(accepted[1]);
  });

  it("a store:false run: reasoning with encrypted content and a summary precedes its call in every later request", async () => {
    const bodies = responsesBodies(chunkPayloads(ENCRYPTED_RUN));
    expect(bodies).toHaveLength(4);
    serve(mode, bodies);
    const model = new OpenAIResponsesModel({
      model: "gpt-5.1-codex-max",
      baseURL: `${wire.url}/v1`,
      apiKey: "k",
      store: false,
      reasoningEffort: "high",
    });
    const { msg } = await reply(agentOn(model, [calculator]), "Compute (12 + 7) * 3 * 10 step by step.");
    expect(msg.content.map((b) => b.type)).toEqual([
      "thinking",
      "tool_call",
      "tool_result",
      "tool_call",
      "tool_result",
      "tool_call",
      "tool_result",
      "text",
    ]);
    const summary =
      "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product.";
    expect(msg.content[0]).toMatchObject({
      thinking: summary,
      itemId: "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9",
    });
    expect(msg.content.at(-1)).toMatchObject({
      text: "The final result is **570**.",
      itemId: "msg_01830d662ab3856501693c32183a488190a612c410a0a39823",
    });
    const reasoning = {
      type: "reasoning",
      id: "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9",
      summary: [{ type: "summary_text", text: summary }],
      // the encrypted_content of output_item.done (it differs from the one output_item.added announced)
      encrypted_content: expect.stringMatching(/^gAAAAABpPDIVOKrsHNZ0GwsoEKA_.*uQ==$/),
    };
    const step = (callId: string, args: string, output: string) => [
      { type: "function_call", call_id: callId, name: "calculator", arguments: args },
      { type: "function_call_output", call_id: callId, output },
    ];
    const first = step("call_AB6AaRZ1FYZB2RwS6A5vbdqn", '{"a":12,"b":7,"op":"add"}', "19");
    const second = step("call_Q6pW65MUgW9vF59BmItYGos3", '{"a":19,"b":3,"op":"multiply"}', "57");
    const third = step("call_Zl5vIMnD7dVAjgU6FkhmiCZh", '{"a":57,"b":10,"op":"multiply"}', "570");
    expect(wire.requests).toHaveLength(4);
    expect(sent(1).input.slice(2)).toEqual([reasoning, ...first]);
    expect(sent(2).input.slice(2)).toEqual([reasoning, ...first, ...second]);
    expect(sent(3).input.slice(2)).toEqual([reasoning, ...first, ...second, ...third]);
    expect(sent(3).store).toBe(false);
  });

  it("stored reasoning items with neither summary nor encrypted content go back with their ids, the last one right before its message", async () => {
    serve(mode, [
      ...responsesBodies(chunkPayloads(FILE_SEARCH)),
      ...responsesBodies(chunkPayloads(FILE_SEARCH)),
    ]);
    const model = new OpenAIResponsesModel({
      model: "gpt-5-mini",
      baseURL: `${wire.url}/v1`,
      apiKey: "k",
      builtinTools: [{ type: "file_search", vectorStoreIds: ["vs_68caad8bd5d88191ab766cf043d89a18"] }],
    });
    const agent = agentOn(model);
    const { msg } = await reply(agent, "What is an embedding model according to this document?");
    const first = "rs_0459517ad68504ad0068cabfba951881929654a05214361b35";
    const second = "rs_0459517ad68504ad0068cabfbf337881929cf5266be7a008a9";
    const message = "msg_0459517ad68504ad0068cabfc6b5c48192a15ac773668537f1";
    const thinking = msg.content.filter((b) => b.type === "thinking");
    expect(thinking).toMatchObject([
      { thinking: "", itemId: first },
      { thinking: "", itemId: second },
    ]);
    expect(thinking.some((b) => "signature" in b)).toBe(false);
    expect(msg.content.at(-1)).toMatchObject({ type: "text", itemId: message, itemStatus: "completed" });
    expect(msg.stopReason).toBe("stop");
    await reply(agent, "Thanks");
    const input = sent(1).input as Array<{ type?: string; id?: string }>;
    const at = input.findIndex((item) => item.id === message);
    expect(input[at]).toMatchObject({ type: "message", role: "assistant", id: message, status: "completed" });
    expect(input[at - 1]).toEqual({ type: "reasoning", id: second, summary: [] });
    const firstAt = input.findIndex((item) => item.id === first);
    expect(input[firstAt]).toEqual({ type: "reasoning", id: first, summary: [] });
    expect(firstAt).toBeGreaterThan(0);
    expect(firstAt).toBeLessThan(at - 1);
  });

  it("an in-stream `error` event with insufficient_quota is a rate_limit that is not retried", async () => {
    serve(mode, responsesBodies(chunkPayloads(QUOTA_ERROR)));
    const model = new OpenAIResponsesModel({
      model: "gpt-5-nano",
      baseURL: `${wire.url}/v1`,
      apiKey: "k",
      maxRetries: 2,
    });
    const { error } = await collectError(model.stream([userMsg("hi")]));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).info.type).toBe("rate_limit");
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as ProviderError).message).toContain("You exceeded your current quota");
    expect(wire.requests).toHaveLength(1);
  });
});
