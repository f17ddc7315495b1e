import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { type AgentScopeError, userMsg } from "../../src/message/index.js";
import { AnthropicModel } from "../../src/model/anthropic/anthropic-model.js";
import { GeminiModel } from "../../src/model/gemini/gemini-model.js";
import { OpenAIChatModel } from "../../src/model/openai/chat-model.js";
import { OpenAIResponsesModel } from "../../src/model/openai/responses-model.js";
import { ProviderError } from "../../src/model/transport/errors.js";
import type { ChatModel } from "../../src/model/types.js";
import { functionTool } from "../../src/tool/index.js";
import { replyThroughAgent } from "./helpers/agent-reply.js";
import { REPLAY_MODES, type ReplayMode, replayFrames, wireBody } from "./helpers/replay.js";
import { TRANSPORTS, type TransportCase } from "./helpers/transports.js";
import { wireServerForFile } from "./helpers/wire-server.js";

/**
 * The issue-13 failures, each pinned by a wire body replayed byte for byte through a local server
 * (see helpers/replay.ts), through a real Agent: the reply Msg (what was parsed, in order) and the
 * next request body (what goes back). The bodies in fixtures/wire reproduce the documented wire
 * shapes; see docs/providers.md for why they are not captures from the live APIs.
 */

const wire = wireServerForFile();

const SSE = { "content-type": "text/event-stream" };
const serve = (mode: ReplayMode, ...names: string[]) =>
  wire.queue(...names.map((name) => ({ headers: SSE, frames: replayFrames(wireBody(name), mode) })));
/** The fields of a request body these tests read (Anthropic/Chat `messages`, Responses `input`, Gemini `contents`). */
type SentBody = { messages: unknown[]; input: unknown[]; contents: unknown[] };
const body = (index: number) => wire.requests[index]?.body as SentBody;

const weather = functionTool({
  name: "get_weather",
  description: "Weather for a city",
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => `sunny, 21°C in ${city}`,
});

const reply = replyThroughAgent;

/** The four models on one transport (every test runs over fetch and over node:http). */
const modelsOn = (transport: TransportCase["choice"]) => ({
  anthropic: () =>
    new AnthropicModel({
      model: "claude-3-7-sonnet-20250219",
      baseURL: wire.url,
      apiKey: "k",
      maxRetries: 0,
      transport,
    }),
  gemini: (model = "gemini-3-pro-preview", maxRetries = 0) =>
    new GeminiModel({ model, baseURL: `${wire.url}/v1beta`, apiKey: "k", maxRetries, transport }),
  chat: () =>
    new OpenAIChatModel({
      model: "gpt-4o",
      baseURL: `${wire.url}/v1`,
      apiKey: "k",
      maxRetries: 2,
      transport,
    }),
  responses: () =>
    new OpenAIResponsesModel({
      model: "gpt-5.3-codex",
      baseURL: `${wire.url}/v1`,
      apiKey: "k",
      maxRetries: 2,
      transport,
    }),
});
const agentOn = (model: ChatModel, tools = false) =>
  new Agent({ name: "helper", systemPrompt: "Be brief.", model, toolkit: tools ? [weather] : [] });

