import { describe, expect, it } from "vitest";
import {
  type AgentEvent,
  appendBase64,
  applyEvent,
  createEvent,
  foldEvents,
  parseEvent,
  parseInputEvent,
} from "../../src/event/index.js";
import type { Msg } from "../../src/message/index.js";

const R = "reply_1";
const start = createEvent("REPLY_START", { replyId: R, sessionId: "s", name: "bot", role: "assistant" });

describe("applyEvent", () => {
  it("starts a Msg from REPLY_START and folds text deltas into one block", () => {
    const msg = foldEvents([
      start,
      createEvent("TEXT_BLOCK_START", { replyId: R, blockId: "b1" }),
      createEvent("TEXT_BLOCK_DELTA", { replyId: R, blockId: "b1", delta: "Hel" }),
      createEvent("TEXT_BLOCK_DELTA", { replyId: R, blockId: "b1", delta: "lo" }),
      createEvent("TEXT_BLOCK_END", { replyId: R, blockId: "b1" }),
      createEvent("REPLY_END", { replyId: R, finishedReason: "completed" }),
    ])!;
    expect(msg).toMatchObject({ id: R, name: "bot", role: "assistant", finishedReason: "completed" });
    expect(msg.content).toEqual([{ type: "text", id: "b1", text: "Hello" }]);
    expect(msg.createdAt).toBe(start.createdAt);
  });

  it("does not change the Msg it is given, and ignores events of another reply", () => {
    const msg = applyEvent(undefined, start)!;
    const withBlock = applyEvent(msg, createEvent("TEXT_BLOCK_START", { replyId: R, blockId: "b" }));
    const next = applyEvent(
      withBlock,
      createEvent("TEXT_BLOCK_DELTA", { replyId: R, blockId: "b", delta: "x" }),
    );
    expect(msg.content).toEqual([]);
    expect(withBlock.content).toEqual([{ type: "text", id: "b", text: "" }]);
    expect(next.content).toEqual([{ type: "text", id: "b", text: "x" }]);
    const other = applyEvent(
      next,
      createEvent("TEXT_BLOCK_DELTA", { replyId: "reply_2", blockId: "b", delta: "y" }),
    );
    expect(other).toBe(next);
  });

  it("decodes and re-encodes base64 data deltas", () => {
    const bytes = Uint8Array.from({ length: 10 }, (_, i) => i * 25);
    const whole = Buffer.from(bytes).toString("base64");
    const a = Buffer.from(bytes.slice(0, 4)).toString("base64"); // padded
    const b = Buffer.from(bytes.slice(4)).toString("base64");
    expect(appendBase64(a, b)).toBe(whole);
    const msg = foldEvents([
      start,
      createEvent("DATA_BLOCK_START", { replyId: R, blockId: "d", mediaType: "image/png" }),
      createEvent("DATA_BLOCK_DELTA", { replyId: R, blockId: "d", data: a }),
      createEvent("DATA_BLOCK_DELTA", { replyId: R, blockId: "d", data: b }),
      createEvent("DATA_BLOCK_END", { replyId: R, blockId: "d" }),
    ])!;
    expect(msg.content[0]).toEqual({
      type: "data",
      id: "d",
      source: { type: "base64", mediaType: "image/png", data: whole },
    });
  });

  it("moves tool call states through confirm, external and result events and adds usage", () => {
    const events: AgentEvent[] = [
      start,
      createEvent("TOOL_CALL_START", { replyId: R, toolCallId: "c1", toolCallName: "write" }),
      createEvent("TOOL_CALL_DELTA", { replyId: R, toolCallId: "c1", delta: '{"a":' }),
      createEvent("TOOL_CALL_DELTA", { replyId: R, toolCallId: "c1", delta: "1}" }),
      createEvent("TOOL_CALL_END", { replyId: R, toolCallId: "c1" }),
      createEvent("MODEL_CALL_END", {
        replyId: R,
        modelName: "m",
        inputTokens: 5,
        outputTokens: 2,
        cacheReadTokens: 1,
      }),
    ];
    let msg = foldEvents(events)!;
    expect(msg.content[0]).toMatchObject({ type: "tool_call", input: '{"a":1}', state: "pending" });
    const call = {
      type: "tool_call" as const,
      id: "c1",
      name: "write",
      input: '{"a":1}',
      state: "pending" as const,
    };
    msg = applyEvent(msg, createEvent("REQUIRE_USER_CONFIRM", { replyId: R, toolCalls: [call] }));
    expect(msg.content[0]).toMatchObject({ state: "asking" });
    msg = applyEvent(
      msg,
      createEvent("USER_CONFIRM_RESULT", {
        replyId: R,
        confirmResults: [{ confirmed: true, toolCall: { ...call, input: '{"a":2}' } }],
      }),
    );
    expect(msg.content[0]).toMatchObject({ state: "allowed", input: '{"a":2}' });
    msg = foldEvents(
      [
        createEvent("TOOL_RESULT_START", { replyId: R, toolCallId: "c1", toolCallName: "write" }),
        createEvent("TOOL_RESULT_TEXT_DELTA", { replyId: R, toolCallId: "c1", delta: "done" }),
        createEvent("TOOL_RESULT_DATA_DELTA", {
          replyId: R,
          toolCallId: "c1",
          blockId: "img",
          mediaType: "image/png",
          data: "AAAA",
        }),
        createEvent("TOOL_RESULT_END", { replyId: R, toolCallId: "c1", state: "success" }),
        createEvent("MODEL_CALL_END", { replyId: R, modelName: "m", inputTokens: 1, outputTokens: 1 }),
      ],
      msg,
    )!;
    expect(msg.content[0]).toMatchObject({ state: "finished" });
    expect(msg.content[1]).toEqual({
      type: "tool_result",
      id: "c1",
      name: "write",
      state: "success",
      output: [
        { type: "text", id: "c1:text", text: "done" },
        { type: "data", id: "img", source: { type: "base64", mediaType: "image/png", data: "AAAA" } },
      ],
    });
    expect(msg.usage).toEqual({ inputTokens: 6, outputTokens: 3, cacheReadTokens: 1 });
  });

  it("stamps the finish reason, error and structured output at REPLY_END", () => {
    const msg = foldEvents([
      start,
      createEvent("REPLY_END", {
        replyId: R,
        finishedReason: "error",
        error: { type: "rate_limit", message: "slow" },
        structuredOutput: { a: 1 },
      }),
    ]) as Msg;
    expect(msg).toMatchObject({
      finishedReason: "error",
      error: { type: "rate_limit" },
      structuredOutput: { a: 1 },
    });
  });
});

