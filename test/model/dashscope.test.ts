import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AgentScopeError, assistantMsg, dataBlock, textBlock, userMsg } from "../../src/message/index.js";
import { DashScopeModel, formatDashScope } from "../../src/model/index.js";
import { collect, collectError } from "./helpers/collect-stream.js";
import { startWireServer, type WireServer } from "./helpers/wire-server.js";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const TOOL = {
  name: "get_weather",
  description: "Weather",
  parameters: { type: "object", properties: { city: { type: "string" } } },
};

/** One DashScope SSE frame as the service writes it (id, event, status comment, data). */
let seq = 0;
const frame = (data: unknown, event = "result") =>
  `id:${++seq}\nevent:${event}\n:HTTP_STATUS/200\ndata:${JSON.stringify(data)}\n\n`;
const result = (
  message: Record<string, unknown>,
  finish: string | null = "null",
  usage = { input_tokens: 9, output_tokens: 2 },
) =>
  frame({
    output: { choices: [{ message: { role: "assistant", content: "", ...message }, finish_reason: finish }] },
    usage,
    request_id: "r1",
  });

describe("formatDashScope", () => {
  it("splits a reply into assistant tool_calls with own reasoning_content and tool messages (text form)", () => {
    const reply = assistantMsg([
      { type: "thinking", id: "t", thinking: "need weather", provider: "dashscope" },
      { type: "tool_call", id: "call_1", name: "get_weather", input: '{"city":"Paris"}', state: "finished" },
      { type: "tool_result", id: "call_1", name: "get_weather", output: "sunny", state: "success" },
      textBlock("It is sunny."),
    ]);
    const body = formatDashScope([{ ...userMsg("sys"), role: "system" }, userMsg("weather?"), reply], {
      model: "qwen-plus",
      tools: [TOOL],
      toolChoice: { name: "get_weather" },
      enableThinking: true,
    });
    expect(body.input.messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: "",
        reasoning_content: "need weather",
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: "tool", content: "sunny", tool_call_id: "call_1", name: "get_weather" },
      { role: "assistant", content: "It is sunny." },
    ]);
    expect(body.parameters).toEqual({
      result_format: "message",
      incremental_output: true,
      enable_thinking: true,
      tools: [{ type: "function", function: TOOL }],
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
  });

  it("switches to content lists when media is sent, and promotes tool images to a user message", () => {
    const reply = assistantMsg([
      { type: "tool_call", id: "c1", name: "shot", input: "{}", state: "finished" },
      {
        type: "tool_result",
        id: "c1",
        name: "shot",
        output: [dataBlock(PNG, "image/png")],
        state: "success",
      },
    ]);
    const body = formatDashScope([userMsg([textBlock("see"), dataBlock(PNG, "image/png")]), reply], {
      model: "qwen-vl-max",
    });
    expect(body.input.messages).toEqual([
      { role: "user", content: [{ text: "see" }, { image: `data:image/png;base64,${PNG}` }] },
      {
        role: "assistant",
        content: [],
        tool_calls: [{ id: "c1", type: "function", function: { name: "shot", arguments: "{}" } }],
      },
      {
        role: "tool",
        tool_call_id: "c1",
        name: "shot",
        content:
          "<system-reminder>A(n) image file is returned and shown to you next as [c1#1].</system-reminder>",
      },
      {
        role: "user",
        content: [
          { text: "[c1#1] (image file from the tool result):" },
          { image: `data:image/png;base64,${PNG}` },
        ],
      },
    ]);
  });
});

