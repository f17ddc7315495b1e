import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { type AgentScopeError, userMsg } from "../../src/message/index.js";
import { AnthropicModel } from "../../src/model/anthropic/anthropic-model.js";
import { GeminiModel } from "../../src/model/gemini/gemini-model.js";
import { OpenAIResponsesModel } from "../../src/model/openai/responses-model.js";
import type { ChatModel } from "../../src/model/types.js";
import { collect } from "./helpers/collect-stream.js";
import { sse, wireServerForFile } from "./helpers/wire-server.js";

/** Streams in the documented shapes of each API's built-in tool runs (see docs/providers.md). */

const wire = wireServerForFile();

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const event = (data: Record<string, unknown>) => sse(data, data.type as string);
const sent = () => wire.requests[0]?.body as { tools?: unknown[] };

async function agentReply(model: ChatModel) {
  const agent = new Agent({ name: "helper", systemPrompt: "Be brief.", model });
  await agent.reply(userMsg("news?"));
  return agent.state.context.at(-1)!;
}

describe("OpenAI Responses hosted tools", () => {
  const message = {
    id: "msg_67ccd3acc8d48190a77525dc6de64b4104becb25c45c1d41",
    type: "message",
    status: "completed",
    role: "assistant",
    content: [
      {
        type: "output_text",
        text: "Paris hosts the 2026 summit.",
        annotations: [
          {
            type: "url_citation",
            start_index: 0,
            end_index: 27,
            url: "https://example.org/summit",
            title: "Summit 2026",
          },
        ],
      },
    ],
  };
  const frames = [
    event({ type: "response.created", response: { id: "resp_1", status: "in_progress", output: [] } }),
    event({
      type: "response.output_item.added",
      output_index: 0,
      item: { id: "ws_1", type: "web_search_call", status: "in_progress" },
    }),
    event({
      type: "response.output_item.done",
      output_index: 0,
      item: {
        id: "ws_1",
        type: "web_search_call",
        status: "completed",
        action: { type: "search", query: "summit 2026" },
      },
    }),
    event({
      type: "response.output_item.added",
      output_index: 1,
      item: { ...message, status: "in_progress", content: [] },
    }),
    event({
      type: "response.output_text.delta",
      item_id: message.id,
      output_index: 1,
      content_index: 0,
      delta: "Paris hosts the 2026 summit.",
    }),
    event({ type: "response.output_item.done", output_index: 1, item: message }),
    event({
      type: "response.output_item.added",
      output_index: 2,
      item: { id: "ig_1", type: "image_generation_call", status: "in_progress" },
    }),
    event({
      type: "response.output_item.done",
      output_index: 2,
      item: {
        id: "ig_1",
        type: "image_generation_call",
        status: "completed",
        output_format: "png",
        result: PNG,
      },
    }),
    event({
      type: "response.completed",
      response: { id: "resp_1", status: "completed", usage: { input_tokens: 9, output_tokens: 8 } },
    }),
  ];
  const model = () =>
    new OpenAIResponsesModel({
      model: "gpt-5",
      baseURL: `${wire.url}/v1`,
      apiKey: "k",
      builtinTools: [
        { type: "web_search" },
        { type: "file_search", vectorStoreIds: ["vs_1"] },
        { type: "code_execution" },
        { type: "image_generation" },
      ],
    });

  it("sends the hosted tools and keeps the runs, citations and the generated image on the reply", async () => {
    wire.queue({ frames });
    const reply = await agentReply(model());
    expect(sent().tools).toEqual([
      { type: "web_search" },
      { type: "file_search", vector_store_ids: ["vs_1"] },
      { type: "code_interpreter", container: { type: "auto" } },
      { type: "image_generation" },
    ]);
    expect(reply.content).toMatchObject([
      { type: "tool_call", id: "ws_1", name: "web_search", executedBy: "provider", state: "finished" },
      { type: "tool_result", id: "ws_1", name: "web_search", output: "Searched: summit 2026" },
      {
        type: "text",
        text: "Paris hosts the 2026 summit.",
        citations: [{ url: "https://example.org/summit", title: "Summit 2026", start: 0, end: 27 }],
      },
      { type: "tool_call", id: "ig_1", name: "image_generation", executedBy: "provider" },
      {
        type: "tool_result",
        id: "ig_1",
        output: [
          { type: "text", text: "Generated an image." },
          { type: "data", source: { type: "base64", mediaType: "image/png", data: PNG } },
        ],
      },
    ]);
  });

  it("rejects a built-in tool the API does not have", async () => {
    const m = new OpenAIResponsesModel({
      model: "gpt-5",
      baseURL: `${wire.url}/v1`,
      apiKey: "k",
      builtinTools: [{ type: "url_context" }],
    });
    const error = (await collect(m.stream([userMsg("x")])).catch((e: unknown) => e)) as AgentScopeError;
    expect(error.message).toContain('no built-in tool "url_context"');
    expect(wire.requests).toHaveLength(0);
  });
});