describe.each(TRANSPORTS)("over $name", (transport) => {
  const { anthropic, gemini, chat, responses } = modelsOn(transport.choice);
  describe.each(REPLAY_MODES)("replayed %s", (mode) => {
    it("Anthropic: redacted thinking that never streamed stays first, and goes back first", async () => {
      serve(mode, "anthropic-redacted-thinking.sse", "anthropic-max-tokens.sse");
      const agent = agentOn(anthropic());
      const { msg } = await reply(agent, "What is the answer?");
      expect(msg.content.map((b) => b.type)).toEqual(["thinking", "text"]);
      expect(msg.content[0]).toMatchObject({ redactedData: expect.stringMatching(/^EmwKAhgBEgy3/) });
      expect(msg.content[1]).toMatchObject({ text: "Voilà — le résultat: 42 ✓ 日本語" });
      await reply(agent, "And the steps?");
      expect(body(1).messages[1]).toEqual({
        role: "assistant",
        content: [
          { type: "redacted_thinking", data: expect.stringMatching(/^EmwKAhgBEgy3/) },
          { type: "text", text: "Voilà — le résultat: 42 ✓ 日本語" },
        ],
      });
    });

    it("Anthropic: a max_tokens truncation is the reply's stopReason and MODEL_CALL_END's", async () => {
      serve(mode, "anthropic-max-tokens.sse");
      const { msg, events } = await reply(agentOn(anthropic()), "The steps?");
      expect(msg.stopReason).toBe("length");
      expect(msg.finishedReason).toBe("completed");
      expect(events.find((e) => e.type === "MODEL_CALL_END")).toMatchObject({ stopReason: "length" });
    });

    it("Responses: reasoning items without summary go back before the message and call they preceded, messages with id, status and phase", async () => {
      serve(mode, "openai-responses-reasoning-tool-call.sse", "openai-responses-final-answer.sse");
      const { msg } = await reply(agentOn(responses(), true), "Weather in Paris?");
      expect(msg.content.map((b) => b.type)).toEqual([
        "thinking",
        "text",
        "tool_call",
        "tool_result",
        "thinking",
        "text",
      ]);
      expect(msg.content[1]).toMatchObject({
        text: "Je vérifie la météo à Paris…",
        itemId: "msg_68af4031e0b08193b4c95a0f6e7c3d210fbc42d3b5c3f0e1",
        itemStatus: "completed",
        phase: "commentary",
      });
      expect(msg.usage).toMatchObject({ inputTokens: 241, cacheReadTokens: 192 });
      const input = body(1).input as unknown[];
      expect(input.slice(2)).toEqual([
        { type: "reasoning", id: "rs_68af40311a5c8193a1e1f7a8c9d0b2e30fbc42d3b5c3f0e1", summary: [] },
        {
          type: "message",
          role: "assistant",
          id: "msg_68af4031e0b08193b4c95a0f6e7c3d210fbc42d3b5c3f0e1",
          status: "completed",
          phase: "commentary",
          content: [{ type: "output_text", text: "Je vérifie la météo à Paris…", annotations: [] }],
        },
        {
          type: "function_call",
          call_id: "call_Qx3vWq8mZ1yKcT7bN2pL",
          name: "get_weather",
          arguments: '{"city":"Paris"}',
        },
        {
          type: "function_call_output",
          call_id: "call_Qx3vWq8mZ1yKcT7bN2pL",
          output: "sunny, 21°C in Paris",
        },
      ]);
    });

    it("Gemini: a functionCall's thoughtSignature stays on that part", async () => {
      serve(mode, "gemini-function-call-signature.sse", "gemini-text-final-signature.sse");
      const { msg } = await reply(agentOn(gemini(), true), "Weather in Paris?");
      expect(msg.content.map((b) => b.type)).toEqual([
        "thinking",
        "tool_call",
        "tool_result",
        "text",
        "thinking",
      ]);
      const contents = body(1).contents as Array<{ role: string; parts: unknown[] }>;
      expect(contents[1]).toEqual({
        role: "model",
        parts: [
          {
            functionCall: { id: expect.any(String), name: "get_weather", args: { city: "Paris" } },
            thoughtSignature: expect.stringMatching(/^CiQB0e2Kb5x8/),
          },
        ],
      });
    });

    it("Gemini: the signature on a final empty text part goes back in its own turn", async () => {
      serve(mode, "gemini-text-final-signature.sse", "gemini-safety.sse");
      const agent = agentOn(gemini());
      const first = await reply(agent, "Weather in Paris?");
      expect(first.msg.content).toMatchObject([
        { type: "text", text: "Il fait beau à Paris ☀ (21 °C)." },
        { type: "thinking", thinking: "", signature: expect.stringMatching(/^CiIB0e2Kb1q2/) },
      ]);
      await reply(agent, "Merci !");
      expect(body(1).contents).toEqual([
        { role: "user", parts: [{ text: "Weather in Paris?" }] },
        {
          role: "model",
          parts: [
            { text: "Il fait beau à Paris ☀ (21 °C)." },
            { text: "", thoughtSignature: expect.stringMatching(/^CiIB0e2Kb1q2/) },
          ],
        },
        { role: "user", parts: [{ text: "Merci !" }] },
      ]);
    });

    it("Gemini: a SAFETY block is the reply's stopReason (content_filter), with an empty reply", async () => {
      serve(mode, "gemini-safety.sse");
      const { msg, events } = await reply(agentOn(gemini("gemini-2.5-flash")), "something unsafe");
      expect(msg.content).toEqual([]);
      expect(msg.stopReason).toBe("content_filter");
      expect(events.find((e) => e.type === "MODEL_CALL_END")).toMatchObject({ stopReason: "content_filter" });
    });

    it("Chat: a refusal is surfaced as refusal text and goes back as a refusal", async () => {
      serve(mode, "openai-chat-refusal.sse", "openai-chat-refusal.sse");
      const agent = agentOn(chat());
      const { msg, events } = await reply(agent, "Something I should not ask");
      const refusal = "I'm sorry, I can't help with that request — désolé.";
      expect(msg.content).toMatchObject([{ type: "text", text: refusal, refusal: true }]);
      expect(msg.stopReason).toBe("refusal");
      expect(events.find((e) => e.type === "MODEL_CALL_END")).toMatchObject({ stopReason: "refusal" });
      await reply(agent, "Why?");
      expect(body(1).messages[2]).toEqual({ role: "assistant", content: null, refusal });
    });

    it("Chat: an in-stream insufficient_quota is a rate_limit that is not retried", async () => {
      serve(mode, "openai-chat-insufficient-quota.sse");
      const error = await collectError(chat());
      expect(error.info.type).toBe("rate_limit");
      expect((error as ProviderError).retryable).toBe(false);
      expect(error.message).toContain("exceeded your current quota");
      expect(wire.requests).toHaveLength(1);
    });

    it("Responses: response.failed with insufficient_quota is a rate_limit that is not retried", async () => {
      serve(mode, "openai-responses-insufficient-quota.sse");
      const error = await collectError(responses());
      expect(error.info.type).toBe("rate_limit");
      expect((error as ProviderError).retryable).toBe(false);
      expect(wire.requests).toHaveLength(1);
    });
  });

  describe("Gemini 429 RESOURCE_EXHAUSTED with RetryInfo", () => {
    it("is a retryable rate_limit that waits the RetryInfo delay, then succeeds", async () => {
      wire.queue(
        {
          status: 429,
          headers: { "content-type": "application/json" },
          frames: [wireBody("gemini-429-retry-info.json")],
        },
        { headers: SSE, frames: replayFrames(wireBody("gemini-text-final-signature.sse"), "whole body") },
      );
      const { msg } = await reply(agentOn(gemini("gemini-2.5-flash", 1)), "hi");
      expect(wire.requests).toHaveLength(2);
      expect(msg.content[0]).toMatchObject({ text: "Il fait beau à Paris ☀ (21 °C)." });
    });

    it("carries the delay and stays retryable even though the message says 'quota'", async () => {
      wire.queue({
        status: 429,
        headers: { "content-type": "application/json" },
        frames: [wireBody("gemini-429-retry-info.json")],
      });
      const error = await collectError(gemini("gemini-2.5-flash", 0));
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.info).toMatchObject({ type: "rate_limit", status: 429 });
      expect((error as ProviderError).retryAfterMs).toBe(1000);
    });
  });
});

async function collectError(model: ChatModel): Promise<AgentScopeError> {
  try {
    for await (const _ of model.stream([userMsg("hi")])) {
      // drain
    }
  } catch (error) {
    return error as AgentScopeError;
  }
  throw new Error("expected the stream to fail");
}