describe("event schemas", () => {
  it("parse input events from JSON and name the bad field", () => {
    const ok = parseInputEvent({
      type: "USER_CONFIRM_RESULT",
      replyId: R,
      confirmResults: [{ confirmed: true, toolCall: { id: "c1", name: "write", input: "{}" } }],
    });
    expect(ok.type).toBe("USER_CONFIRM_RESULT");
    expect(ok.id).toBeTruthy();
    expect(() =>
      parseInputEvent({
        type: "USER_CONFIRM_RESULT",
        replyId: R,
        confirmResults: [{ confirmed: "yes", toolCall: {} }],
      }),
    ).toThrow(/confirmResults\[0\]\.confirmed/);
    expect(() => parseInputEvent({ type: "EXTERNAL_EXECUTION_RESULT", replyId: R, toolResults: [] })).toThrow(
      /toolResults/,
    );
    expect(parseInputEvent('{"type":"USER_INTERRUPT","replyId":"r"}').type).toBe("USER_INTERRUPT");
  });

  it("accept the Java names AGENT_START and AGENT_END as aliases", () => {
    const base = { id: "e1", createdAt: "2026-01-01T00:00:00Z", replyId: R };
    expect(parseEvent({ ...base, type: "AGENT_START" }).type).toBe("REPLY_START");
    expect(parseEvent({ ...base, type: "AGENT_END" }).type).toBe("REPLY_END");
    expect(() => parseEvent({ ...base, type: "NOPE" })).toThrow(/unknown event type "NOPE"/);
  });
});