describe("Anthropic server tools", () => {
  const frames = [
    event({
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [],
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    }),
    event({
      type: "content_block_start",
      index: 0,
      content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
    }),
    event({
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: '{"query":"summit 2026"}' },
    }),
    event({ type: "content_block_stop", index: 0 }),
    event({
      type: "content_block_start",
      index: 1,
      content_block: {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_1",
        content: [
          {
            type: "web_search_result",
            url: "https://example.org/summit",
            title: "Summit 2026",
            encrypted_content: "Eu8BCioIAhgBIiQ",
            page_age: null,
          },
        ],
      },
    }),
    event({ type: "content_block_stop", index: 1 }),
    event({
      type: "content_block_start",
      index: 2,
      content_block: { type: "text", text: "", citations: [] },
    }),
    event({
      type: "content_block_delta",
      index: 2,
      delta: {
        type: "citations_delta",
        citation: {
          type: "web_search_result_location",
          cited_text: "The 2026 summit takes place in Paris.",
          url: "https://example.org/summit",
          title: "Summit 2026",
          encrypted_index: "EpMBCioIAhgBIiQ",
        },
      },
    }),
    event({ type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "It is in Paris." } }),
    event({ type: "content_block_stop", index: 2 }),
    event({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 20, server_tool_use: { web_search_requests: 1 } },
    }),
    event({ type: "message_stop" }),
  ];

  it("sends the server tools with their beta header and keeps the run and the citations", async () => {
    wire.queue({ frames });
    const model = new AnthropicModel({
      model: "claude-sonnet-4-5",
      baseURL: wire.url,
      apiKey: "k",
      cache: false,
      builtinTools: [{ type: "web_search", maxUses: 3 }, { type: "web_fetch" }, { type: "code_execution" }],
    });
    const reply = await agentReply(model);
    expect(sent().tools).toEqual([
      { type: "web_search_20250305", name: "web_search", max_uses: 3 },
      { type: "web_fetch_20250910", name: "web_fetch" },
      { type: "code_execution_20250825", name: "code_execution" },
    ]);
    expect(wire.requests[0]?.headers["anthropic-beta"]).toBe(
      "web-fetch-2025-09-10,code-execution-2025-08-25",
    );
    expect(reply.content).toEqual([
      expect.objectContaining({ type: "tool_call", id: "srvtoolu_1", executedBy: "provider" }),
      expect.objectContaining({ type: "tool_result", id: "srvtoolu_1", executedBy: "provider" }),
      expect.objectContaining({
        type: "text",
        text: "It is in Paris.",
        citations: [
          {
            url: "https://example.org/summit",
            title: "Summit 2026",
            citedText: "The 2026 summit takes place in Paris.",
          },
        ],
      }),
    ]);
  });
  it("pause_turn: the paused reply goes back as it is and the model's next response continues it", async () => {
    const use = { type: "server_tool_use", id: "srvtoolu_p", name: "web_search", input: { query: "summit" } };
    const paused = [
      event({
        type: "message_start",
        message: {
          id: "msg_p1",
          type: "message",
          role: "assistant",
          content: [],
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      }),
      event({ type: "content_block_start", index: 0, content_block: { ...use, input: {} } }),
      event({
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"query":"summit"}' },
      }),
      event({ type: "content_block_stop", index: 0 }),
      event({
        type: "message_delta",
        delta: { stop_reason: "pause_turn", stop_sequence: null },
        usage: { output_tokens: 9 },
      }),
      event({ type: "message_stop" }),
    ];
    const result = { type: "web_search_tool_result", tool_use_id: "srvtoolu_p", content: [] };
    const resumed = [
      event({
        type: "message_start",
        message: {
          id: "msg_p2",
          type: "message",
          role: "assistant",
          content: [],
          usage: { input_tokens: 9, output_tokens: 1 },
        },
      }),
      event({ type: "content_block_start", index: 0, content_block: result }),
      event({ type: "content_block_stop", index: 0 }),
      event({ type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }),
      event({ type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Nothing found." } }),
      event({ type: "content_block_stop", index: 1 }),
      event({
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 4 },
      }),
      event({ type: "message_stop" }),
    ];
    wire.queue({ frames: paused }, { frames: resumed });
    const model = new AnthropicModel({
      model: "claude-sonnet-4-5",
      baseURL: wire.url,
      apiKey: "k",
      cache: false,
    });
    const reply = await agentReply(model);
    expect(wire.requests).toHaveLength(2);
    const second = wire.requests[1]?.body as { messages: Array<{ role: string; content: unknown[] }> };
    expect(second.messages.at(-1)).toEqual({ role: "assistant", content: [use] });
    expect(reply.content).toMatchObject([
      { type: "tool_call", id: "srvtoolu_p", executedBy: "provider" },
      { type: "tool_result", id: "srvtoolu_p", executedBy: "provider", providerData: result },
      { type: "text", text: "Nothing found." },
    ]);
    expect(reply).toMatchObject({ finishedReason: "completed", stopReason: "stop" });
  });
});

