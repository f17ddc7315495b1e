import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentScopeError,
  assistantMsg,
  dataBlock,
  textBlock,
  userMsg,
} from "../../src/message/index.js";
import { formatGemini, GeminiModel } from "../../src/model/index.js";
import type { FetchFunction } from "../../src/model/transport/types.js";
import { collect, collectError } from "./helpers/collect-stream.js";
import { sse, startWireServer, type WireServer } from "./helpers/wire-server.js";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const TOOL = {
  name: "get_weather",
  description: "Weather",
  parameters: {
    $schema: "x",
    type: "object",
    additionalProperties: false,
    properties: { city: { type: "string" } },
  },
};

describe("formatGemini", () => {
  it("uses user/model roles, functionCall/functionResponse parts and promotes tool images to user parts", () => {
    const reply = assistantMsg([
      textBlock("checking"),
      { type: "tool_call", id: "c1", name: "get_weather", input: '{"city":"Paris"}', state: "finished" },
      { type: "tool_call", id: "c2", name: "chart", input: "{}", state: "finished" },
      { type: "tool_result", id: "c1", name: "get_weather", output: "sunny", state: "success" },
      {
        type: "tool_result",
        id: "c2",
        name: "chart",
        output: [textBlock("a chart"), dataBlock(PNG, "image/png")],
        state: "success",
      },
      textBlock("done"),
    ]);
    const body = formatGemini(
      [
        { ...userMsg("be brief"), role: "system" },
        userMsg([textBlock("hi"), dataBlock(PNG, "image/png")]),
        reply,
      ],
      {
        tools: [TOOL],
        toolChoice: { name: "get_weather" },
        maxTokens: 100,
        thinkingBudget: 512,
      },
    );
    expect(body.systemInstruction).toEqual({ parts: [{ text: "be brief" }] });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "hi" }, { inlineData: { mimeType: "image/png", data: PNG } }] },
      {
        role: "model",
        parts: [
          { text: "checking" },
          { functionCall: { id: "c1", name: "get_weather", args: { city: "Paris" } } },
          { functionCall: { id: "c2", name: "chart", args: {} } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { id: "c1", name: "get_weather", response: { output: "sunny" } } },
          {
            functionResponse: {
              id: "c2",
              name: "chart",
              response: {
                output:
                  "a chart\n<system-reminder>A(n) image file is returned and shown to you next as [c2#1].</system-reminder>",
              },
            },
          },
          { text: "[c2#1] (image file from the tool result):" },
          { inlineData: { mimeType: "image/png", data: PNG } },
        ],
      },
      { role: "model", parts: [{ text: "done" }] },
    ]);
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: "get_weather",
            description: "Weather",
            parameters: { type: "OBJECT", properties: { city: { type: "STRING" } } },
          },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] },
    });
    expect(body.generationConfig).toEqual({
      maxOutputTokens: 100,
      thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
    });
  });

  it("reports failed tool results as errors and sends URLs as fileData", () => {
    const reply = assistantMsg([
      { type: "tool_call", id: "c1", name: "f", input: "not json", state: "finished" },
      { type: "tool_result", id: "c1", name: "f", output: "denied by the user", state: "denied" },
    ]);
    const body = formatGemini([
      userMsg({ type: "data", id: "u", source: { type: "url", url: "gs://b/v.mp4" } }),
      reply,
    ]);
    expect(body.contents[0]?.parts).toEqual([
      { fileData: { mimeType: "video/mp4", fileUri: "gs://b/v.mp4" } },
    ]);
    expect(body.contents[1]?.parts).toEqual([{ functionCall: { id: "c1", name: "f", args: {} } }]);
    expect(body.contents[2]?.parts).toEqual([
      { functionResponse: { id: "c1", name: "f", response: { error: "denied by the user" } } },
    ]);
  });
});

