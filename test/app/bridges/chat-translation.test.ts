import { describe, expect, it } from "vitest";
import { finishChat, startChat, translateChatEvent } from "../../../src/app/bridges/index.js";
import { type AgentEvent, createEvent } from "../../../src/event/index.js";

const replyId = "r1";

function run(events: AgentEvent[]) {
  const t = startChat("s1");
  let content = "";
  for (const event of events) content += translateChatEvent(t, event)?.content ?? "";
  return { t, content, finish: finishChat(t) };
}

const text = (blockId: string, delta: string, source?: string): AgentEvent[] => [
  createEvent("TEXT_BLOCK_START", { replyId, blockId, ...(source ? { source } : {}) }),
  createEvent("TEXT_BLOCK_DELTA", { replyId, blockId, delta, ...(source ? { source } : {}) }),
  createEvent("TEXT_BLOCK_END", { replyId, blockId, ...(source ? { source } : {}) }),
];

describe("translating a reply's events into one chat completion message", () => {
  it("leaves sub-agent text out and joins the agent's text blocks with a newline", () => {
    const { content } = run([
      ...text("b1", "one"),
      ...text("x", "inner", "main/helper"),
      ...text("b2", "two"),
    ]);
    expect(content).toBe("one\ntwo");
  });

  it("sums usage over model calls, cached prompt tokens included", () => {
    const call = (inputTokens: number, cacheReadTokens?: number) =>
      createEvent("MODEL_CALL_END", {
        replyId,
        modelName: "m",
        inputTokens,
        outputTokens: 2,
        ...(cacheReadTokens ? { cacheReadTokens } : {}),
      });
    const { t } = run([call(10), call(20, 8)]);
    expect(t.usage).toEqual({
      prompt_tokens: 30,
      completion_tokens: 4,
      total_tokens: 34,
      prompt_tokens_details: { cached_tokens: 8 },
    });
  });

  it("maps how the reply ended: max iterations is `length`, structured output becomes the content", () => {
    const end = (init: Partial<Extract<AgentEvent, { type: "REPLY_END" }>>) =>
      createEvent("REPLY_END", { replyId, finishedReason: "completed", ...init });
    expect(run([end({ finishedReason: "exceed_max_iters" })]).finish).toMatchObject({
      finish_reason: "length",
      extension: { status: "exceed_max_iters" },
    });
    expect(run([end({ structuredOutput: { city: "Paris" } })]).finish).toMatchObject({
      finish_reason: "stop",
      suffix: '{"city":"Paris"}',
      extension: { structured_output: { city: "Paris" } },
    });
    expect(
      run([end({ finishedReason: "error", error: { type: "upstream", message: "down" } })]).finish.error,
    ).toEqual({
      message: "down",
      type: "upstream",
    });
    expect(run([]).finish).toMatchObject({
      error: { type: "internal" },
      extension: { status: "incomplete" },
    });
  });

  it("an external execution names the results route", () => {
    const { finish } = run([
      createEvent("REQUIRE_EXTERNAL_EXECUTION", {
        replyId,
        toolCalls: [{ type: "tool_call", id: "e1", name: "deploy", input: "{}", state: "submitted" }],
      }),
    ]);
    expect(finish.extension).toMatchObject({
      status: "waiting",
      pending: [{ tool_call_id: "e1", kind: "external" }],
    });
    expect(finish.suffix).toContain("POST /v1/sessions/s1/external-results");
  });
});