describe("Gemini grounding", () => {
  const frames = [
    sse({ candidates: [{ content: { role: "model", parts: [{ text: "The summit is " }] }, index: 0 }] }),
    sse({
      candidates: [
        {
          content: { role: "model", parts: [{ text: "in Paris." }] },
          finishReason: "STOP",
          index: 0,
          groundingMetadata: {
            webSearchQueries: ["summit 2026 location"],
            groundingChunks: [
              {
                web: {
                  uri: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbF9",
                  title: "example.org",
                },
              },
            ],
            groundingSupports: [
              {
                segment: { startIndex: 0, endIndex: 23, text: "The summit is in Paris." },
                groundingChunkIndices: [0],
              },
            ],
          },
        },
      ],
      usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 6, totalTokenCount: 14 },
    }),
  ];

  it("sends Google Search, URL context and code execution, and keeps the grounding as citations", async () => {
    wire.queue({ frames });
    const model = new GeminiModel({
      model: "gemini-2.5-flash",
      baseURL: `${wire.url}/v1beta`,
      apiKey: "k",
      builtinTools: [{ type: "web_search" }, { type: "url_context" }, { type: "code_execution" }],
    });
    const reply = await agentReply(model);
    expect(sent().tools).toEqual([{ googleSearch: {} }, { urlContext: {} }, { codeExecution: {} }]);
    expect(reply.content).toEqual([
      expect.objectContaining({
        text: "The summit is in Paris.",
        citations: [
          {
            url: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbF9",
            title: "example.org",
            citedText: "The summit is in Paris.",
          },
        ],
      }),
    ]);
  });

  it("rejects image_generation, naming it", async () => {
    const model = new GeminiModel({
      model: "gemini-2.5-flash",
      baseURL: `${wire.url}/v1beta`,
      apiKey: "k",
      builtinTools: [{ type: "image_generation" }],
    });
    const error = (await collect(model.stream([userMsg("x")])).catch((e: unknown) => e)) as AgentScopeError;
    expect(error.info.type).toBe("invalid_request");
    expect(error.message).toContain('"image_generation"');
  });
});
