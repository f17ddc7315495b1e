import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  AgentScopeError,
  assistantMsg,
  dataBlock,
  type Msg,
  textBlock,
  urlBlock,
  userMsg,
} from "../../src/message/index.js";
import { AnthropicModel, formatAnthropic } from "../../src/model/index.js";
import type { FetchFunction } from "../../src/model/transport/types.js";
import { collect, collectError } from "./helpers/collect-stream.js";
import { sse, startWireServer, type WireServer } from "./helpers/wire-server.js";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const TOOL = {
  name: "get_weather",
  description: "Weather",
  parameters: { type: "object", properties: { city: { type: "string" } } },
};
const base = { model: "claude-sonnet-4-5", maxTokens: 1024 };

describe("formatAnthropic", () => {
  it("splits one assistant reply into assistant tool_use turns and user tool_result turns", () => {
    const reply = assistantMsg([
      { type: "thinking", id: "t", thinking: "plan", signature: "sig", provider: "anthropic" },
      textBlock("checking"),
      { type: "tool_call", id: "c1", name: "get_weather", input: '{"city":"Paris"}', state: "finished" },
      { type: "tool_call", id: "c2", name: "get_weather", input: '{"city":"Rome"}', state: "finished" },
      { type: "tool_result", id: "c1", name: "get_weather", output: "sunny", state: "success" },
      { type: "tool_result", id: "c2", name: "get_weather", output: "boom", state: "error" },
      textBlock("Paris is sunny"),
    ]);
    const body = formatAnthropic([userMsg("weather?"), reply], base);
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "weather?" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "plan", signature: "sig" },
          { type: "text", text: "checking" },
          { type: "tool_use", id: "c1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "c2", name: "get_weather", input: { city: "Rome" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "c1", content: "sunny" },
          { type: "tool_result", tool_use_id: "c2", content: "boom", is_error: true },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "Paris is sunny" }] },
    ]);
  });

  it("sends signed and redacted thinking back exactly, and drops unsigned thinking", () => {
    const reply = assistantMsg([
      { type: "thinking", id: "a", thinking: "", redactedData: "EncryptedBlob==", provider: "anthropic" },
      { type: "thinking", id: "b", thinking: "signed", signature: "Sig+/=", provider: "anthropic" },
      { type: "thinking", id: "c", thinking: "no signature", provider: "anthropic" },
      textBlock("done"),
    ]);
    const body = formatAnthropic([userMsg("q"), reply], base);
    expect(body.messages[1]?.content).toEqual([
      { type: "redacted_thinking", data: "EncryptedBlob==" },
      { type: "thinking", thinking: "signed", signature: "Sig+/=" },
      { type: "text", text: "done" },
    ]);
  });

  it("puts the system prompt apart and maps images, PDFs and URLs to sources", () => {
    const messages: Msg[] = [
      { ...userMsg("sys"), role: "system" },
      userMsg([
        textBlock("look"),
        dataBlock(PNG, "image/png"),
        dataBlock("JVBERi0=", "application/pdf"),
        { type: "data", id: "u", source: { type: "url", url: "https://x.test/cat.jpg" } },
        dataBlock("AAAA", "audio/wav"),
      ]),
    ];
    const body = formatAnthropic(messages, base);
    expect(body.system).toBe("sys");
    expect(body.messages[0]?.content).toEqual([
      { type: "text", text: "look" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
      { type: "image", source: { type: "url", url: "https://x.test/cat.jpg" } },
      { type: "text", text: "[a(n) audio file (audio/wav) that this model cannot read]" },
    ]);
  });

  it("keeps images returned by a tool inside the tool result", () => {
    const reply = assistantMsg([
      { type: "tool_call", id: "c1", name: "chart", input: "{}", state: "finished" },
      {
        type: "tool_result",
        id: "c1",
        name: "chart",
        output: [textBlock("the chart"), dataBlock(PNG, "image/png")],
        state: "success",
      },
    ]);
    const body = formatAnthropic([userMsg("chart"), reply], base);
    expect(body.messages[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "c1",
          content: [
            { type: "text", text: "the chart" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
          ],
        },
      ],
    });
  });

  it("maps tool choice and raises max_tokens above the thinking budget", () => {
    const choice = (toolChoice: Parameters<typeof formatAnthropic>[1]["toolChoice"]) =>
      formatAnthropic([userMsg("q")], { ...base, tools: [TOOL], toolChoice }).tool_choice;
    expect(choice("auto")).toEqual({ type: "auto" });
    expect(choice("required")).toEqual({ type: "any" });
    expect(choice("none")).toEqual({ type: "none" });
    expect(choice({ name: "get_weather" })).toEqual({ type: "tool", name: "get_weather" });
    const body = formatAnthropic([userMsg("q")], {
      ...base,
      maxTokens: 1000,
      thinkingBudget: 2048,
      tools: [TOOL],
    });
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(body.max_tokens).toBeGreaterThan(2048);
    expect(body.tools?.[0]).toEqual({
      name: "get_weather",
      description: "Weather",
      input_schema: TOOL.parameters,
    });
  });
});

