import { describe, expect, it } from "vitest";
import { assistantMsg, type ContentBlock, dataBlock, textBlock, userMsg } from "../../src/message/index.js";
import { normalizeMessages } from "../../src/model/normalize.js";
import { formatOpenAIResponses } from "../../src/model/openai/responses-format.js";
import { OpenAIResponsesStreamParser } from "../../src/model/openai/responses-stream.js";
import type { ChatChunk, ChatFinal } from "../../src/model/types.js";

describe("formatOpenAIResponses", () => {
  it("keeps images returned by a tool inside function_call_output", () => {
    const reply = assistantMsg([
      { type: "tool_call", id: "c1", name: "shot", input: "{}", state: "finished" },
      {
        type: "tool_result",
        id: "c1",
        name: "shot",
        output: [textBlock("here"), dataBlock("AAAA", "image/png")],
        state: "success",
      } as ContentBlock,
    ]);
    const { input } = formatOpenAIResponses([userMsg("go"), reply], { model: "m" });
    expect(input.slice(1)).toEqual([
      { type: "function_call", call_id: "c1", name: "shot", arguments: "{}" },
      {
        type: "function_call_output",
        call_id: "c1",
        output: [
          { type: "input_text", text: "here" },
          { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "auto" },
        ],
      },
    ]);
  });

  it("sends back only its own reasoning items; foreign thinking becomes text, id-less thinking goes", () => {
    const reply = assistantMsg([
      { type: "thinking", id: "t1", thinking: "mine", itemId: "rs_9", signature: "enc", provider: "openai" },
      { type: "thinking", id: "t2", thinking: "theirs", provider: "anthropic", signature: "sig" },
      { type: "thinking", id: "t3", thinking: "no id", provider: "openai" },
      textBlock("answer"),
    ]);
    // normalised first, as the model does (formatters never normalise)
    const history = normalizeMessages([reply], { provider: "openai", keepProviderRuns: true });
    const { input } = formatOpenAIResponses(history, { model: "m" });
    expect(input).toEqual([
      {
        type: "reasoning",
        id: "rs_9",
        summary: [{ type: "summary_text", text: "mine" }],
        encrypted_content: "enc",
      },
      { role: "assistant", content: "<thinking>theirs</thinking>" },
      { role: "assistant", content: "answer" },
    ]);
  });

  it("maps a named tool choice and tools with strict off", () => {
    const body = formatOpenAIResponses([userMsg("x")], {
      model: "m",
      tools: [{ name: "f", description: "d", parameters: { type: "object" } }],
      toolChoice: { name: "f" },
    });
    expect(body.tool_choice).toEqual({ type: "function", name: "f" });
    expect(body.tools).toEqual([
      { type: "function", name: "f", description: "d", parameters: { type: "object" }, strict: false },
    ]);
    expect(body.include).toBeUndefined();
  });
});

function parse(events: Array<Record<string, unknown>>): { out: ChatChunk[]; final: ChatFinal } {
  const parser = new OpenAIResponsesStreamParser("openai");
  const out: ChatChunk[] = [];
  for (const event of events) parser.onEvent(JSON.stringify(event), String(event.type), out);
  return { out, final: parser.finish() };
}

const completed = (usage: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "response.completed",
  response: { model: "o3", status: "completed", usage, ...extra },
});

describe("OpenAIResponsesStreamParser", () => {
  it("streams reasoning summaries, keeps the item id and encrypted content, then a function call", () => {
    const { out, final } = parse([
      { type: "response.created", response: { id: "r" } },
      { type: "response.output_item.added", item: { type: "reasoning", id: "rs_1", summary: [] } },
      { type: "response.reasoning_summary_text.delta", item_id: "rs_1", summary_index: 0, delta: "first" },
      { type: "response.reasoning_summary_text.delta", item_id: "rs_1", summary_index: 1, delta: "second" },
      {
        type: "response.output_item.done",
        item: { type: "reasoning", id: "rs_1", encrypted_content: "ENC" },
      },
      {
        type: "response.output_item.added",
        item: { type: "function_call", id: "fc_1", call_id: "call_1", name: "f", arguments: "" },
      },
      { type: "response.function_call_arguments.delta", item_id: "fc_1", delta: '{"a"' },
      { type: "response.function_call_arguments.delta", item_id: "fc_1", delta: ":1}" },
      { type: "response.function_call_arguments.done", item_id: "fc_1", arguments: '{"a":1}' },
      completed({ input_tokens: 20, output_tokens: 5, input_tokens_details: { cached_tokens: 16 } }),
    ]);
    expect(out).toEqual([
      { type: "thinking", blockId: "rs_1", delta: "first" },
      { type: "thinking", blockId: "rs_1", delta: "\n\nsecond" },
      { type: "tool_call", blockId: "call_1", name: "f", delta: "" },
      { type: "tool_call", blockId: "call_1", delta: '{"a"' },
      { type: "tool_call", blockId: "call_1", delta: ":1}" },
    ]);
    expect(final).toEqual({
      type: "final",
      content: [
        {
          type: "thinking",
          id: "rs_1",
          thinking: "first\n\nsecond",
          itemId: "rs_1",
          signature: "ENC",
          provider: "openai",
        },
        { type: "tool_call", id: "call_1", name: "f", input: '{"a":1}', state: "pending" },
      ],
      usage: { inputTokens: 20, outputTokens: 5, cacheReadTokens: 16 },
      stopReason: "tool_calls",
      model: "o3",
    });
  });

  it("maps an incomplete response to length", () => {
    const { final } = parse([
      { type: "response.output_text.delta", item_id: "msg_1", delta: "partial" },
      { type: "response.incomplete", response: { incomplete_details: { reason: "max_output_tokens" } } },
    ]);
    expect(final.stopReason).toBe("length");
    expect(final.content).toEqual([{ type: "text", id: "msg_1", text: "partial" }]);
  });

  it("throws on response.failed and error events, and on a stream without completion", () => {
    expect(() =>
      parse([{ type: "response.failed", response: { error: { code: "server_error", message: "boom" } } }]),
    ).toThrow(/openai reported an error in the stream: boom/);
    expect(() => parse([{ type: "error", code: "rate_limit_exceeded", message: "slow" }])).toThrow(/slow/);
    expect(() => parse([{ type: "response.output_text.delta", item_id: "m", delta: "x" }])).toThrow(
      /ended before/,
    );
  });

  it("rejects an event without a type", () => {
    expect(() => parse([{ nope: true }])).toThrow(/without a `type`/);
  });
});
