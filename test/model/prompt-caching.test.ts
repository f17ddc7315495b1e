import { describe, expect, it } from "vitest";
import { assistantMsg, systemMsg, userMsg } from "../../src/message/index.js";
import { formatAnthropic } from "../../src/model/anthropic/anthropic-format.js";
import { AnthropicModel } from "../../src/model/anthropic/anthropic-model.js";
import type { ChatModel } from "../../src/model/types.js";
import { collect } from "./helpers/collect-stream.js";
import { anthropicFrames } from "./helpers/provider-wire.js";
import { sse, wireServerForFile } from "./helpers/wire-server.js";

const TOOLS = [
  { name: "a", description: "A", parameters: { type: "object", properties: {} } },
  { name: "b", description: "B", parameters: { type: "object", properties: {} } },
];
const history = [
  systemMsg("You are a careful assistant."),
  userMsg("first question"),
  assistantMsg([
    { type: "thinking", id: "t1", thinking: "hm", signature: "sig", provider: "anthropic" },
    { type: "text", id: "x1", text: "first answer" },
  ]),
  userMsg("second question"),
];

/** The fields of the sent Anthropic body these tests read. */
interface SentBody {
  system: string | Array<{ cache_control?: unknown }>;
  tools: Array<{ cache_control?: unknown }>;
  messages: Array<{ role: string; content: unknown[] }>;
}

const wire = wireServerForFile();

async function sentBody(model: ChatModel, frames = anthropicFrames(["ok"], { input: 3, output: 1 })) {
  wire.queue({ frames: [...frames.open, ...frames.deltas, ...frames.close] });
  const result = await collect(model.stream(history, { tools: TOOLS }));
  return { body: wire.requests.at(-1)?.body as SentBody, result };
}

describe("Anthropic prompt caching", () => {
  it("marks the system prompt, the last tool and the conversation tail by default", async () => {
    const { body } = await sentBody(
      new AnthropicModel({ model: "claude-sonnet-4-5", baseURL: wire.url, apiKey: "k" }),
    );
    expect(body.system).toEqual([
      { type: "text", text: "You are a careful assistant.", cache_control: { type: "ephemeral" } },
    ]);
    expect(body.tools[0]?.cache_control).toBeUndefined();
    expect(body.tools[1]?.cache_control).toEqual({ type: "ephemeral" });
    expect(body.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "second question", cache_control: { type: "ephemeral" } }],
    });
    // Only the three breakpoints: nothing earlier in the conversation is marked.
    expect(JSON.stringify(body.messages.slice(0, -1))).not.toContain("cache_control");
  });

  it("is configurable per place, with a one-hour lifetime, or off", async () => {
    const hour = await sentBody(
      new AnthropicModel({
        model: "claude-sonnet-4-5",
        baseURL: wire.url,
        apiKey: "k",
        cache: { tools: false, tail: false, ttl: "1h" },
      }),
    );
    expect(hour.body.system).toEqual([
      { type: "text", text: "You are a careful assistant.", cache_control: { type: "ephemeral", ttl: "1h" } },
    ]);
    expect(JSON.stringify(hour.body.tools)).not.toContain("cache_control");
    expect(JSON.stringify(hour.body.messages)).not.toContain("cache_control");
    const off = await sentBody(
      new AnthropicModel({ model: "claude-sonnet-4-5", baseURL: wire.url, apiKey: "k", cache: false }),
    );
    expect(JSON.stringify(off.body)).not.toContain("cache_control");
    expect(off.body.system).toBe("You are a careful assistant.");
  });

  it("never marks a thinking part (the API rejects that): the tail mark goes on the last other part", () => {
    const body = formatAnthropic(
      [
        userMsg("q"),
        assistantMsg([
          { type: "text", id: "x", text: "a" },
          { type: "thinking", id: "t", thinking: "", redactedData: "R", provider: "anthropic" },
        ]),
      ],
      { model: "m", maxTokens: 10, cache: {} },
    );
    expect(body.messages.at(-1)?.content).toEqual([
      { type: "text", text: "a", cache_control: { type: "ephemeral" } },
      { type: "redacted_thinking", data: "R" },
    ]);
  });

  it("reports cache reads and writes apart in usage, and counts them as input", async () => {
    const frames = anthropicFrames(["ok"], { input: 3, output: 1 });
    frames.open[0] = sse(
      {
        type: "message_start",
        message: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [],
          usage: {
            input_tokens: 3,
            cache_read_input_tokens: 2048,
            cache_creation_input_tokens: 312,
            output_tokens: 1,
          },
        },
      },
      "message_start",
    );
    const { result } = await sentBody(
      new AnthropicModel({ model: "claude-sonnet-4-5", baseURL: wire.url, apiKey: "k" }),
      frames,
    );
    expect(result.final.usage).toMatchObject({
      inputTokens: 2363,
      cacheReadTokens: 2048,
      cacheWriteTokens: 312,
    });
  });
});