describe("AnthropicModel on the wire", () => {
  let wire: WireServer;
  let mock: LLMock;
  beforeAll(async () => {
    wire = await startWireServer();
    mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
    mock.on(
      { userMessage: "two cities" },
      {
        toolCalls: [
          { id: "toolu_1", name: "get_weather", arguments: { city: "Paris" } },
          { id: "toolu_2", name: "get_weather", arguments: { city: "Rome" } },
        ],
      },
    );
    await mock.start();
  });
  afterAll(async () => {
    await wire.close();
    await mock.stop();
  });
  beforeEach(() => {
    wire.requests.length = 0;
  });

  const event = (data: Record<string, unknown>) => sse(data, data.type as string);
  const start = event({
    type: "message_start",
    message: {
      id: "msg_1",
      model: "claude-sonnet-4-5-20250929",
      usage: {
        input_tokens: 10,
        output_tokens: 1,
        cache_read_input_tokens: 90,
        cache_creation_input_tokens: 5,
      },
    },
  });
  const stop = (reason: string) => [
    event({ type: "message_delta", delta: { stop_reason: reason }, usage: { output_tokens: 42 } }),
    event({ type: "message_stop" }),
  ];

  it("parses thinking with signature deltas, redacted thinking, text and fragmented tool input, with usage", async () => {
    wire.queue({
      frames: [
        start,
        event({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } }),
        event({
          type: "content_block_delta",
          index: 0,
          delta: { type: "thinking_delta", thinking: "Let me " },
        }),
        event({
          type: "content_block_delta",
          index: 0,
          delta: { type: "thinking_delta", thinking: "think" },
        }),
        event({
          type: "content_block_delta",
          index: 0,
          delta: { type: "signature_delta", signature: "EqQBCg==" },
        }),
        event({ type: "content_block_stop", index: 0 }),
        event({
          type: "content_block_start",
          index: 1,
          content_block: { type: "redacted_thinking", data: "REDACTED==" },
        }),
        event({ type: "content_block_stop", index: 1 }),
        event({ type: "content_block_start", index: 2, content_block: { type: "text", text: "" } }),
        event({ type: "ping" }),
        event({ type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "Checking." } }),
        event({ type: "content_block_stop", index: 2 }),
        event({
          type: "content_block_start",
          index: 3,
          content_block: { type: "tool_use", id: "toolu_9", name: "get_weather", input: {} },
        }),
        event({
          type: "content_block_delta",
          index: 3,
          delta: { type: "input_json_delta", partial_json: '{"ci' },
        }),
        event({
          type: "content_block_delta",
          index: 3,
          delta: { type: "input_json_delta", partial_json: 'ty":"Paris"}' },
        }),
        event({ type: "content_block_stop", index: 3 }),
        ...stop("tool_use"),
      ],
    });
    const model = new AnthropicModel({
      model: "claude-sonnet-4-5",
      apiKey: "sk-ant-test",
      baseURL: wire.url,
      thinkingBudget: 1024,
      cache: false,
    });
    const { deltas, final } = await collect(model.stream([userMsg("weather in Paris?")], { tools: [TOOL] }));
    const [thinking, redacted, text, call] = final.content;
    expect(thinking).toMatchObject({
      type: "thinking",
      thinking: "Let me think",
      signature: "EqQBCg==",
      provider: "anthropic",
    });
    expect(redacted).toMatchObject({ type: "thinking", thinking: "", redactedData: "REDACTED==" });
    expect(text).toMatchObject({ type: "text", text: "Checking." });
    expect(call).toEqual({
      type: "tool_call",
      id: "toolu_9",
      name: "get_weather",
      input: '{"city":"Paris"}',
      state: "pending",
    });
    expect(deltas).toEqual([
      { type: "thinking", blockId: thinking?.id, delta: "Let me " },
      { type: "thinking", blockId: thinking?.id, delta: "think" },
      { type: "text", blockId: text?.id, delta: "Checking." },
      { type: "tool_call", blockId: "toolu_9", name: "get_weather", delta: "" },
      { type: "tool_call", blockId: "toolu_9", delta: '{"ci' },
      { type: "tool_call", blockId: "toolu_9", delta: 'ty":"Paris"}' },
    ]);
    expect(final.stopReason).toBe("tool_calls");
    expect(final.model).toBe("claude-sonnet-4-5-20250929");
    expect(final.usage).toEqual({
      inputTokens: 105,
      outputTokens: 42,
      cacheReadTokens: 90,
      cacheWriteTokens: 5,
    });

    const request = wire.requests[0];
    expect(request?.path).toBe("/v1/messages");
    expect(request?.headers["x-api-key"]).toBe("sk-ant-test");
    expect(request?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request?.body).toMatchObject({
      model: "claude-sonnet-4-5",
      stream: true,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [{ role: "user", content: [{ type: "text", text: "weather in Paris?" }] }],
      tools: [{ name: "get_weather" }],
    });

    // The next turn sends the thinking back exactly as received (Anthropic rejects it otherwise).
    wire.queue({ frames: [start, ...stop("end_turn")] });
    const reply = assistantMsg([
      ...final.content,
      { type: "tool_result", id: "toolu_9", name: "get_weather", output: "sunny", state: "success" },
    ]);
    await collect(model.stream([userMsg("weather in Paris?"), reply], { tools: [TOOL] }));
    expect((wire.requests[1]?.body as { messages: unknown[] } | undefined)?.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Let me think", signature: "EqQBCg==" },
          { type: "redacted_thinking", data: "REDACTED==" },
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_9", name: "get_weather", input: { city: "Paris" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "sunny" }] },
    ]);
  });

  it("reads a local file: attachment into base64 before formatting", async () => {
    const dir = mkdtempSync(join(tmpdir(), "as-anthropic-"));
    const file = join(dir, "dot.png");
    writeFileSync(file, Buffer.from(PNG, "base64"));
    wire.queue({ frames: [start, ...stop("end_turn")] });
    const model = new AnthropicModel({
      model: "claude-sonnet-4-5",
      apiKey: "k",
      baseURL: wire.url,
      cache: false,
    });
    await collect(model.stream([userMsg([textBlock("see"), urlBlock(pathToFileURL(file).href)])]));
    expect(
      (wire.requests[0]?.body as { messages: Array<{ content: unknown[] }> } | undefined)?.messages[0]
        ?.content[1],
    ).toEqual({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: PNG },
    });
    rmSync(dir, { recursive: true, force: true });
  });

  it("surfaces an error event inside the stream as a typed error", async () => {
    wire.queue({
      frames: [start, event({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })],
    });
    const model = new AnthropicModel({
      model: "claude-sonnet-4-5",
      apiKey: "k",
      baseURL: wire.url,
      maxRetries: 0,
    });
    const { error } = await collectError(model.stream([userMsg("hi")]));
    expect(error).toBeInstanceOf(AgentScopeError);
    expect((error as AgentScopeError).info).toMatchObject({ type: "upstream", source: "anthropic" });
    expect((error as AgentScopeError).message).toContain("Overloaded");
  });

  it("fails with a clear authentication error when no key is configured", async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      const { error } = await collectError(
        new AnthropicModel({ model: "claude-sonnet-4-5", baseURL: wire.url }).stream([userMsg("hi")]),
      );
      expect((error as AgentScopeError).info.type).toBe("authentication");
      expect((error as AgentScopeError).message).toContain("ANTHROPIC_API_KEY");
      expect(wire.requests).toHaveLength(0);
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it("streams parallel tool calls from aimock and sends the documented request", async () => {
    const sent: string[] = [];
    const fetch: FetchFunction = (url, init) => {
      sent.push(String(init.body));
      return globalThis.fetch(url, init);
    };
    const model = new AnthropicModel({
      model: "claude-sonnet-4-5",
      apiKey: "k",
      baseURL: mock.url,
      maxRetries: 0,
      fetch,
    });
    const { final } = await collect(
      model.stream([userMsg("two cities")], { tools: [TOOL], toolChoice: "required" }),
    );
    expect(final.content).toEqual([
      { type: "tool_call", id: "toolu_1", name: "get_weather", input: '{"city":"Paris"}', state: "pending" },
      { type: "tool_call", id: "toolu_2", name: "get_weather", input: '{"city":"Rome"}', state: "pending" },
    ]);
    expect(JSON.parse(sent[0] ?? "")).toMatchObject({ tool_choice: { type: "any" }, max_tokens: 64_000 });
  });
});
