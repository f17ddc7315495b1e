import {
  parseJsonEventStream,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from "ai";
import { describe, expect, it } from "vitest";
import { startUi, translateUiEvent, uiMessageFrames } from "../../../src/app/bridges/index.js";
import { type AgentEvent, createEvent } from "../../../src/event/index.js";

const replyId = "r1";
const base = { replyId };
const call = {
  type: "tool_call" as const,
  id: "x1",
  name: "run_elsewhere",
  input: '{"n":1}',
  state: "submitted" as const,
};

/** The wire text the frames write for `events`, parsed back by the ai package (schema-checked). */
async function wire(
  events: AgentEvent[],
  heartbeatAfter = false,
): Promise<{ chunks: UIMessageChunk[]; text: string }> {
  const frames = uiMessageFrames(startUi("s1", replyId));
  let text = "";
  for (const event of events) text += frames.event(event);
  if (heartbeatAfter) text += frames.heartbeat();
  const done = frames.done?.() ?? false;
  text += frames.finish();
  const body = new Response(text).body!;
  const reader = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).getReader();
  const chunks: UIMessageChunk[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    if (!next.value.success) throw next.value.error;
    chunks.push(next.value.value);
  }
  return { chunks, text: `${text}${done ? "" : "(open)"}` };
}
async function folded(chunks: UIMessageChunk[]): Promise<UIMessage> {
  let last: UIMessage | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last!;
}

describe("agent events → UI message stream parts (every chunk passes the ai package's schema)", () => {
  it("data blocks become file parts; hints, custom events and the rest data-<type> parts; sub-agents are left out", async () => {
    const { chunks } = await wire([
      createEvent("REPLY_START", { ...base, sessionId: "s1", name: "a", role: "assistant" }),
      createEvent("DATA_BLOCK_START", { ...base, blockId: "d1", mediaType: "image/png" }),
      createEvent("DATA_BLOCK_DELTA", { ...base, blockId: "d1", data: "iVBO" }),
      createEvent("DATA_BLOCK_DELTA", { ...base, blockId: "d1", data: "Rw==" }),
      createEvent("DATA_BLOCK_END", { ...base, blockId: "d1" }),
      createEvent("HINT_BLOCK", { ...base, blockId: "h1", text: "answer in JSON" }),
      createEvent("CUSTOM", { ...base, id: "e-custom", name: "context_compressed", value: { before: 10 } }),
      createEvent("TEXT_BLOCK_START", { ...base, source: "main/helper", blockId: "sub" }),
      createEvent("TEXT_BLOCK_DELTA", { ...base, source: "main/helper", blockId: "sub", delta: "hidden" }),
      createEvent("EXCEED_MAX_ITERS", { ...base, maxIters: 3 }),
      createEvent("REPLY_END", { ...base, finishedReason: "exceed_max_iters" }),
    ]);
    const message = await folded(chunks);
    expect(message.parts).toEqual([
      { type: "file", mediaType: "image/png", url: "data:image/png;base64,iVBORw==" },
      { type: "data-hint-block", id: expect.any(String), data: { blockId: "h1", text: "answer in JSON" } },
      { type: "data-custom", id: "e-custom", data: { name: "context_compressed", value: { before: 10 } } },
      { type: "data-exceed-max-iters", id: expect.any(String), data: { maxIters: 3 } },
    ]);
    expect(chunks.at(-1)).toEqual({
      type: "finish",
      finishReason: "length",
      messageMetadata: {
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        status: "exceed_max_iters",
      },
    });
  });

  it("an external execution pauses the message: a data part with the calls, finish tool-calls, status waiting", async () => {
    const events = [
      createEvent("TOOL_CALL_START", { ...base, toolCallId: "x1", toolCallName: "run_elsewhere" }),
      createEvent("TOOL_CALL_DELTA", { ...base, toolCallId: "x1", delta: '{"n":1}' }),
      createEvent("TOOL_CALL_END", { ...base, toolCallId: "x1" }),
      createEvent("REQUIRE_EXTERNAL_EXECUTION", { ...base, toolCalls: [call] }),
    ];
    const open = await wire(events);
    expect(open.text.endsWith("(open)")).toBe(true); // a pause alone does not end a replay…
    const { chunks, text } = await wire(events, true);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true); // …a keep-alive with no answer after it does
    const message = await folded(chunks);
    expect(message.parts).toEqual([
      expect.objectContaining({
        type: "dynamic-tool",
        toolCallId: "x1",
        state: "input-available",
        input: { n: 1 },
      }),
      { type: "data-require-external-execution", id: expect.any(String), data: { toolCalls: [call] } },
    ]);
    expect(chunks.at(-1)).toMatchObject({
      type: "finish",
      finishReason: "tool-calls",
      messageMetadata: { status: "waiting" },
    });
  });

  it("a replayed pause followed by its answer goes on: the same message, approval answered, output after", async () => {
    const t = startUi("s1", replyId);
    const chunks = [
      createEvent("TOOL_CALL_START", { ...base, toolCallId: "w1", toolCallName: "write_note" }),
      createEvent("TOOL_CALL_END", { ...base, toolCallId: "w1" }),
      createEvent("REQUIRE_USER_CONFIRM", {
        ...base,
        toolCalls: [{ ...call, id: "w1", name: "write_note", reason: "writes" }],
      }),
      createEvent("USER_CONFIRM_RESULT", {
        ...base,
        confirmResults: [{ confirmed: false, toolCall: { id: "w1", name: "write_note", input: "{}" } }],
      }),
      createEvent("TOOL_RESULT_START", { ...base, toolCallId: "w1", toolCallName: "write_note" }),
      createEvent("TOOL_RESULT_END", { ...base, toolCallId: "w1", state: "denied" }),
    ].flatMap((event) => translateUiEvent(t, event)) as UIMessageChunk[];
    expect(t.paused).toBeUndefined();
    expect(chunks).toContainEqual({
      type: "tool-approval-request",
      approvalId: "w1",
      toolCallId: "w1",
      reason: "writes",
    });
    const message = await folded(chunks);
    expect(message.parts).toEqual([
      expect.objectContaining({ type: "dynamic-tool", state: "output-denied" }),
    ]);
  });
});
