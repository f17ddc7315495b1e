import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMsg, dataBlock, textBlock, userMsg } from "../../src/message/index.js";
import { formatOllama, OllamaModel, ollamaBaseUrl } from "../../src/model/index.js";
import type { FetchFunction } from "../../src/model/transport/types.js";
import { collect } from "./helpers/collect-stream.js";
import { startWireServer, type WireServer } from "./helpers/wire-server.js";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const TOOL = {
  name: "get_weather",
  description: "Weather",
  parameters: { type: "object", properties: { city: { type: "string" } } },
};

describe("formatOllama", () => {
  it("sends images as base64 arrays, tool calls as objects, results as tool messages and tool images after them", () => {
    const reply = assistantMsg([
      { type: "thinking", id: "t", thinking: "hmm", provider: "ollama" },
      { type: "tool_call", id: "c1", name: "chart", input: '{"kind":"bar"}', state: "finished" },
      {
        type: "tool_result",
        id: "c1",
        name: "chart",
        output: [textBlock("drawn"), dataBlock(PNG, "image/png")],
        state: "success",
      },
      textBlock("here it is"),
    ]);
    const body = formatOllama(
      [
        { ...userMsg("sys"), role: "system" },
        userMsg([textBlock("draw"), dataBlock(PNG, "image/png")]),
        reply,
      ],
      {
        model: "qwen3",
        tools: [TOOL],
        toolChoice: "none",
        think: true,
        maxTokens: 50,
      },
    );
    expect(body.messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "draw", images: [PNG] },
      {
        role: "assistant",
        content: "",
        thinking: "hmm",
        tool_calls: [{ id: "c1", function: { name: "chart", arguments: { kind: "bar" } } }],
      },
      {
        role: "tool",
        tool_name: "chart",
        tool_call_id: "c1",
        content:
          "drawn\n<system-reminder>A(n) image file is returned and shown to you next as [c1#1].</system-reminder>",
      },
      { role: "user", content: "[c1#1] (image file from the tool result):", images: [PNG] },
      { role: "assistant", content: "here it is" },
    ]);
    expect(body.tools).toBeUndefined();
    expect(body).toMatchObject({ model: "qwen3", stream: true, think: true, options: { num_predict: 50 } });
  });

  it("reads OLLAMA_HOST values with or without a scheme", () => {
    expect(ollamaBaseUrl("0.0.0.0:11434")).toBe("http://127.0.0.1:11434");
    expect(ollamaBaseUrl("https://ollama.example")).toBe("https://ollama.example");
  });
});

describe("OllamaModel on the wire", () => {
  let wire: WireServer;
  let mock: LLMock;
  beforeAll(async () => {
    wire = await startWireServer();
    mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
    mock.on(
      { userMessage: "two cities" },
      {
        toolCalls: [
          { id: "x1", name: "get_weather", arguments: { city: "Paris" } },
          { id: "x2", name: "get_weather", arguments: { city: "Rome" } },
        ],
      },
    );
    await mock.start();
  });
  afterAll(async () => {
    await wire.close();
    await mock.stop();
  });

  it("parses NDJSON thinking, text, usage and the done reason", async () => {
    const line = (value: unknown) => `${JSON.stringify(value)}\n`;
    wire.queue({
      headers: { "content-type": "application/x-ndjson" },
      frames: [
        line({ model: "qwen3", message: { role: "assistant", content: "", thinking: "Think" }, done: false }),
        line({ model: "qwen3", message: { role: "assistant", content: "", thinking: "ing" }, done: false }),
        `${JSON.stringify({ model: "qwen3", message: { role: "assistant", content: "Hel" }, done: false })}\n{"model":"qwen3","mes`,
        `sage":{"role":"assistant","content":"lo"},"done":false}\n`,
        line({
          model: "qwen3",
          message: { role: "assistant", content: "" },
          done: true,
          done_reason: "length",
          prompt_eval_count: 8,
          eval_count: 3,
        }),
      ],
    });
    const model = new OllamaModel({ model: "qwen3", host: wire.url, think: true });
    const { deltas, final } = await collect(model.stream([userMsg("hi")]));
    expect(final.content).toMatchObject([
      { type: "thinking", thinking: "Thinking", provider: "ollama" },
      { type: "text", text: "Hello" },
    ]);
    expect(deltas.map((d) => d.delta)).toEqual(["Think", "ing", "Hel", "lo"]);
    expect(final.stopReason).toBe("length");
    expect(final.usage).toEqual({ inputTokens: 8, outputTokens: 3 });
    expect(wire.requests[0]).toMatchObject({
      path: "/api/chat",
      body: { model: "qwen3", think: true, stream: true },
    });
  });

  it("streams parallel tool calls from aimock as whole calls", async () => {
    const sent: string[] = [];
    const fetch: FetchFunction = (url, init) => {
      sent.push(String(init.body));
      return globalThis.fetch(url, init);
    };
    const model = new OllamaModel({ model: "llama3.1", host: mock.url, maxRetries: 0, fetch });
    const { deltas, final } = await collect(model.stream([userMsg("two cities")], { tools: [TOOL] }));
    const calls = final.content.filter((b) => b.type === "tool_call");
    expect(calls.map((c) => c.type === "tool_call" && [c.name, JSON.parse(c.input).city])).toEqual([
      ["get_weather", "Paris"],
      ["get_weather", "Rome"],
    ]);
    expect(deltas).toHaveLength(2);
    expect(final.stopReason).toBe("tool_calls");
    expect(JSON.parse(sent[0] ?? "").tools).toEqual([{ type: "function", function: TOOL }]);
  });
});