describe("GeminiModel on the wire", () => {
  let wire: WireServer;
  let mock: LLMock;
  beforeAll(async () => {
    wire = await startWireServer();
    mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
    mock.on(
      { userMessage: "weather", hasToolResult: false },
      { toolCalls: [{ id: "fc_1", name: "get_weather", arguments: { city: "Paris" } }] },
    );
    mock.on({ userMessage: "weather", hasToolResult: true }, { content: "Sunny in Paris" });
    await mock.start();
  });
  afterAll(async () => {
    await wire.close();
    await mock.stop();
  });
  beforeEach(() => {
    wire.requests.length = 0;
  });

  it("streams thoughts, text and a whole function call, and sends thought signatures back on the same parts", async () => {
    const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) =>
      sse({
        candidates: [{ content: { role: "model", parts }, index: 0, ...(extra.candidate as object) }],
        modelVersion: "gemini-2.5-flash-001",
        ...(extra.top as object),
      });
    wire.queue({
      frames: [
        chunk([{ text: "Plan: ", thought: true }]),
        chunk([{ text: "call the tool", thought: true }]),
        chunk([{ text: "Let me " }]),
        chunk([{ text: "check." }]),
        chunk(
          [{ functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "SIG_CALL" }],
          {
            candidate: { finishReason: "STOP" },
            top: {
              usageMetadata: {
                promptTokenCount: 20,
                candidatesTokenCount: 7,
                thoughtsTokenCount: 5,
                cachedContentTokenCount: 12,
              },
            },
          },
        ),
      ],
    });
    const model = new GeminiModel({
      model: "gemini-2.5-flash",
      apiKey: "g-key",
      baseURL: wire.url,
      thinkingBudget: 256,
    });
    const { deltas, final } = await collect(model.stream([userMsg("weather?")], { tools: [TOOL] }));
    const [thought, text, signature, call] = final.content;
    expect(thought).toMatchObject({ type: "thinking", thinking: "Plan: call the tool", provider: "gemini" });
    expect(text).toMatchObject({ type: "text", text: "Let me check." });
    expect(signature).toMatchObject({
      type: "thinking",
      thinking: "",
      signature: "SIG_CALL",
      provider: "gemini",
    });
    expect(call).toMatchObject({ type: "tool_call", name: "get_weather", input: '{"city":"Paris"}' });
    expect(deltas.filter((d) => d.type === "tool_call")).toEqual([
      { type: "tool_call", blockId: call?.id, name: "get_weather", delta: '{"city":"Paris"}' },
    ]);
    expect(new Set(deltas.filter((d) => d.type === "text").map((d) => d.blockId))).toEqual(
      new Set([text?.id]),
    );
    expect(final.stopReason).toBe("tool_calls");
    expect(final.usage).toEqual({ inputTokens: 20, outputTokens: 12, cacheReadTokens: 12 });
    expect(final.model).toBe("gemini-2.5-flash-001");

    const first = wire.requests[0];
    expect(first?.path).toBe("/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(first?.headers["x-goog-api-key"]).toBe("g-key");

    wire.queue({ frames: [chunk([{ text: "Sunny" }], { candidate: { finishReason: "STOP" } })] });
    const reply = assistantMsg([
      ...final.content,
      { type: "tool_result", id: call?.id ?? "", name: "get_weather", output: "sunny", state: "success" },
    ]);
    await collect(model.stream([userMsg("weather?"), reply], { tools: [TOOL] }));
    expect((wire.requests[1]?.body as { contents: unknown[] } | undefined)?.contents.slice(1)).toEqual([
      {
        role: "model",
        parts: [
          { text: "Plan: call the tool", thought: true },
          { text: "Let me check." },
          {
            functionCall: { id: call?.id, name: "get_weather", args: { city: "Paris" } },
            thoughtSignature: "SIG_CALL",
          },
        ],
      },
      {
        role: "user",
        parts: [{ functionResponse: { id: call?.id, name: "get_weather", response: { output: "sunny" } } }],
      },
    ]);
  });

  it("maps a safety stop to content_filter and a cut stream to a connection error", async () => {
    wire.queue({
      frames: [sse({ candidates: [{ content: { parts: [{ text: "x" }] }, finishReason: "SAFETY" }] })],
    });
    const model = new GeminiModel({ model: "gemini-2.5-pro", apiKey: "k", baseURL: wire.url, maxRetries: 0 });
    expect((await collect(model.stream([userMsg("hi")]))).final.stopReason).toBe("content_filter");
    wire.queue({ frames: [sse({ candidates: [{ content: { parts: [{ text: "x" }] } }] })], cut: true });
    const { chunks, error } = await collectError(model.stream([userMsg("hi")]));
    expect(chunks).toHaveLength(1);
    expect((error as AgentScopeError).info.type).toBe("connection");
  });

  it("does a tool round trip against aimock", async () => {
    const sent: string[] = [];
    const fetch: FetchFunction = (url, init) => {
      sent.push(String(init.body));
      return globalThis.fetch(url, init);
    };
    const model = new GeminiModel({
      model: "gemini-2.5-flash",
      apiKey: "k",
      baseURL: `${mock.url}/v1beta`,
      maxRetries: 0,
      fetch,
    });
    const first = await collect(model.stream([userMsg("weather?")], { tools: [TOOL] }));
    const call = first.final.content.find((b) => b.type === "tool_call");
    expect(call).toMatchObject({ id: "fc_1", name: "get_weather", input: '{"city":"Paris"}' });
    const reply = assistantMsg([
      ...first.final.content,
      { type: "tool_result", id: "fc_1", name: "get_weather", output: "sunny", state: "success" },
    ]);
    const second = await collect(model.stream([userMsg("weather?"), reply], { tools: [TOOL] }));
    expect(second.final.content).toMatchObject([{ type: "text", text: "Sunny in Paris" }]);
    expect(JSON.parse(sent[1] ?? "").contents[2]).toEqual({
      role: "user",
      parts: [{ functionResponse: { id: "fc_1", name: "get_weather", response: { output: "sunny" } } }],
    });
  });
});