describe("DashScopeModel on the wire (recorded frames)", () => {
  let wire: WireServer;
  beforeAll(async () => {
    wire = await startWireServer();
  });
  afterAll(() => wire.close());
  beforeEach(() => {
    wire.requests.length = 0;
  });

  it("parses reasoning_content, text and tool call fragments, with cumulative usage", async () => {
    wire.queue({
      frames: [
        result({ reasoning_content: "The user " }),
        result({ reasoning_content: "wants weather." }),
        result({ content: "Checking." }),
        result({
          tool_calls: [
            {
              index: 0,
              id: "call_a",
              type: "function",
              function: { name: "get_weather", arguments: '{"ci' },
            },
          ],
        }),
        result({
          tool_calls: [{ index: 0, id: "", type: "function", function: { arguments: 'ty":"Paris"}' } }],
        }),
        result({
          tool_calls: [
            {
              index: 1,
              id: "call_b",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Rome"}' },
            },
          ],
        }),
        result({}, "tool_calls", {
          input_tokens: 30,
          output_tokens: 12,
          prompt_tokens_details: { cached_tokens: 16 },
        } as never),
      ],
    });
    const model = new DashScopeModel({
      model: "qwen-plus",
      apiKey: "sk-ds",
      baseURL: wire.url,
      enableThinking: true,
    });
    const { deltas, final } = await collect(model.stream([userMsg("weather?")], { tools: [TOOL] }));
    expect(final.content).toMatchObject([
      { type: "thinking", thinking: "The user wants weather.", provider: "dashscope" },
      { type: "text", text: "Checking." },
      { type: "tool_call", id: "call_a", name: "get_weather", input: '{"city":"Paris"}' },
      { type: "tool_call", id: "call_b", name: "get_weather", input: '{"city":"Rome"}' },
    ]);
    expect(deltas.filter((d) => d.type === "tool_call")).toEqual([
      { type: "tool_call", blockId: "call_a", name: "get_weather", delta: '{"ci' },
      { type: "tool_call", blockId: "call_a", delta: 'ty":"Paris"}' },
      { type: "tool_call", blockId: "call_b", name: "get_weather", delta: '{"city":"Rome"}' },
    ]);
    expect(final.stopReason).toBe("tool_calls");
    expect(final.usage).toEqual({ inputTokens: 30, outputTokens: 12, cacheReadTokens: 16 });
    const request = wire.requests[0];
    expect(request?.path).toBe("/services/aigc/text-generation/generation");
    expect(request?.headers).toMatchObject({ authorization: "Bearer sk-ds", "x-dashscope-sse": "enable" });
    expect(request?.body).toMatchObject({
      model: "qwen-plus",
      input: { messages: [{ role: "user", content: "weather?" }] },
      parameters: { result_format: "message", incremental_output: true, enable_thinking: true },
    });
  });

  it("uses the multimodal endpoint for images and reads list content", async () => {
    wire.queue({
      frames: [
        frame({
          output: {
            choices: [
              { message: { role: "assistant", content: [{ text: "A dot" }] }, finish_reason: "stop" },
            ],
          },
          usage: {},
        }),
      ],
    });
    const model = new DashScopeModel({ model: "qwen-vl-max", apiKey: "k", baseURL: wire.url });
    const { final } = await collect(
      model.stream([userMsg([textBlock("what?"), dataBlock(PNG, "image/png")])]),
    );
    expect(final.content).toMatchObject([{ type: "text", text: "A dot" }]);
    expect(wire.requests[0]?.path).toBe("/services/aigc/multimodal-generation/generation");
  });

  it("turns an error event into a typed error", async () => {
    wire.queue({
      frames: [
        frame(
          {
            code: "InvalidParameter",
            message: "Range of input length should be [1, 30720]",
            request_id: "r",
          },
          "error",
        ),
      ],
    });
    const model = new DashScopeModel({ model: "qwen-plus", apiKey: "k", baseURL: wire.url, maxRetries: 0 });
    const { error } = await collectError(model.stream([userMsg("hi")]));
    expect(error).toBeInstanceOf(AgentScopeError);
    expect((error as AgentScopeError).info).toMatchObject({ type: "invalid_request", source: "dashscope" });
    expect((error as AgentScopeError).message).toContain("Range of input length");
  });
});
